"""The TUI's keys by binding id, and `[keymap]` in profiles.toml checked into the keymap to apply.

Every key binding of the TUI is here as data (`BINDINGS`: its id, its screen, its keys in a
terminal and in a browser tab), so that the command line, the docs and the TUI read one list and
the core needs no Textual; tests/ui/test_keymap_ids.py fails when the UI's bindings and this list
differ. `check_keymap` turns the operator's table into the entries that can be applied, one
`Finding` for each that cannot (an unknown id with the nearest one, a value that is not a key, a
clash with another binding of the same screen): a broken keymap leaves the defaults in force,
never stops the TUI.
"""

from __future__ import annotations

import contextlib
import itertools
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from plantstore_tui.core.config.errors import ConfigError
from plantstore_tui.core.config.files import PROFILES_FILE, config_dir, parse_toml, read_bytes
from plantstore_tui.core.config.findings import Finding, FindingsOf, nearest, shown_value

KEYMAP_KEY = "keymap"
# The App's bindings, in the chain of every screen that is not modal (a modal screen stops it).
APP = "app"


@dataclass(frozen=True, slots=True)
class KeyBinding:
    """One binding the operator can rebind: where it acts, its keys, what it does."""

    id: str
    # The screen whose keys it is among (APP: every screen but a modal one).
    screen: str
    # Its keys in a terminal, as Textual names them, comma-separated.
    keys: str
    # The words beside it in the footer and the palette.
    description: str
    # Its keys in a browser tab, where a desktop browser keeps some for itself; None: `keys`.
    browser: str | None = None
    # Runs even while a field has the focus: a key that types a character would be lost to it.
    priority: bool = False

    def default(self, *, in_browser: bool) -> str:
        """Its keys when the keymap does not name it."""
        return self.browser if in_browser and self.browser is not None else self.keys


# Screens that are modal: the App's bindings do not reach them.
MODAL_SCREENS = frozenset(
    (
        "attention",
        "command",
        "differences",
        "editor",
        "help",
        "kept_probes",
        "save_case",
        "summary",
    )
)

BINDINGS: tuple[KeyBinding, ...] = (
    KeyBinding("app.help", APP, "f1", "Help", browser="alt+k,f1"),
    KeyBinding("app.profiles", APP, "f2", "Profiles"),
    KeyBinding("app.import", APP, "f5", "Import", browser="alt+i,f5"),
    KeyBinding("send.send", "send", "ctrl+s", "Send"),
    KeyBinding("send.cancel", "send", "escape", "Cancel send"),
    KeyBinding("send.resume", "send", "ctrl+r", "Resume"),
    KeyBinding("send.try_now", "send", "ctrl+r", "Try now"),
    KeyBinding("send.history", "send", "f3", "History", browser="alt+h,f3"),
    KeyBinding("send.attention", "send", "f4", "Needs attention"),
    KeyBinding("send.probe", "send", "f6", "Probe", browser="alt+p,f6"),
    KeyBinding("send.summary", "send", "f7", "Shift summary", browser="alt+s,f7"),
    # Ctrl+N and Ctrl+T never reach a page: the browser opens a window or a tab.
    KeyBinding("send.next_id", "send", "ctrl+n", "Next id", browser="alt+n", priority=True),
    KeyBinding("send.keep_tag", "send", "ctrl+t", "Keep tag", browser="alt+t", priority=True),
    KeyBinding("send.same_as_last", "send", "ctrl+d", "Same as last", priority=True),
    KeyBinding("send.clear_log", "send", "ctrl+l", "Clear log"),
    KeyBinding("send.save_log", "send", "ctrl+o", "Save log"),
    KeyBinding("form.enter", "send", "enter,ctrl+j", "Next field / send"),
    KeyBinding("history.load", "history", "l", "Load"),
    KeyBinding("history.resend", "history", "r", "Resend"),
    KeyBinding("history.copy_curl", "history", "c", "Copy curl"),
    KeyBinding("history.next_page", "history", "n", "Next page"),
    KeyBinding("history.prev_page", "history", "p", "Prev page"),
    KeyBinding("history.close", "history", "escape,f3", "Close", browser="escape,alt+h,f3"),
    KeyBinding("history.search", "history", "ctrl+f", "Search"),
    KeyBinding("command.close", "command", "escape", "Back"),
    KeyBinding("attention.load", "attention", "enter", "Load into the form"),
    KeyBinding("attention.send_held", "attention", "ctrl+s", "Send the held plants"),
    KeyBinding("attention.dismiss", "attention", "delete", "Dismiss"),
    KeyBinding("attention.close", "attention", "escape,f4", "Close"),
    KeyBinding("probe.close", "probe", "escape", "Back to the form"),
    KeyBinding("probe.send", "probe", "ctrl+s", "Send"),
    KeyBinding("probe.save_case", "probe", "ctrl+o", "Save as case"),
    KeyBinding("probe.wire", "probe", "f8", "Wire"),
    KeyBinding("probe.kept", "probe", "f3", "Kept probes", browser="alt+h,f3"),
    KeyBinding("kept_probes.open", "kept_probes", "enter", "Open", priority=True),
    KeyBinding("kept_probes.close", "kept_probes", "escape,f3", "Close", browser="escape,alt+h,f3"),
    KeyBinding("save_case.cancel", "save_case", "escape", "Cancel"),
    KeyBinding("summary.close", "summary", "escape,f7", "Close", browser="escape,alt+s,f7"),
    KeyBinding("help.close", "help", "escape,f1,q", "Close help", browser="escape,alt+k,f1,q"),
    KeyBinding("import.stop_or_close", "import", "escape", "Stop / close"),
    KeyBinding("import.send", "import", "ctrl+s", "Send"),
    KeyBinding("profiles.use", "profiles", "u", "Use"),
    KeyBinding("profiles.add", "profiles", "a", "Add"),
    KeyBinding("profiles.edit", "profiles", "e", "Edit"),
    KeyBinding("profiles.delete", "profiles", "d,delete", "Delete"),
    KeyBinding("profiles.set_default", "profiles", "s", "Set default"),
    KeyBinding("profiles.test", "profiles", "t", "Test"),
    KeyBinding("profiles.close", "profiles", "escape", "Close"),
    KeyBinding("editor.cancel", "editor", "escape", "Cancel"),
    KeyBinding("editor.save", "editor", "ctrl+s", "Save"),
    KeyBinding("editor.reveal", "editor", "ctrl+r", "Show/hide token"),
    KeyBinding("differences.cancel", "differences", "escape", "Take nothing"),
    KeyBinding("differences.next", "differences", "enter,ctrl+j", "Next field / take it"),
    KeyBinding("differences.first", "differences", "up", "First keying"),
    KeyBinding("differences.second", "differences", "down", "Second keying"),
    KeyBinding("check.close", "check", "escape", "Close"),
    KeyBinding("check.again", "check", "r", "Check again"),
    KeyBinding("first_run.create", "first_run", "c", "Create a profile"),
    KeyBinding("first_run.demo", "first_run", "d", "Start the demo"),
    KeyBinding("first_run.read_again", "first_run", "r", "Read profiles.toml again"),
    KeyBinding("first_run.quit", "first_run", "q,escape", "Quit"),
)
BY_ID: Mapping[str, KeyBinding] = {binding.id: binding for binding in BINDINGS}

# Textual's own keys on every screen, which have no id: a binding moved onto one of them would
# take it from Textual, or never run.
TEXTUAL_KEYS: Mapping[str, str] = {
    "tab": "moves to the next field",
    "shift+tab": "moves to the previous field",
    "ctrl+c": "copies the selected text",
    "ctrl+q": "quits",
    "ctrl+p": "opens the command palette",
}

# Keys a desktop browser keeps whatever the page does: a new window, a new tab, a closed tab.
BROWSER_KEEPS = frozenset(
    ("ctrl+n", "ctrl+t", "ctrl+w", "ctrl+shift+n", "ctrl+shift+t", "ctrl+shift+w", "ctrl+tab")
)

MODIFIERS = ("alt", "ctrl", "hyper", "meta", "shift", "super")
NAMED_KEYS = frozenset(
    (
        "escape",
        "enter",
        "tab",
        "space",
        "backspace",
        "delete",
        "insert",
        "home",
        "end",
        "pageup",
        "pagedown",
        "up",
        "down",
        "left",
        "right",
        *(f"f{number}" for number in range(1, 25)),
    )
)
# Other names of named keys, as people write them (the help writes Esc).
_ALIASES = {
    "esc": "escape",
    "return": "enter",
    "del": "delete",
    "ins": "insert",
    "pgup": "pageup",
    "pgdn": "pagedown",
}
_WORDS = {
    "escape": "Esc",
    "pageup": "PgUp",
    "pagedown": "PgDn",
    "ctrl": "Ctrl",
    "alt": "Alt",
    "shift": "Shift",
    "super": "Super",
    "meta": "Meta",
    "hyper": "Hyper",
}


# Textual's shorter names of some characters (for their Unicode names).
_SHORTER = {
    "solidus": "slash",
    "reverse_solidus": "backslash",
    "commercial_at": "at",
    "hyphen_minus": "minus",
    "plus_sign": "plus",
    "low_line": "underscore",
}
_UNICODE = {short: name for name, short in _SHORTER.items()}
# The words of a key's name up to which every mix of spaces and hyphens is tried.
_MOST_WORDS = 8


def _character(name: str) -> str | None:
    """The character a key name stands for: `a`, or `question_mark` for `?` (Textual's names
    are the characters' Unicode names); None for a named key or no key at all."""
    if len(name) == 1:
        return name if name.isprintable() and not name.isspace() else None
    name = _UNICODE.get(name.lower(), name)
    character = _looked_up(name.split("_"))
    if character is None:
        return None
    usable = len(character) == 1 and character.isprintable() and not character.isspace()
    return character if usable else None


def _looked_up(words: list[str]) -> str | None:
    # The Unicode name had a space or a hyphen at each underscore of the key's name ("LESS-THAN
    # SIGN" is `less_than_sign`): all spaces, all hyphens, then each mix, for a name of a few
    # words (a mix in a long name is none that a key is named by).
    ways = [(" ",) * (len(words) - 1), ("-",) * (len(words) - 1)]
    if len(words) <= _MOST_WORDS:
        ways += list(itertools.product(" -", repeat=len(words) - 1))
    for joints in ways:
        spelt = words[0] + "".join(j + word for j, word in zip(joints, words[1:], strict=True))
        with contextlib.suppress(KeyError):
            return unicodedata.lookup(spelt)
    return None


def canonical(key: str) -> str | None:
    """`key` as Textual names the key it receives (`Ctrl+S` is `ctrl+s`, `shift+alt+x` is
    `alt+shift+x`, `?` is `question_mark`); None when it names no key."""
    text = key.strip()
    if text == "+" or text.endswith("++"):
        # The plus key itself, after its modifiers.
        mods, name = [mod for mod in text[:-1].rstrip("+").split("+") if mod], "+"
    else:
        *mods, name = text.split("+")
    modifiers = sorted({mod.strip().lower() for mod in mods})
    if any(mod not in MODIFIERS for mod in modifiers) or len(modifiers) != len(mods):
        return None
    name = name.strip()
    name = _ALIASES.get(name.lower(), name)
    if name.lower() in NAMED_KEYS:
        name = name.lower()
    else:
        character = _character(name)
        if character is None:
            return None
        if character.isalnum():
            # A letter with a modifier is named in lower case, as Textual receives it (but a
            # letter whose lower case is two characters, İ, which no key sends as one).
            lower = character.lower()
            name = lower if modifiers and len(lower) == 1 else character
        else:
            name = unicodedata.name(character).lower().replace(" ", "_").replace("-", "_")
            name = _SHORTER.get(name, name)
            if _character(name) != character:
                return None  # a name that cannot be read back (a key no keyboard sends)
    return "+".join((*modifiers, name))


def _types_a_character(key: str) -> bool:
    # A printable key without Ctrl, Alt or the like: a focused field would type it.
    *modifiers, name = key.split("+")
    return set(modifiers) <= {"shift"} and (name == "space" or _character(name) is not None)


def key_words(keys: str, *, short: bool = False) -> str:
    """Keys as the help and the docs write them: `ctrl+s` is `Ctrl+S`, `escape,f3` is
    `Esc / F3`; `short`: the first key only, a Ctrl+letter as `^S` (the form's switches)."""
    said = []
    for key in keys.split(","):
        *modifiers, name = key.split("+")
        character = None if name in NAMED_KEYS else _character(name)
        if character is not None:
            shown = character.upper() if modifiers else character
        else:
            shown = _WORDS.get(name, name.upper() if name[:1] == "f" else name.capitalize())
        if short and modifiers == ["ctrl"]:
            return f"^{shown}"
        said.append("+".join((*(_WORDS[modifier] for modifier in modifiers), shown)))
        if short:
            break
    return " / ".join(said)


def _meet(one: KeyBinding, other: KeyBinding) -> bool:
    # Bindings meet when one key could reach both: the same screen, or the App's and a screen
    # that is not modal.
    if one.screen == other.screen:
        return True
    return (
        APP in (one.screen, other.screen)
        and not ({one.screen, other.screen} - {APP}) & MODAL_SCREENS
    )


def _share_by_default(one: KeyBinding, other: KeyBinding, *, in_browser: bool) -> bool:
    # Two bindings made to share a key (Resume and Try now: never both available) may share
    # another one.
    keys = (set(binding.default(in_browser=in_browser).split(",")) for binding in (one, other))
    return bool(next(keys) & next(keys))


@dataclass(frozen=True, slots=True)
class _Clash:
    binding: str
    key: str
    # The other binding's id, or the words of Textual's key it would take.
    other: str


def _clashes(wanted: Mapping[str, str], *, in_browser: bool) -> list[_Clash]:
    """Each of `wanted` (id: keys) that would share a key with another binding of its screen."""
    in_force = {
        binding.id: wanted.get(binding.id, binding.default(in_browser=in_browser)).split(",")
        for binding in BINDINGS
    }
    found = []
    for binding_id, keys in wanted.items():
        binding = BY_ID[binding_id]
        for key in keys.split(","):
            if key in TEXTUAL_KEYS:
                found.append(_Clash(binding_id, key, TEXTUAL_KEYS[key]))
                break
            other = next(
                (
                    other
                    for other in BINDINGS
                    if other is not binding
                    and _meet(binding, other)
                    and key in in_force[other.id]
                    and not _share_by_default(binding, other, in_browser=in_browser)
                ),
                None,
            )
            if other is not None:
                found.append(_Clash(binding_id, key, other.id))
                break
    return found


def _without_clashes(
    wanted: Mapping[str, str], *, in_browser: bool
) -> tuple[dict[str, str], list[_Clash]]:
    """`wanted` less every entry that clashes; an entry left out can end another's clash with
    its default, so it is checked again until none is left. Each clash found, once."""
    kept = dict(wanted)
    dropped: list[_Clash] = []
    while clashes := _clashes(kept, in_browser=in_browser):
        for clash in clashes:
            kept.pop(clash.binding, None)
        dropped += clashes
    return kept, dropped


@dataclass(frozen=True, slots=True)
class ChosenKeymap:
    """The operator's `[keymap]` as it can be applied, in a terminal and in a browser tab, and
    what was wrong with it."""

    terminal: Mapping[str, str] = field(default_factory=dict)
    browser: Mapping[str, str] = field(default_factory=dict)
    findings: tuple[Finding, ...] = ()

    def in_force(self, *, in_browser: bool) -> dict[str, str]:
        """Every binding's id and its keys in force, Textual's keymap to apply."""
        chosen = self.browser if in_browser else self.terminal
        return {
            binding.id: chosen.get(binding.id, binding.default(in_browser=in_browser))
            for binding in BINDINGS
        }


def _flattened(table: Mapping[str, object], prefix: str = "") -> dict[str, object]:
    # `send.history = "f9"` is a table `send` holding `history` to TOML: both spellings of an id
    # are taken, and `"send.history" = "f9"` too.
    flat: dict[str, object] = {}
    for key, value in table.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and name not in BY_ID:
            flat.update(_flattened(value, f"{name}."))
        else:
            flat[name] = value
    return flat


class _Said:
    """Findings of the keymap, each at the line of its entry."""

    def __init__(self, findings: FindingsOf | None) -> None:
        self.findings = findings
        self.found: list[Finding] = []

    def __call__(self, binding_id: str, problem: str, suggestion: str | None = None) -> None:
        if self.findings is None:
            return
        lines = self.findings.lines
        line = max(
            (
                found
                for found in (
                    lines.line(KEYMAP_KEY, binding_id),
                    lines.line(KEYMAP_KEY, *binding_id.split(".")),
                )
                if found is not None
            ),
            default=None,
        )
        finding = Finding(self.findings.path, line, binding_id, None, problem, suggestion)
        self.found.append(finding)
        self.findings.found.append(finding)


def _clash_words(clash: _Clash, *, in_browser: bool) -> str:
    binding = BY_ID[clash.binding]
    where = " in a browser tab" if in_browser else ""
    if clash.other in BY_ID:
        other = BY_ID[clash.other]
        taken = f"already the key of {other.description} (`{other.id}`){where}"
    else:
        taken = f"Textual's key that {clash.other}"
    return (
        f"keymap: {key_words(clash.key)} for `{clash.binding}` is {taken}, so the entry is "
        f"ignored{where}: {binding.description} stays on "
        f"{key_words(binding.default(in_browser=in_browser))}."
    )


def _lost_in(key: str, *, in_browser: bool) -> bool:
    """Whether `key` never reaches the TUI there: in a terminal an Alt+letter comes as Esc then
    the letter (the TUI takes it so, `escape_then_character`); a browser keeps some keys."""
    if in_browser:
        return key in BROWSER_KEEPS
    *modifiers, name = key.split("+")
    return modifiers == ["alt"] and _character(name) is not None


def _usable(said: _Said, wanted: Mapping[str, str], *, in_browser: bool) -> dict[str, str]:
    """`wanted` less the keys that never reach the TUI there, each said."""
    where = "a browser keeps" if in_browser else "a terminal sends as Esc then the letter"
    there = "in a browser tab" if in_browser else "in a terminal"
    elsewhere = "in a terminal" if in_browser else "in a browser tab"
    usable = {}
    for binding_id, keys in wanted.items():
        kept = [key for key in keys.split(",") if not _lost_in(key, in_browser=in_browser)]
        lost = [key for key in keys.split(",") if _lost_in(key, in_browser=in_browser)]
        if lost:
            default = key_words(BY_ID[binding_id].default(in_browser=in_browser))
            has = f"it has {key_words(','.join(kept))}" if kept else f"it stays on {default}"
            said(
                binding_id,
                f"keymap: {key_words(','.join(lost))} is a key {where}, so {there} "
                f"`{binding_id}` never gets it ({has}); {elsewhere} it does.",
            )
        if kept:
            usable[binding_id] = ",".join(kept)
    return usable


def check_keymap(value: object, findings: FindingsOf | None = None) -> ChosenKeymap:
    """The `[keymap]` table's entries that can be applied; each that cannot is a finding (added
    to `findings` too), and the binding keeps its default keys there."""
    said = _Said(findings)
    if not isinstance(value, dict):
        said(
            KEYMAP_KEY,
            "`keymap` must be a table ([keymap]) of binding ids and their keys; "
            f"{shown_value(value)} is ignored and every key is the default.",
        )
        return ChosenKeymap(findings=tuple(said.found))
    wanted: dict[str, str] = {}
    for binding_id, keys in _flattened(value).items():
        binding = BY_ID.get(binding_id)
        if binding is None:
            said(
                binding_id,
                f"keymap: there is no binding `{binding_id}`, so it is ignored.",
                nearest(binding_id, BY_ID),
            )
            continue
        parsed = _parsed(binding, keys, said)
        if parsed is not None:
            wanted[binding_id] = parsed
    terminal, terminal_clashes = _without_clashes(
        _usable(said, wanted, in_browser=False), in_browser=False
    )
    browser, browser_clashes = _without_clashes(
        _usable(said, wanted, in_browser=True), in_browser=True
    )
    told = set(terminal_clashes)
    for clash in terminal_clashes:
        said(clash.binding, _clash_words(clash, in_browser=False))
    for clash in browser_clashes:
        if clash not in told:
            said(clash.binding, _clash_words(clash, in_browser=True))
    return ChosenKeymap(terminal, browser, tuple(said.found))


def _parsed(binding: KeyBinding, keys: object, said: _Said) -> str | None:
    """`keys` as Textual's comma-separated key names, or None (said why)."""
    example = 'write keys such as "ctrl+h", or several: "f3,ctrl+h"'
    stays = f"{binding.description} stays on {key_words(binding.keys)}"
    if not isinstance(keys, str) or not keys.strip():
        said(
            binding.id,
            f"keymap: `{binding.id}` takes its keys in quotes ({example}): "
            f"{shown_value(keys)} is ignored, {stays}.",
        )
        return None
    named = []
    for key in keys.split(","):
        name = canonical(key)
        if name is None:
            said(
                binding.id,
                f"keymap: {shown_value(key.strip())} (for `{binding.id}`) is not a key "
                f"({example}): the entry is ignored, {stays}.",
            )
            return None
        if binding.priority and _types_a_character(name):
            said(
                binding.id,
                f"keymap: {key_words(name)} (for `{binding.id}`) types a character, and "
                f"{binding.description} runs even in a field: the character would never be "
                f"typed. Give it Ctrl or Alt; the entry is ignored, {stays}.",
            )
            return None
        if name not in named:
            named.append(name)
    return ",".join(named)


def saved_keymap(directory: Path | None = None) -> ChosenKeymap:
    """The keymap profiles.toml holds, ready before the TUI's first key (tomllib alone); an
    unreadable file is the defaults (what is wrong with it is said with the file's other
    mistakes)."""
    path = (directory or config_dir()) / PROFILES_FILE
    try:
        raw = read_bytes(path, private=False)
        data = None if raw is None else parse_toml(path, raw)
    except ConfigError:
        return ChosenKeymap()
    if raw is None or data is None or KEYMAP_KEY not in data:
        return ChosenKeymap()
    return check_keymap(data[KEYMAP_KEY], FindingsOf(path, raw.decode("utf-8")))
