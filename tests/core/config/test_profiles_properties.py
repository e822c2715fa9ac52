"""Property tests for the profile parsers: tokens, profile tables, TOML files, and round trips."""

from __future__ import annotations

import shlex
import tempfile
from pathlib import Path
from unittest import mock

import keyring
from hypothesis import given, settings
from hypothesis import strategies as st
from keyring.backends import fail
from profiles_support import CANARY

from plantstore_tui.core.config.files import CorruptConfigFile, parse_toml
from plantstore_tui.core.config.profiles import InvalidProfile, Profile, profile_from_table
from plantstore_tui.core.config.store import ProfileStore
from plantstore_tui.core.config.tokens import InvalidToken, SourceKind, TokenSource, clean_token

PROMPT = TokenSource(SourceKind.PROMPT)
names = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9._-]{0,20}", fullmatch=True)
env_names = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,20}", fullmatch=True)
printable = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=30)
toml_values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.text(),
    st.lists(st.integers()),
)


@given(suffix=st.text())
def test_a_token_is_either_clean_or_refused_without_being_quoted(suffix: str) -> None:
    raw = CANARY + suffix
    try:
        token = clean_token(raw, PROMPT)
    except InvalidToken as exc:
        refusal = str(exc)
    else:
        value = token.get_secret_value()
        assert value == raw.strip()
        assert all(0x21 <= ord(char) <= 0x7E for char in value)
        return
    assert CANARY not in refusal


@given(
    table=st.dictionaries(
        st.sampled_from(
            [
                "base_url",
                "token_env",
                "token_command",
                "protected",
                "timeout",
                "allow_insecure_http",
            ]
        ),
        toml_values,
    ),
    name=st.text(max_size=10),
)
def test_any_profile_table_is_a_profile_or_an_invalid_profile(
    table: dict[str, object], name: str
) -> None:
    try:
        profile = profile_from_table(name, table)
    except InvalidProfile as exc:
        refusal = str(exc)
    else:
        assert profile_from_table(profile.name, profile.fields()) == profile
        return
    assert refusal.startswith(f"Profile {name!r}: ")


@given(data=st.binary(max_size=200))
def test_any_bytes_parse_or_are_reported_with_a_position_inside_the_file(data: bytes) -> None:
    path = Path("profiles.toml")
    try:
        parsed = parse_toml(path, data)
    except CorruptConfigFile as exc:
        corrupt = exc
    else:
        assert isinstance(parsed, dict)
        return
    assert str(corrupt).startswith(str(path))
    if corrupt.line is not None and corrupt.column is not None:
        assert 1 <= corrupt.line <= data.count(b"\n") + 1
        assert corrupt.column >= 1


profiles = st.builds(
    Profile,
    name=names,
    base_url=st.sampled_from(
        ["https://plants.example.com", "http://127.0.0.1:8000", "https://x.example/store"]
    ),
    token_env=st.none() | env_names,
    token_command=st.none() | printable.filter(lambda text: text.strip() != "").map(shlex.quote),
    protected=st.booleans(),
    timeout=st.none() | st.floats(min_value=0.001, max_value=3600),
)


@settings(max_examples=40, deadline=None)
@given(saved=st.lists(profiles, max_size=4, unique_by=lambda profile: profile.name))
def test_profiles_round_trip_through_the_file(saved: list[Profile]) -> None:
    # Hypothesis runs examples without function fixtures: the test keyring is set here.
    no_keyring = mock.patch.object(keyring.core, "_keyring_backend", fail.Keyring())
    with tempfile.TemporaryDirectory() as directory, no_keyring:
        store = ProfileStore(Path(directory))
        for profile in saved:
            store.add(profile)
        loaded = store.load()
        assert loaded.profiles == tuple(saved)
        assert loaded.problems == ()
        assert loaded.default == (saved[0].name if saved else None)
