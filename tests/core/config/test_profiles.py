"""The profile store: round trips, layout kept, validation, corrupt files, atomic locked writes."""

from __future__ import annotations

import errno
import os
import stat
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest
from profiles_support import (
    CANARY,
    MemoryKeyring,
    all_text,
    isolate,
    use_keyring,
    write_profiles,
)
from pydantic import SecretStr

from plantstore_tui.core.config import files as config_files
from plantstore_tui.core.config.files import ConfigFileError, CorruptConfigFile, locked_update
from plantstore_tui.core.config.profiles import (
    InvalidProfile,
    Profile,
    ProfileExists,
    UnknownProfile,
    profile_from_table,
)
from plantstore_tui.core.config.store import ProfileStore
from plantstore_tui.core.config.tokens import InvalidToken, SourceKind
from plantstore_tui.core.http.target import Limits

LOCAL = Profile(name="local", base_url="http://127.0.0.1:8000", token_env="LOCAL_TOKEN")
PROD = Profile(
    name="prod",
    base_url="https://plants.example.com",
    token_command="pass show plants/prod",
    protected=True,
    timeout=20,
)

COMMENTED = """\
# My Plant Store profiles
default = "local"  # the usual one

[profiles.local]  # my machine
base_url = "http://127.0.0.1:8000"  # dev box
token_env = "LOCAL_TOKEN"

# production: careful!
[profiles.prod]
base_url = "https://plants.example.com"
token_command = "pass show plants/prod"
protected = true

# staging, shared with QA
[profiles.staging]
base_url = "https://staging.example.com"
token_env = "STAGING_TOKEN"
"""


@pytest.fixture(autouse=True)
def config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    return isolate(monkeypatch, tmp_path)


@pytest.fixture
def store(config: Path) -> ProfileStore:
    return ProfileStore()


# --- round trips -------------------------------------------------------------------------------


def test_the_store_lives_in_the_config_dir_override(store: ProfileStore, config: Path) -> None:
    assert store.path == config / "profiles.toml"
    assert store.tokens.credentials_path == config / "credentials.toml"


def test_without_the_override_the_store_uses_the_platform_config_dir(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("PLANTSTORE_CONFIG_DIR")
    assert config_files.config_dir() == config_files.default_config_dir()
    assert config_files.config_dir().name == "plantstore-tui"


def test_an_empty_store_has_no_profiles_and_no_problems(store: ProfileStore) -> None:
    saved = store.load()
    assert saved.profiles == ()
    assert saved.default is None
    assert saved.problems == ()
    assert not store.path.exists()


def test_profiles_round_trip_with_every_setting(store: ProfileStore) -> None:
    store.add(LOCAL)
    store.add(PROD)
    remote_http = Profile(
        name="lab.box_2",
        base_url="http://lab.example.com:8080/store/",
        token_env="LAB",
        allow_insecure_http=True,
        timeout=2.5,
    )
    store.add(remote_http)
    saved = store.load()
    assert saved.names == ("local", "prod", "lab.box_2")
    assert saved.get("local") == LOCAL
    assert saved.get("prod") == PROD
    assert saved.get("lab.box_2") == Profile(
        name="lab.box_2",
        base_url="http://lab.example.com:8080/store",
        token_env="LAB",
        allow_insecure_http=True,
        timeout=2.5,
    )
    assert saved.problems == ()
    assert ProfileStore().get("prod").protected


def test_the_first_profile_becomes_the_default_and_later_ones_do_not(store: ProfileStore) -> None:
    assert store.add(LOCAL).made_default
    assert not store.add(PROD).made_default
    assert store.load().default == "local"


def test_the_file_is_plain_toml_without_defaults_spelled_out(store: ProfileStore) -> None:
    store.add(LOCAL)
    store.add(PROD)
    assert store.path.read_text() == textwrap.dedent(
        """\
        default = "local"

        [profiles.local]
        base_url = "http://127.0.0.1:8000"
        token_env = "LOCAL_TOKEN"

        [profiles.prod]
        base_url = "https://plants.example.com"
        token_command = "pass show plants/prod"
        protected = true
        timeout = 20
        """
    )


def test_adding_a_name_that_exists_is_refused(store: ProfileStore) -> None:
    store.add(LOCAL)
    with pytest.raises(ProfileExists, match="'local' already exists"):
        store.add(LOCAL)


def test_edit_changes_only_what_it_is_given(store: ProfileStore) -> None:
    store.add(PROD)
    report = store.edit("prod", {"timeout": 5, "protected": False})
    assert report.profile == Profile(
        name="prod", base_url=PROD.base_url, token_command=PROD.token_command, timeout=5.0
    )
    assert store.get("prod") == report.profile


def test_edit_with_none_removes_a_setting(store: ProfileStore) -> None:
    store.add(PROD)
    store.edit("prod", {"timeout": None, "token_command": None, "token_env": "PROD_TOKEN"})
    assert store.get("prod").timeout is None
    assert store.get("prod").token_command is None
    assert "timeout" not in store.path.read_text()


def test_edit_of_an_unknown_profile_or_setting_is_refused(store: ProfileStore) -> None:
    store.add(LOCAL)
    with pytest.raises(UnknownProfile, match="'nope'; saved profiles: local"):
        store.edit("nope", {"timeout": 3})
    with pytest.raises(InvalidProfile, match=r"^Profile 'local': 1 unknown setting: password$"):
        store.edit("local", {"password": "x"})
    with pytest.raises(InvalidProfile, match=r"2 unknown settings: colour, password$"):
        store.edit("local", {"password": "x", "colour": "red"})


def test_an_invalid_edit_leaves_the_file_as_it_was(store: ProfileStore) -> None:
    store.add(LOCAL)
    before = store.path.read_bytes()
    with pytest.raises(InvalidProfile, match="http:// or https://"):
        store.edit("local", {"base_url": "ftp://plants.example.com"})
    assert store.path.read_bytes() == before


def test_remove_deletes_the_profile_and_the_default_pointing_at_it(store: ProfileStore) -> None:
    store.add(LOCAL)
    store.add(PROD)
    assert store.remove("local") is None
    saved = store.load()
    assert saved.names == ("prod",)
    assert saved.default is None
    with pytest.raises(UnknownProfile, match="saved profiles: prod"):
        store.remove("local")


def test_set_default_names_an_existing_profile_only(store: ProfileStore) -> None:
    store.add(LOCAL)
    store.add(PROD)
    assert store.set_default("prod") == store.get("prod")
    assert store.load().default == "prod"
    with pytest.raises(UnknownProfile, match="saved profiles: local, prod"):
        store.set_default("staging")


def test_unknown_profile_says_there_are_none_yet(store: ProfileStore) -> None:
    with pytest.raises(UnknownProfile, match="saved profiles: none yet"):
        store.get("local")


# --- the operator's layout survives --------------------------------------------------------------


def test_adding_appends_and_leaves_every_byte_above_untouched(store: ProfileStore) -> None:
    write_profiles(store, COMMENTED)
    store.add(Profile(name="new", base_url="https://new.example.com", token_env="NEW"))
    text = store.path.read_text()
    assert text.startswith(COMMENTED)
    assert text[len(COMMENTED) :] == (
        '\n[profiles.new]\nbase_url = "https://new.example.com"\ntoken_env = "NEW"\n'
    )


def test_editing_keeps_comments_and_puts_a_new_key_above_the_next_tables_comment(
    store: ProfileStore,
) -> None:
    write_profiles(store, COMMENTED)
    store.edit("local", {"timeout": 3})
    store.edit("prod", {"token_command": "op read op://plants/prod"})
    assert store.path.read_text() == COMMENTED.replace(
        'token_env = "LOCAL_TOKEN"\n', 'token_env = "LOCAL_TOKEN"\ntimeout = 3\n'
    ).replace("pass show plants/prod", "op read op://plants/prod")


def test_removing_a_profile_keeps_the_comment_above_the_next_one(store: ProfileStore) -> None:
    write_profiles(store, COMMENTED)
    store.remove("local")
    text = store.path.read_text()
    assert text == textwrap.dedent(
        """\
        # My Plant Store profiles

        # production: careful!
        [profiles.prod]
        base_url = "https://plants.example.com"
        token_command = "pass show plants/prod"
        protected = true

        # staging, shared with QA
        [profiles.staging]
        base_url = "https://staging.example.com"
        token_env = "STAGING_TOKEN"
        """
    )


def test_removing_the_last_profile_keeps_comments_below_it(store: ProfileStore) -> None:
    write_profiles(store, COMMENTED + "\n# [profiles.old]\n# base_url = 'https://old'\n")
    store.remove("staging")
    assert store.path.read_text().endswith("# [profiles.old]\n# base_url = 'https://old'\n")
    assert store.load().names == ("local", "prod")


def test_setting_the_default_keeps_its_comment(store: ProfileStore) -> None:
    write_profiles(store, COMMENTED)
    store.set_default("prod")
    assert 'default = "prod"  # the usual one\n' in store.path.read_text()


def test_a_symlinked_profiles_file_stays_a_symlink(store: ProfileStore, tmp_path: Path) -> None:
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    real = dotfiles / "profiles.toml"
    real.write_text(COMMENTED)
    store.path.parent.mkdir(parents=True)
    store.path.symlink_to(real)
    store.add(Profile(name="new", base_url="https://new.example.com", token_env="NEW"))
    assert store.path.is_symlink()
    assert "[profiles.new]" in real.read_text()


# --- validation ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("base_url", "words"),
    [
        ("", "required|empty"),
        ("plants.example.com", "http:// or https://"),
        ("ftp://plants.example.com", "http:// or https://"),
        ("https://", "no host|not a valid URL"),
        ("https://me:secret@plants.example.com", "user name or password"),
        ("https://plants.example.com/#top", "fragment"),
        ("http://plants.example.com", "plain http:// to plants.example.com"),
        ("http://10.1.2.3:8000", "plain http:// to 10.1.2.3"),
    ],
)
def test_a_base_url_that_cannot_carry_a_token_is_refused(base_url: str, words: str) -> None:
    with pytest.raises(InvalidProfile, match=words):
        profile_from_table("p", {"base_url": base_url})


@pytest.mark.parametrize(
    "base_url",
    [
        "http://127.0.0.1:8000",
        "http://127.8.9.10",
        "http://localhost:8000",
        "http://LOCALHOST",
        "http://[::1]:8000",
        "http://[::ffff:127.0.0.1]:8000",
        "https://plants.example.com",
    ],
)
def test_loopback_http_and_any_https_need_no_opt_in(base_url: str) -> None:
    profile = profile_from_table("p", {"base_url": base_url})
    assert profile.base_url == base_url.lower()


def test_plain_http_beyond_loopback_is_allowed_with_the_opt_in() -> None:
    profile = profile_from_table(
        "p", {"base_url": "http://lab.example.com", "allow_insecure_http": True}
    )
    assert profile.allow_insecure_http


@pytest.mark.parametrize(
    "name", ["", "-x", ".x", "a b", "a/b", "x" * 65, "é", "a\x1b[31m", "prod\n"]
)
def test_bad_profile_names_are_refused(name: str) -> None:
    with pytest.raises(InvalidProfile, match="must be 1 to 64 letters"):
        profile_from_table(name, {"base_url": "https://plants.example.com"})


@pytest.mark.parametrize(
    ("settings", "words"),
    [
        ({"token_env": "1BAD"}, "token_env must be the name"),
        ({"token_env": "A B"}, "token_env must be the name"),
        ({"token_env": 3}, "token_env must be the name"),
        ({"token_command": ""}, "token_command is empty"),
        ({"token_command": "pass 'unclosed"}, "token_command cannot be parsed"),
        ({"token_command": ["pass", "x"]}, "token_command must be a string"),
        ({"protected": "yes"}, "protected must be true or false"),
        ({"allow_insecure_http": 1}, "allow_insecure_http must be true or false"),
        ({"timeout": 0}, "timeout must be a number"),
        ({"timeout": -1}, "timeout must be a number"),
        ({"timeout": 3601}, "timeout must be a number"),
        ({"timeout": True}, "timeout must be a number"),
        ({"timeout": "20"}, "timeout must be a number"),
    ],
)
def test_bad_settings_are_named(settings: dict[str, object], words: str) -> None:
    with pytest.raises(InvalidProfile, match=words):
        profile_from_table("p", {"base_url": "https://plants.example.com", **settings})


def test_every_problem_of_a_profile_is_listed_at_once() -> None:
    with pytest.raises(InvalidProfile) as caught:
        profile_from_table("p", {"base_url": "ftp://x", "protected": "yes", "timeout": 0})
    message = str(caught.value)
    assert "http:// or https://" in message
    assert "protected" in message
    assert "timeout" in message


def test_a_timeout_caps_the_whole_send() -> None:
    assert Profile(name="p", base_url="https://x.example").limits == Limits()
    limits = Profile(name="p", base_url="https://x.example", timeout=2).limits
    assert (limits.connect, limits.read, limits.deadline) == (2, 2, 2)
    limits = Profile(name="p", base_url="https://x.example", timeout=60).limits
    assert (limits.connect, limits.read, limits.deadline) == (Limits().connect, 60, 60)


def test_a_hand_written_file_with_bad_profiles_still_loads_the_good_ones(
    store: ProfileStore,
) -> None:
    write_profiles(
        store,
        textwrap.dedent(
            """\
            default = "broken"
            colour = "green"

            [profiles.good]
            base_url = "https://plants.example.com"
            token_evn = "TYPO"

            [profiles.broken]
            base_url = "gopher://plants.example.com"

            [profiles]
            flat = "not a table"
            """
        ),
    )
    saved = store.load()
    assert saved.error is None
    assert saved.names == ("good",)
    assert set(saved.broken) == {"broken", "flat"}
    assert saved.default is None
    assert [
        (finding.line, finding.profile, finding.key, finding.suggestion)
        for finding in saved.findings
    ] == [
        (2, None, "colour", None),
        (6, "good", "token_evn", "token_env"),
        (9, "broken", "base_url", None),
        (12, "flat", "flat", None),
    ]
    text = "\n".join(saved.problems)
    assert f"{store.path}, line 2: there is no setting `colour`, so it is ignored." in text
    assert "line 6: profile 'good' has no setting `token_evn`, so it is ignored." in text
    assert "Did you mean `token_env`?" in text
    assert "line 9: profile 'broken' cannot be used: " in text
    assert "http:// or https://" in text
    assert "line 12: profile 'flat' cannot be used: it must be a table" in text
    with pytest.raises(InvalidProfile, match="'broken'"):
        store.get("broken")
    # A broken profile can still be removed, and a good one changed.
    store.remove("broken")
    store.edit("good", {"protected": True})
    assert "token_evn" in store.path.read_text()


def test_a_default_naming_a_broken_profile_is_kept_as_the_broken_default(
    store: ProfileStore,
) -> None:
    write_profiles(
        store,
        'default = "a"\n[profiles.a]\nbase_url = "https://a.example"\nx = 1\n'
        '[profiles."a b"]\nbase_url = "https://ab.example"\n',
    )
    assert store.load().broken_default is None  # an unknown setting is a warning only
    write_profiles(store, 'default = "a b"\n[profiles."a b"]\nbase_url = "https://ab.example"\n')
    saved = store.load()
    assert (saved.default, saved.broken_default) == (None, "a b")
    assert "the name 'a b' must be" in saved.broken["a b"]


def test_a_default_naming_no_profile_is_reported_and_ignored(store: ProfileStore) -> None:
    write_profiles(store, 'default = "gone"\n[profiles.a]\nbase_url = "https://a.example"\n')
    saved = store.load()
    assert saved.default is None
    assert saved.problems == (f'{store.path}, line 1: the default profile "gone" does not exist.',)
    write_profiles(store, 'default = "loacl"\n[profiles.local]\nbase_url = "https://a.example"\n')
    assert store.load().problems == (
        f'{store.path}, line 1: the default profile "loacl" does not exist. Did you mean `local`?',
    )


# --- corrupt and unreadable files ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [
        ('[profiles.a]\nbase_url = "https://a.example"\nprotected = yes\n', 3, 13),
        ('[profiles.a]\nbase_url = "unterminated\n', 2, 25),
        ("[profiles.a]\n[profiles.a]\n", 2, 12),
    ],
)
def test_a_file_that_does_not_parse_is_reported_with_line_and_column_and_never_overwritten(
    store: ProfileStore, text: str, line: int, column: int
) -> None:
    write_profiles(store, text)
    saved = store.load()
    assert isinstance(saved.error, CorruptConfigFile)
    assert (saved.error.line, saved.error.column) == (line, column)
    assert str(saved.error).startswith(f"{store.path}:{line}:{column}: ")
    assert saved.problems[0] == str(saved.error)
    attempts = [
        lambda: store.add(LOCAL),
        lambda: store.edit("a", {"timeout": 3}),
        lambda: store.remove("a"),
        lambda: store.set_default("a"),
        lambda: store.get("a"),
    ]
    for attempt in attempts:
        with pytest.raises(CorruptConfigFile):
            attempt()
    assert store.path.read_text() == text


def test_a_file_that_is_not_utf8_is_reported_with_its_position(store: ProfileStore) -> None:
    store.path.parent.mkdir(parents=True)
    store.path.write_bytes(b'[profiles.a]\nbase_url = "https://\xff.example"\n')
    saved = store.load()
    assert isinstance(saved.error, CorruptConfigFile)
    assert (saved.error.line, saved.error.column) == (2, 21)
    assert "not UTF-8" in str(saved.error)


def test_profiles_that_is_not_a_table_is_reported(store: ProfileStore) -> None:
    write_profiles(store, 'profiles = "none"\n')
    saved = store.load()
    assert isinstance(saved.error, ConfigFileError)
    assert "`profiles` must be a table" in str(saved.error)


def test_an_unreadable_file_is_reported_and_not_overwritten(
    store: ProfileStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    store.add(LOCAL)
    before = store.path.read_bytes()
    real_open = os.open

    def refusing_open(path: object, flags: int, *args: int) -> int:
        if str(path) == str(store.path):
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_open(path, flags, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", refusing_open)
    saved = store.load()
    assert saved.error is not None
    assert "cannot be read (Permission denied)" in str(saved.error)
    with pytest.raises(ConfigFileError, match="cannot be read"):
        store.add(PROD)
    monkeypatch.undo()
    assert store.path.read_bytes() == before


# --- atomic, locked writes ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("function", "error"),
    [
        ("write", OSError(errno.ENOSPC, "No space left on device")),
        ("fsync", OSError(errno.EIO, "Input/output error")),
        ("replace", PermissionError(errno.EACCES, "Permission denied")),
    ],
)
def test_a_failed_write_reports_why_and_leaves_the_old_file_whole(
    store: ProfileStore, monkeypatch: pytest.MonkeyPatch, function: str, error: OSError
) -> None:
    store.add(LOCAL)
    before = store.path.read_bytes()

    def failing(*args: object) -> None:
        raise error

    monkeypatch.setattr(os, function, failing)
    with pytest.raises(ConfigFileError) as caught:
        store.add(PROD)
    monkeypatch.undo()
    assert error.strerror is not None
    assert error.strerror in str(caught.value)
    assert "the file on disk is unchanged" in str(caught.value)
    assert store.path.read_bytes() == before
    assert sorted(path.name for path in store.path.parent.iterdir()) == [
        "profiles.toml",
        "profiles.toml.lock",
    ]


def test_a_failed_profile_write_takes_back_the_token_it_saved(
    store: ProfileStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    keyring = MemoryKeyring()
    use_keyring(monkeypatch, keyring)
    store.add(LOCAL)
    real_replace = os.replace

    def failing_replace(source: str, target: object) -> None:
        if str(target) == str(store.path):
            raise OSError(errno.ENOSPC, "No space left on device")
        real_replace(source, target)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(ConfigFileError, match="No space left"):
        store.add(Profile(name="kept", base_url="https://x.example"), token=SecretStr(CANARY))
    assert keyring.passwords == {}


def test_files_are_created_with_private_directory_and_public_profiles(
    store: ProfileStore, config: Path
) -> None:
    store.add(LOCAL)
    assert stat.S_IMODE(config.stat().st_mode) == 0o700
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o644


@pytest.mark.parametrize("mode", [0o600, 0o664])
def test_an_edit_keeps_the_mode_the_operator_gave_the_file_whatever_the_umask(
    store: ProfileStore, mode: int
) -> None:
    store.add(LOCAL)
    store.path.chmod(mode)
    old_umask = os.umask(0o077)
    try:
        store.edit("local", {"timeout": 4})
    finally:
        os.umask(old_umask)
    assert stat.S_IMODE(store.path.stat().st_mode) == mode


def test_an_exception_inside_an_update_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "file.toml"
    path.write_text("a = 1\n")

    def change_then_fail() -> None:
        with locked_update(path) as draft:
            draft.text = "a = 2\n"
            raise RuntimeError

    with pytest.raises(RuntimeError):
        change_then_fail()
    assert path.read_text() == "a = 1\n"


def test_an_update_that_would_not_parse_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "file.toml"
    path.write_text("a = 1\n")
    with pytest.raises(CorruptConfigFile), locked_update(path) as draft:
        draft.text = "a = \n"
    assert path.read_text() == "a = 1\n"


_SAVER = """
import sys
from plantstore_tui.core.config.profiles import Profile
from plantstore_tui.core.config.store import ProfileStore

prefix, count = sys.argv[1], int(sys.argv[2])
store = ProfileStore()
print("ready", flush=True)
sys.stdin.readline()
for index in range(count):
    store.add(Profile(name=f"{prefix}-{index}", base_url="https://x.example"))
"""


def test_two_processes_saving_200_profiles_each_lose_none(config: Path) -> None:
    env = {
        **os.environ,
        "PLANTSTORE_CONFIG_DIR": str(config),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
    }
    savers = [
        subprocess.Popen(
            [sys.executable, "-c", _SAVER, prefix, "200"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        for prefix in ("left", "right")
    ]
    for saver in savers:
        assert saver.stdout is not None
        assert saver.stdout.readline() == "ready\n"
    # Both are started and waiting: release them together so their saves interleave.
    for saver in savers:
        assert saver.stdin is not None
        saver.stdin.write("go\n")
        saver.stdin.close()
    for saver in savers:
        assert saver.wait(timeout=60) == 0
        assert saver.stdout is not None
        saver.stdout.close()
    names = set(tomllib.loads((config / "profiles.toml").read_text())["profiles"])
    expected = {f"{prefix}-{index}" for prefix in ("left", "right") for index in range(200)}
    assert names == expected
    assert ProfileStore().load().problems == ()


# --- tokens stay out of profiles.toml ------------------------------------------------------------


def test_a_kept_token_is_never_in_profiles_toml(
    store: ProfileStore, monkeypatch: pytest.MonkeyPatch, config: Path
) -> None:
    report = store.add(Profile(name="filed", base_url="https://x.example"), token=SecretStr(CANARY))
    assert report.token_source is not None
    assert report.token_source.kind is SourceKind.CREDENTIALS_FILE
    assert CANARY not in store.path.read_text()
    keyring = MemoryKeyring()
    use_keyring(monkeypatch, keyring)
    store.add(Profile(name="kept", base_url="https://x.example"), token=SecretStr(CANARY))
    assert CANARY not in store.path.read_text()
    files_with_canary = [text for text in all_text(config) if CANARY in text]
    assert len(files_with_canary) == 1  # credentials.toml, for the profile saved without keyring


def test_a_token_that_cannot_be_sent_is_refused_before_anything_is_saved(
    store: ProfileStore,
) -> None:
    for bad in ("two words", "tab\there", "new\nline", "caf\u00e9", "esc\x1b", ""):
        with pytest.raises(InvalidToken) as caught:
            store.add(Profile(name="p", base_url="https://x.example"), token=SecretStr(bad))
        assert bad not in str(caught.value) or not bad
    assert not store.path.exists()


def test_a_typed_token_is_refused_for_a_profile_that_reads_its_token_elsewhere(
    store: ProfileStore,
) -> None:
    with pytest.raises(InvalidProfile, match="a typed token is not saved"):
        store.add(LOCAL, token=SecretStr(CANARY))
