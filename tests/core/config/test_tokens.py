"""Token sources, their order, the keyring with and without a backend, and the credentials file."""

from __future__ import annotations

import os
import shlex
import stat
import sys
from pathlib import Path

import pytest
from keyring.backends import chainer, fail, null
from profiles_support import (
    CANARY,
    LockedKeyring,
    MemoryKeyring,
    VanishingKeyring,
    all_text,
    isolate,
    use_keyring,
)
from pydantic import SecretStr

from plantstore_tui.core.config.errors import KeyringFailed
from plantstore_tui.core.config.files import CorruptConfigFile, UnsafeConfigFile
from plantstore_tui.core.config.profiles import Profile
from plantstore_tui.core.config.store import ProfileStore
from plantstore_tui.core.config.targets import profile_target, profile_token
from plantstore_tui.core.config.tokens import (
    InvalidToken,
    NoToken,
    SourceKind,
    TokenCommandFailed,
    TokenSource,
    clean_token,
    command_token,
    env_token,
    usable_keyring,
)

KEPT = Profile(name="kept", base_url="https://plants.example.com")
# Where a bad character right after the canary is, as the refusal names it.
AFTER_CANARY = f"position {len(CANARY) + 1}"


@pytest.fixture(autouse=True)
def config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    return isolate(monkeypatch, tmp_path)


@pytest.fixture
def store(config: Path) -> ProfileStore:
    return ProfileStore()


@pytest.fixture
def memory_keyring(monkeypatch: pytest.MonkeyPatch) -> MemoryKeyring:
    backend = MemoryKeyring()
    use_keyring(monkeypatch, backend)
    return backend


def python_command(code: str, *args: str) -> str:
    """A token command running `code` in this Python, quoted for shlex."""
    return shlex.join([sys.executable, "-c", code, *args])


def printing(text: str) -> str:
    return python_command(f"import sys; sys.stdout.write({text!r})")


# --- the words for each source ------------------------------------------------------------------


def test_each_source_has_words_for_a_screen(tmp_path: Path) -> None:
    assert str(TokenSource(SourceKind.ENV, "PROD_TOKEN")) == "$PROD_TOKEN"
    assert str(TokenSource(SourceKind.COMMAND, "pass show x")) == "command"
    assert str(TokenSource(SourceKind.KEYRING, "SecretService Keyring")) == "keyring"
    path = tmp_path / "credentials.toml"
    assert str(TokenSource(SourceKind.CREDENTIALS_FILE, str(path))) == f"credentials file {path}"
    assert str(TokenSource(SourceKind.PROMPT)) == "the prompt"
    assert str(TokenSource(SourceKind.STDIN)) == "stdin"


def test_a_status_lines_words_for_each_source_name_no_path_nor_command(tmp_path: Path) -> None:
    path = str(tmp_path / "credentials.toml")
    words = {
        SourceKind.ENV: "$PROD_TOKEN",
        SourceKind.COMMAND: "the token command",
        SourceKind.KEYRING: "the keyring",
        SourceKind.CREDENTIALS_FILE: "the credentials file",
        SourceKind.PROMPT: "the prompt",
        SourceKind.STDIN: "stdin",
    }
    details = {SourceKind.ENV: "PROD_TOKEN", SourceKind.COMMAND: "pass show plants/prod"}
    for kind, expected in words.items():
        source = TokenSource(kind, details.get(kind, path))
        assert source.words == expected
        assert path not in source.words


# --- cleaning -----------------------------------------------------------------------------------


def test_a_token_is_trimmed_and_wrapped() -> None:
    token = clean_token(f"  {CANARY}\n", TokenSource(SourceKind.PROMPT))
    assert isinstance(token, SecretStr)
    assert token.get_secret_value() == CANARY
    assert CANARY not in repr(token)
    assert CANARY not in str(token)


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        ("", "empty"),
        ("   ", "empty"),
        (f"{CANARY} {CANARY}", AFTER_CANARY),
        (f"{CANARY}\t1", AFTER_CANARY),
        (f"{CANARY}\x1b", AFTER_CANARY),
        (f"{CANARY}\u00e9", AFTER_CANARY),
        (f"{CANARY}\x7f", AFTER_CANARY),
    ],
)
def test_a_token_that_cannot_go_in_a_header_is_refused_without_quoting_it(
    raw: str, words: str
) -> None:
    with pytest.raises(InvalidToken, match=words) as caught:
        clean_token(raw, TokenSource(SourceKind.ENV, "X"))
    assert CANARY not in str(caught.value)
    assert "token from $X" in str(caught.value)


# --- environment --------------------------------------------------------------------------------


def test_an_environment_token_is_read_trimmed_and_blank_means_unset() -> None:
    assert env_token("T", {}) is None
    assert env_token("T", {"T": "  \n"}) is None
    token = env_token("T", {"T": f" {CANARY} "})
    assert token is not None
    assert token.get_secret_value() == CANARY


# --- command ------------------------------------------------------------------------------------


def test_a_command_token_is_its_trimmed_stdout() -> None:
    token = command_token(printing(f"\n  {CANARY}  \n"))
    assert token.get_secret_value() == CANARY


def test_a_command_runs_without_a_shell() -> None:
    command = python_command("import sys; sys.stdout.write(sys.argv[1])", "$HOME;`id`")
    assert command_token(command).get_secret_value() == "$HOME;`id`"


def test_a_failing_command_is_reported_with_its_exit_status_and_never_its_output() -> None:
    command = python_command(
        f"import sys; print({CANARY!r}); print({CANARY!r}, file=sys.stderr); sys.exit(3)"
    )
    with pytest.raises(TokenCommandFailed) as caught:
        command_token(command)
    message = str(caught.value)
    assert "failed with exit status 3" in message
    assert "output is not shown" in message
    assert CANARY not in message


def test_a_command_killed_by_a_signal_says_which() -> None:
    command = python_command("import os, signal; os.kill(os.getpid(), signal.SIGTERM)")
    with pytest.raises(TokenCommandFailed, match="killed by signal 15"):
        command_token(command)


@pytest.mark.parametrize(
    ("command", "words"),
    [
        ("", "is empty"),
        ("pass 'unclosed", "cannot be parsed"),
        ("plantstore-no-such-program-x", "'plantstore-no-such-program-x' was not found"),
        (os.devnull, "cannot be run"),
    ],
)
def test_a_command_that_cannot_run_says_why(command: str, words: str) -> None:
    with pytest.raises(TokenCommandFailed, match=words):
        command_token(command)


def test_a_command_that_hangs_is_stopped() -> None:
    with pytest.raises(TokenCommandFailed, match=r"did not finish within 0\.3 s"):
        command_token(python_command("import time; time.sleep(10)"), timeout=0.3)


@pytest.mark.parametrize(
    ("output", "error", "words"),
    [
        ("", TokenCommandFailed, "printed nothing"),
        (" \n", TokenCommandFailed, "printed nothing"),
        (f"{CANARY}\nsecond line", InvalidToken, AFTER_CANARY),
        ("x" * 70_000, TokenCommandFailed, "printed 70,000 bytes"),
    ],
    ids=["empty", "blank", "two-lines", "huge"],
)
def test_command_output_that_is_no_token_is_refused(
    output: str, error: type[Exception], words: str
) -> None:
    with pytest.raises(error, match=words) as caught:
        command_token(printing(output))
    assert CANARY not in str(caught.value)


def test_command_output_that_is_not_utf8_is_refused() -> None:
    command = python_command("import sys; sys.stdout.buffer.write(b'tok\\xff')")
    with pytest.raises(InvalidToken, match="not UTF-8"):
        command_token(command)


# --- keyring: unavailable and available -----------------------------------------------------------


@pytest.mark.parametrize("backend", [fail.Keyring(), null.Keyring()])
def test_fail_and_null_backends_are_no_keyring(
    monkeypatch: pytest.MonkeyPatch, backend: object
) -> None:
    use_keyring(monkeypatch, backend)  # type: ignore[arg-type]
    assert usable_keyring() is None


def test_a_chainer_with_nothing_to_chain_is_no_keyring(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(chainer.ChainerBackend, "backends", [])
    use_keyring(monkeypatch, chainer.ChainerBackend())
    assert usable_keyring() is None


def test_without_a_keyring_the_token_goes_to_a_0600_credentials_file_and_says_so(
    store: ProfileStore, config: Path
) -> None:
    old_umask = os.umask(0)
    try:
        report = store.add(KEPT, token=SecretStr(CANARY))
    finally:
        os.umask(old_umask)
    credentials = config / "credentials.toml"
    assert report.token_source == TokenSource(SourceKind.CREDENTIALS_FILE, str(credentials))
    assert report.notice is not None
    assert "No usable OS keyring" in report.notice
    assert str(credentials) in report.notice
    assert stat.S_IMODE(credentials.stat().st_mode) == 0o600
    assert store.token_home() == report.token_source
    token, source = profile_token(KEPT, store.tokens, os.environ)
    assert token.get_secret_value() == CANARY
    assert source == report.token_source
    # The target says where in words; the profile listing names the file.
    assert profile_target(KEPT, store.tokens, os.environ).token_source == "the credentials file"
    assert store.token_status(KEPT) == f"credentials file {credentials}"


def test_with_a_keyring_the_token_goes_there_and_nowhere_on_disk(
    store: ProfileStore, memory_keyring: MemoryKeyring, config: Path
) -> None:
    report = store.add(KEPT, token=SecretStr(CANARY))
    assert report.token_source is not None
    assert report.token_source.kind is SourceKind.KEYRING
    assert report.notice is None
    assert list(memory_keyring.passwords.values()) == [CANARY]
    assert not (config / "credentials.toml").exists()
    assert all(CANARY not in text for text in all_text(config))
    assert store.token_source(KEPT) == report.token_source
    assert str(store.token_home()) == "keyring"


def test_saving_to_a_keyring_drops_the_copy_in_the_credentials_file(
    store: ProfileStore, monkeypatch: pytest.MonkeyPatch, config: Path
) -> None:
    store.add(KEPT, token=SecretStr("old-token-without-keyring"))
    use_keyring(monkeypatch, MemoryKeyring())
    store.edit("kept", {}, token=SecretStr(CANARY))
    assert "old-token-without-keyring" not in (config / "credentials.toml").read_text()
    assert profile_token(KEPT, store.tokens, os.environ)[1].kind is SourceKind.KEYRING


def test_a_keyring_entry_wins_over_the_credentials_file(
    store: ProfileStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    store.add(KEPT, token=SecretStr("from-the-file"))
    keyring = MemoryKeyring()
    use_keyring(monkeypatch, keyring)
    assert profile_token(KEPT, store.tokens, os.environ)[0].get_secret_value() == "from-the-file"
    keyring.set_password(store.tokens.service, "kept", CANARY)
    token, source = profile_token(KEPT, store.tokens, os.environ)
    assert (token.get_secret_value(), source.kind) == (CANARY, SourceKind.KEYRING)


def test_a_keyring_that_finds_no_daemon_falls_back_to_the_file(
    store: ProfileStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    store.add(KEPT, token=SecretStr(CANARY))
    use_keyring(monkeypatch, VanishingKeyring())
    token, source = profile_token(KEPT, store.tokens, os.environ)
    assert (token.get_secret_value(), source.kind) == (CANARY, SourceKind.CREDENTIALS_FILE)


def test_a_locked_keyring_is_reported_in_words(
    store: ProfileStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_keyring(monkeypatch, LockedKeyring())
    with pytest.raises(KeyringFailed, match="could not save the token") as caught:
        store.add(KEPT, token=SecretStr(CANARY))
    assert CANARY not in str(caught.value)
    assert store.load().profiles == ()
    with pytest.raises(KeyringFailed, match=r"could not be read \(KeyringLocked"):
        store.tokens.find("kept")


def test_keyring_entries_of_another_config_dir_are_apart(
    monkeypatch: pytest.MonkeyPatch, memory_keyring: MemoryKeyring, tmp_path: Path
) -> None:
    monkeypatch.setenv("PLANTSTORE_CONFIG_DIR", str(tmp_path / "one"))
    ProfileStore().add(KEPT, token=SecretStr("token-one"))
    monkeypatch.setenv("PLANTSTORE_CONFIG_DIR", str(tmp_path / "two"))
    ProfileStore().add(KEPT, token=SecretStr("token-two"))
    assert sorted(memory_keyring.passwords.values()) == ["token-one", "token-two"]
    token, _source = profile_token(KEPT, ProfileStore().tokens, os.environ)
    assert token.get_secret_value() == "token-two"
    services = {service for service, _ in memory_keyring.passwords}
    assert services == {f"plantstore-tui {tmp_path / 'one'}", f"plantstore-tui {tmp_path / 'two'}"}


def test_the_operators_own_config_dir_uses_the_plain_service_name(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("PLANTSTORE_CONFIG_DIR")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert ProfileStore().tokens.service == "plantstore-tui"


# --- the credentials file -----------------------------------------------------------------------


@pytest.mark.parametrize("mode", [0o640, 0o604, 0o620, 0o644])
def test_a_credentials_file_others_can_read_is_refused_with_the_chmod_that_fixes_it(
    store: ProfileStore, config: Path, mode: int
) -> None:
    store.add(KEPT, token=SecretStr(CANARY))
    credentials = config / "credentials.toml"
    credentials.chmod(mode)
    chmod = f"chmod 600 {shlex.quote(str(credentials))}"
    with pytest.raises(UnsafeConfigFile) as caught:
        profile_token(KEPT, store.tokens, os.environ)
    assert str(caught.value).endswith(f"run `{chmod}`")
    with pytest.raises(UnsafeConfigFile):
        store.add(Profile(name="other", base_url="https://x.example"), token=SecretStr("t"))
    assert stat.S_IMODE(credentials.stat().st_mode) == mode
    os.chmod(credentials, 0o600)  # what the message says to run
    assert profile_token(KEPT, store.tokens, os.environ)[0].get_secret_value() == CANARY


def test_a_corrupt_credentials_file_is_reported_and_not_overwritten(
    store: ProfileStore, config: Path
) -> None:
    credentials = config / "credentials.toml"
    config.mkdir()
    fd = os.open(credentials, os.O_WRONLY | os.O_CREAT, 0o600)
    os.write(fd, f'[tokens]\nkept = "{CANARY}\n'.encode())
    os.close(fd)
    before = credentials.read_bytes()
    with pytest.raises(CorruptConfigFile, match=r"credentials\.toml:2:") as caught:
        profile_token(KEPT, store.tokens, os.environ)
    assert CANARY not in str(caught.value)
    with pytest.raises(CorruptConfigFile):
        store.add(Profile(name="other", base_url="https://x.example"), token=SecretStr("t"))
    assert credentials.read_bytes() == before


def test_a_credentials_entry_that_is_not_a_string_is_reported(
    store: ProfileStore, config: Path
) -> None:
    config.mkdir()
    fd = os.open(config / "credentials.toml", os.O_WRONLY | os.O_CREAT, 0o600)
    os.write(fd, b"[tokens]\nkept = 42\n")
    os.close(fd)
    with pytest.raises(Exception, match=r"tokens\.kept must be a string"):
        profile_token(KEPT, store.tokens, os.environ)


def test_removing_a_profile_forgets_its_token_everywhere(
    store: ProfileStore, monkeypatch: pytest.MonkeyPatch, config: Path
) -> None:
    store.add(KEPT, token=SecretStr(CANARY))
    keyring = MemoryKeyring()
    use_keyring(monkeypatch, keyring)
    keyring.set_password(store.tokens.service, "kept", CANARY)
    assert store.remove("kept") is None
    assert keyring.passwords == {}
    assert all(CANARY not in text for text in all_text(config))


def test_removing_with_a_locked_keyring_removes_the_profile_and_warns(
    store: ProfileStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    store.add(KEPT, token=SecretStr(CANARY))
    use_keyring(monkeypatch, LockedKeyring())
    warning = store.remove("kept")
    assert warning is not None
    assert "is removed, but its saved token could not be deleted" in warning
    assert store.load().profiles == ()


def test_switching_to_a_token_variable_forgets_the_kept_token(
    store: ProfileStore, memory_keyring: MemoryKeyring
) -> None:
    store.add(KEPT, token=SecretStr(CANARY))
    report = store.edit("kept", {"token_env": "KEPT_TOKEN"})
    assert report.profile.token_env == "KEPT_TOKEN"
    assert memory_keyring.passwords == {}


def test_giving_a_token_drops_the_variable_and_the_command(
    store: ProfileStore, memory_keyring: MemoryKeyring
) -> None:
    store.add(Profile(name="kept", base_url=KEPT.base_url, token_env="A", token_command="b"))
    report = store.edit("kept", {}, token=SecretStr(CANARY))
    assert report.profile == KEPT
    assert report.token_source is not None
    assert report.token_source.kind is SourceKind.KEYRING


def test_a_new_profile_does_not_inherit_a_token_left_behind(
    store: ProfileStore, memory_keyring: MemoryKeyring
) -> None:
    memory_keyring.set_password(store.tokens.service, "kept", "left-behind")
    store.add(KEPT)
    assert memory_keyring.passwords == {}
    with pytest.raises(NoToken, match="has no saved token"):
        profile_token(KEPT, store.tokens, os.environ)


# --- the order of sources -----------------------------------------------------------------------


def everything(store: ProfileStore, keyring: MemoryKeyring) -> Profile:
    """A profile with a token in every source, each a different value."""
    keyring.set_password(store.tokens.service, "all", "from-keyring")
    return Profile(
        name="all",
        base_url="https://plants.example.com",
        token_env="ALL_TOKEN",
        token_command=printing("from-command"),
    )


def test_plantstore_token_wins_over_every_profile_source(
    store: ProfileStore, memory_keyring: MemoryKeyring
) -> None:
    profile = everything(store, memory_keyring)
    environ = {"PLANTSTORE_TOKEN": "from-plantstore-token", "ALL_TOKEN": "from-variable"}
    token, source = profile_token(profile, store.tokens, environ)
    assert token.get_secret_value() == "from-plantstore-token"
    assert str(source) == "$PLANTSTORE_TOKEN"


def test_then_the_profiles_variable(store: ProfileStore, memory_keyring: MemoryKeyring) -> None:
    profile = everything(store, memory_keyring)
    token, source = profile_token(profile, store.tokens, {"ALL_TOKEN": "from-variable"})
    assert (token.get_secret_value(), str(source)) == ("from-variable", "$ALL_TOKEN")


def test_then_the_profiles_command(store: ProfileStore, memory_keyring: MemoryKeyring) -> None:
    profile = everything(store, memory_keyring)
    token, source = profile_token(profile, store.tokens, {})
    assert (token.get_secret_value(), str(source)) == ("from-command", "command")


def test_then_the_keyring_and_last_the_credentials_file(
    store: ProfileStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    store.add(KEPT, token=SecretStr("from-file"))
    assert profile_token(KEPT, store.tokens, {})[0].get_secret_value() == "from-file"
    keyring = MemoryKeyring()
    use_keyring(monkeypatch, keyring)
    keyring.set_password(store.tokens.service, "kept", "from-keyring")
    assert profile_token(KEPT, store.tokens, {})[0].get_secret_value() == "from-keyring"


def test_a_profile_reading_a_variable_that_is_unset_names_it(store: ProfileStore) -> None:
    profile = Profile(name="p", base_url="https://x.example", token_env="P_TOKEN")
    with pytest.raises(NoToken, match=r"\$P_TOKEN, which is not set"):
        profile_token(profile, store.tokens, {})


def test_a_profile_with_nothing_saved_says_how_to_get_a_token(store: ProfileStore) -> None:
    with pytest.raises(NoToken, match=r"has no saved token.*PLANTSTORE_TOKEN"):
        profile_token(KEPT, store.tokens, {})
    assert store.token_source(KEPT) is None


def test_a_target_carries_the_profile_its_token_and_its_source(
    store: ProfileStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PROD_TOKEN", CANARY)
    store.add(
        Profile(
            name="prod",
            base_url="https://plants.example.com",
            token_env="PROD_TOKEN",
            protected=True,
            timeout=12,
        )
    )
    target = profile_target(store.get("prod"), store.tokens, os.environ)
    assert target.profile == "prod"
    assert target.protected
    assert target.limits.deadline == 12
    assert target.token.get_secret_value() == CANARY
    assert target.token_source == "$PROD_TOKEN"
    assert CANARY not in repr(target)
