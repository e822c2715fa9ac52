"""Which target wins, called directly: no click, the environment given as a plain mapping."""

from __future__ import annotations

from pathlib import Path

import pytest
from profiles_support import CANARY, isolate

from plantstore_tui.core.config import files, options, profiles, tokens
from plantstore_tui.core.config.options import (
    InvalidAdHocTarget,
    NoTarget,
    TargetOptions,
    unprompted_ad_hoc_url,
)
from plantstore_tui.core.config.profiles import Profile
from plantstore_tui.core.config.store import ProfileStore
from plantstore_tui.core.config.targets import resolve_target
from plantstore_tui.core.config.tokens import InvalidToken, NoToken
from plantstore_tui.core.errors import PlantStoreError
from plantstore_tui.core.http.tls import CABundleError

PROFILE = "PLANTSTORE_PROFILE"
TOKENS = {"A_TOKEN": "token-a", "B_TOKEN": "token-b"}


@pytest.fixture
def store(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> ProfileStore:
    """Profiles a (the default) and b, reading their tokens from A_TOKEN and B_TOKEN."""
    store = ProfileStore(isolate(monkeypatch, tmp_path))
    store.add(Profile(name="a", base_url="https://a.example", token_env="A_TOKEN"))
    store.add(Profile(name="b", base_url="https://b.example", token_env="B_TOKEN"))
    return store


def winner(store: ProfileStore, options: TargetOptions, **environ: str) -> str:
    """The profile name, or the base URL of an ad hoc target, that the options and environ pick."""
    target = resolve_target(options, {**TOKENS, **environ}, store=store)
    return target.profile or target.base_url


def test_base_url_option_wins_over_the_profile_option_and_every_variable(
    store: ProfileStore,
) -> None:
    options = TargetOptions(profile="b", base_url="https://flag.example")
    assert (
        winner(
            store,
            options,
            PLANTSTORE_PROFILE="b",
            PLANTSTORE_BASE_URL="https://env.example",
            PLANTSTORE_TOKEN=CANARY,
        )
        == "https://flag.example"
    )


def test_profile_option_wins_over_plantstore_profile(store: ProfileStore) -> None:
    assert winner(store, TargetOptions(profile="a"), PLANTSTORE_PROFILE="b") == "a"


def test_plantstore_profile_wins_over_plantstore_base_url(store: ProfileStore) -> None:
    assert winner(store, TargetOptions(), PLANTSTORE_PROFILE="b", PLANTSTORE_BASE_URL="x") == "b"


def test_plantstore_base_url_wins_over_the_default_profile(store: ProfileStore) -> None:
    environ = {"PLANTSTORE_BASE_URL": "https://env.example", "PLANTSTORE_TOKEN": CANARY}
    assert winner(store, TargetOptions(), **environ) == "https://env.example"


def test_the_default_profile_is_last(store: ProfileStore) -> None:
    assert winner(store, TargetOptions()) == "a"


def test_without_a_default_profile_nothing_is_named(store: ProfileStore) -> None:
    store.remove("a")
    with pytest.raises(NoTarget, match=r"--profile NAME \(saved: b\)"):
        resolve_target(TargetOptions(), TOKENS, store=store)
    store.remove("b")
    with pytest.raises(NoTarget, match=r"give --base-url URL \(or set PLANTSTORE_BASE_URL\)"):
        resolve_target(TargetOptions(), TOKENS, store=store)


def test_a_default_profile_that_cannot_be_used_is_said_as_it_is(store: ProfileStore) -> None:
    # Not "No target: give --base-url or save a profile": the operator has one, and it is broken.
    store.path.write_text(
        'default = "prod"\n[profiles.prod]\nbase_url = "ftp://prod.example"\n'
        '[profiles.b]\nbase_url = "https://b.example"\ntoken_env = "B_TOKEN"\n'
    )
    with pytest.raises(profiles.InvalidProfile) as raised:
        resolve_target(TargetOptions(), TOKENS, store=store)
    assert str(raised.value) == (
        "The default profile cannot be used. "
        "Profile 'prod': The base URL must start with http:// or https://"
    )
    # Named, the others are still there to use.
    assert winner(store, TargetOptions(profile="b")) == "b"


def test_a_bad_ad_hoc_url_says_whether_the_command_line_or_the_environment_gave_it(
    store: ProfileStore,
) -> None:
    with pytest.raises(InvalidAdHocTarget, match="must start with http") as flag:
        resolve_target(TargetOptions(base_url="ftp://x.example"), {}, store=store)
    assert flag.value.on_command_line
    with pytest.raises(InvalidAdHocTarget, match=r"plain http:// to x\.example") as variable:
        resolve_target(TargetOptions(), {"PLANTSTORE_BASE_URL": "http://x.example"}, store=store)
    assert not variable.value.on_command_line


def test_an_ad_hoc_token_comes_from_plantstore_token_before_the_prompt(store: ProfileStore) -> None:
    def prompt() -> str:
        raise AssertionError("the prompt must not be asked when PLANTSTORE_TOKEN is set")

    options = TargetOptions(base_url="https://x.example")
    target = resolve_target(options, {"PLANTSTORE_TOKEN": CANARY}, prompt=prompt, store=store)
    assert (target.token.get_secret_value(), target.token_source) == (
        CANARY,
        "$PLANTSTORE_TOKEN",
    )


def test_then_from_the_prompt_and_without_one_there_is_no_token(store: ProfileStore) -> None:
    options = TargetOptions(base_url="https://x.example")
    target = resolve_target(options, {}, prompt=lambda: f" {CANARY}\n", store=store)
    assert (target.token.get_secret_value(), target.token_source) == (
        CANARY,
        "the prompt",
    )
    with pytest.raises(InvalidToken, match="The token is empty"):
        resolve_target(options, {}, prompt=lambda: "  ", store=store)
    with pytest.raises(NoToken, match=r"^No token: set PLANTSTORE_TOKEN \(a token is never"):
        resolve_target(options, {}, store=store)


def test_the_ca_bundle_option_wins_over_the_profiles(store: ProfileStore, tmp_path: Path) -> None:
    store.edit("a", {"ca_bundle": str(tmp_path / "profile.pem")})
    with pytest.raises(CABundleError, match=r"profile\.pem"):
        resolve_target(TargetOptions(), TOKENS, store=store)
    with pytest.raises(CABundleError, match=r"option\.pem"):
        resolve_target(TargetOptions(ca_bundle=str(tmp_path / "option.pem")), TOKENS, store=store)


@pytest.mark.parametrize(
    ("options", "environ", "expected"),
    [
        (
            TargetOptions(base_url=" https://x.example "),
            {"PLANTSTORE_TOKEN": "t"},
            "https://x.example",
        ),
        (
            TargetOptions(),
            {"PLANTSTORE_BASE_URL": "https://x", "PLANTSTORE_TOKEN": "t"},
            "https://x",
        ),
        # A prompt to come, or a profile chosen: resolved before the TUI owns the terminal.
        (TargetOptions(base_url="https://x.example"), {}, None),
        (TargetOptions(base_url="https://x", profile="a"), {"PLANTSTORE_TOKEN": "t"}, None),
        (TargetOptions(base_url="https://x"), {"PLANTSTORE_TOKEN": "t", PROFILE: "a"}, None),
        (TargetOptions(profile="a"), {"PLANTSTORE_TOKEN": "t"}, None),
    ],
)
def test_an_ad_hoc_target_with_its_token_in_the_environment_needs_no_prompt(
    options: TargetOptions, environ: dict[str, str], expected: str | None
) -> None:
    assert unprompted_ad_hoc_url(options, environ) == expected


def test_the_subcommands_target_options_win_over_the_groups() -> None:
    group = TargetOptions(profile="a", ca_bundle="group.pem")
    assert group.merged(None, None) == TargetOptions(profile="a", ca_bundle="group.pem")
    assert group.merged(None, "https://x", True) == TargetOptions(
        None, "https://x", allow_insecure_http=True, ca_bundle="group.pem"
    )
    assert group.merged("b", None, ca_bundle="own.pem").ca_bundle == "own.pem"


@pytest.mark.parametrize("module", [files, profiles, tokens, options])
def test_every_config_error_is_a_plantstore_error_with_a_docstring(module: object) -> None:
    errors = [
        value
        for value in vars(module).values()
        if isinstance(value, type)
        and issubclass(value, Exception)
        and value.__module__ == getattr(module, "__name__", None)
    ]
    assert errors
    for error in errors:
        assert issubclass(error, PlantStoreError), error
        assert error.__doc__, error
        assert "\n" not in error.__doc__.strip(), error
