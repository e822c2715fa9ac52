"""`[keymap]` in profiles.toml checked headless: what can be applied is, each entry that cannot is
a finding with its line (an unknown id with the nearest one, a value that is not a key, a clash
on one screen), and nothing the file holds makes the check raise."""

from __future__ import annotations

from pathlib import Path

from hypothesis import example, given
from hypothesis import strategies as st

from plantstore_tui.core.config.keymap import (
    BINDINGS,
    BY_ID,
    MODAL_SCREENS,
    ChosenKeymap,
    canonical,
    check_keymap,
    key_words,
    saved_keymap,
)
from plantstore_tui.core.config.store import ProfileStore


def _keymap(tmp_path: Path, text: str) -> ChosenKeymap:
    (tmp_path / "profiles.toml").write_text(text)
    return saved_keymap(tmp_path)


def test_the_defaults_of_one_screen_share_no_key_but_resume_and_try_now() -> None:
    for in_browser in (False, True):
        taken: dict[tuple[str, str], str] = {}
        for binding in BINDINGS:
            for key in binding.default(in_browser=in_browser).split(","):
                other = taken.setdefault((binding.screen, key), binding.id)
                if other != binding.id:
                    assert {other, binding.id} == {"send.resume", "send.try_now"}, (other, key)


def test_a_keymap_moves_bindings_in_both_spellings_of_an_id(tmp_path: Path) -> None:
    chosen = _keymap(
        tmp_path,
        '[keymap]\nsend.send = "Ctrl+G"\n"send.history" = "F9"\n"send.attention" = "f8"\n',
    )
    assert chosen.findings == ()
    in_force = chosen.in_force(in_browser=False)
    assert (in_force["send.send"], in_force["send.history"], in_force["send.attention"]) == (
        "ctrl+g",
        "f9",
        "f8",
    )
    assert in_force["send.cancel"] == "escape"
    as_table = _keymap(tmp_path, '[keymap.send]\nattention = "f8"\n')
    assert (as_table.findings, as_table.terminal) == ((), {"send.attention": "f8"})
    # In a browser the operator's keys go over the browser's defaults.
    in_browser = chosen.in_force(in_browser=True)
    assert in_browser["send.history"] == "f9"
    assert in_browser["send.probe"] == "alt+p,f6"


def test_an_unknown_id_is_named_with_the_nearest_one_and_its_line(tmp_path: Path) -> None:
    chosen = _keymap(tmp_path, '[keymap]\nsendd = "ctrl+g"\n')
    [finding] = chosen.findings
    assert (finding.line, finding.key, finding.suggestion) == (2, "sendd", "send.send")
    assert "no binding `sendd`" in str(finding)
    assert chosen.in_force(in_browser=False)["send.send"] == "ctrl+s"


def test_a_clash_is_named_and_not_applied_and_a_swap_is_no_clash(tmp_path: Path) -> None:
    chosen = _keymap(tmp_path, '[keymap]\nsend.history = "ctrl+s"\n')
    [finding] = chosen.findings
    assert finding.line == 2
    assert "already the key of Send (`send.send`)" in finding.problem
    assert chosen.in_force(in_browser=False)["send.history"] == "f3"
    swapped = _keymap(tmp_path, '[keymap]\nsend.history = "f4"\nsend.attention = "f3"\n')
    assert swapped.findings == ()
    assert swapped.terminal == {"send.history": "f4", "send.attention": "f3"}


def test_a_key_of_textual_and_a_key_of_another_screen(tmp_path: Path) -> None:
    chosen = _keymap(tmp_path, '[keymap]\nsend.clear_log = "ctrl+q"\nhistory.search = "ctrl+s"\n')
    [finding] = chosen.findings
    assert "Ctrl+Q for `send.clear_log` is Textual's key that quits" in finding.problem
    # The history screen has no Ctrl+S of its own: nothing clashes there.
    assert chosen.terminal == {"history.search": "ctrl+s"}


def test_values_that_are_no_keys_are_said_and_the_default_holds(tmp_path: Path) -> None:
    chosen = _keymap(
        tmp_path,
        '[keymap]\nsend.send = 3\nsend.history = ""\nsend.probe = "ctrl+nope"\n'
        'send.next_id = "n"\n',
    )
    assert [finding.line for finding in chosen.findings] == [2, 3, 4, 5]
    assert "takes its keys in quotes" in chosen.findings[0].problem
    assert '"ctrl+nope" (for `send.probe`) is not a key' in chosen.findings[2].problem
    assert "types a character" in chosen.findings[3].problem
    assert chosen.terminal == {}
    assert chosen.browser == {}


def test_a_key_that_never_reaches_the_tui_there_is_said(tmp_path: Path) -> None:
    chosen = _keymap(tmp_path, '[keymap]\nsend.history = "alt+h"\nsend.clear_log = "ctrl+w"\n')
    assert len(chosen.findings) == 2
    assert chosen.terminal == {"send.clear_log": "ctrl+w"}
    assert chosen.browser == {"send.history": "alt+h"}


def test_the_store_says_the_keymaps_findings_with_the_files_others(tmp_path: Path) -> None:
    (tmp_path / "profiles.toml").write_text('surprise = 1\n[keymap]\nsendd = "f9"\n')
    problems = ProfileStore(tmp_path).load().problems
    assert len(problems) == 2
    assert "line 3" in problems[1]
    assert "Did you mean `send.send`?" in problems[1]


def test_a_keymap_that_is_no_table_is_said(tmp_path: Path) -> None:
    chosen = _keymap(tmp_path, 'keymap = "vim"\n')
    [finding] = chosen.findings
    assert "must be a table" in finding.problem
    assert chosen.in_force(in_browser=False) == ChosenKeymap().in_force(in_browser=False)


def test_keys_are_said_as_the_help_writes_them() -> None:
    assert key_words("ctrl+s") == "Ctrl+S"
    assert key_words("escape,f3") == "Esc / F3"
    assert key_words("alt+h,f3", short=True) == "Alt+H"
    assert key_words("ctrl+n", short=True) == "^N"
    assert canonical("Shift+Alt+X") == "alt+shift+x"
    assert canonical("?") == "question_mark"
    assert canonical("ctrl+") is None


_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=12), inner, max_size=3)
    ),
    max_leaves=8,
)


@given(
    st.dictionaries(
        st.sampled_from([*BY_ID, "sendd", "send", "history"]) | st.text(max_size=12),
        _VALUES | st.sampled_from(["ctrl+s", "f3", "alt+h", "escape,f4", "q", "ctrl+r"]),
        max_size=6,
    )
)
def test_any_table_gives_a_keymap_of_known_ids_and_keys_without_clashes(
    table: dict[str, object],
) -> None:
    chosen = check_keymap(table)
    for in_browser in (False, True):
        in_force = chosen.in_force(in_browser=in_browser)
        assert set(in_force) == set(BY_ID)
        for keys in in_force.values():
            assert all(canonical(key) == key for key in keys.split(","))
        # No two bindings that meet share a key, but those made to share one.
        for binding_id in chosen.browser if in_browser else chosen.terminal:
            binding = BY_ID[binding_id]
            for other in BINDINGS:
                meet = other.screen == binding.screen or (
                    other.screen == "app" and binding.screen not in MODAL_SCREENS
                )
                if other is binding or not meet:
                    continue
                shared = set(in_force[binding_id].split(",")) & set(in_force[other.id].split(","))
                made_to = set(binding.default(in_browser=in_browser).split(",")) & set(
                    other.default(in_browser=in_browser).split(",")
                )
                assert not shared or made_to, (binding_id, other.id, shared)


@given(st.sampled_from(["", "ctrl+", "alt+", "shift+"]), st.characters(exclude_categories=["Cs"]))
@example("", "<")  # less_than_sign: its Unicode name has a hyphen, LESS-THAN SIGN
@example("ctrl+", "\u0130")  # İ, whose lower case is two characters
@example("", "\U0001fba8")  # a name too long to read back every way
def test_a_key_named_as_textual_names_it_is_named_so_again(modifier: str, character: str) -> None:
    # What the keymap keeps is a name `canonical` gives back unchanged (a full run of the
    # property over any table found '<' read back as no key).
    named = canonical(modifier + character)
    assert named is None or canonical(named) == named
