"""docs/configuration.md lists every setting the code reads, and nothing else: each key of
profiles.toml and each environment variable in `core/reference.py`, which the code's own names
make up; the proxy variables it names are the ones the proxy choice reads."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from plantstore_tui.core.config.keymap import BINDINGS, BY_ID, key_words
from plantstore_tui.core.config.store import ProfileStore
from plantstore_tui.core.http.proxy import choose_proxy
from plantstore_tui.core.reference import ENVIRONMENT, PROFILE_KEYS, TOP_LEVEL_KEYS

REPO = Path(__file__).resolve().parents[2]
DOCUMENT = REPO / "docs" / "configuration.md"
PACKAGE = REPO / "plantstore_tui"


def documented(section: str) -> list[str]:
    """The names in the first cell of each row of the table under the heading `section`."""
    text = DOCUMENT.read_text(encoding="utf-8")
    start = text.index(f"\n## {section}\n")
    end = text.find("\n## ", start + 1)
    names = []
    for line in text[start : None if end < 0 else end].splitlines():
        if line.startswith("| `"):
            names += re.findall(r"`([^`]+)`", line.split("|")[1])
    return names


@pytest.mark.parametrize(
    ("section", "names"),
    [
        ("profiles.toml: the top level", TOP_LEVEL_KEYS),
        ("profiles.toml: each profile", PROFILE_KEYS),
        ("Environment variables", tuple(ENVIRONMENT)),
        ("profiles.toml: [keymap]", tuple(BY_ID)),
    ],
)
def test_the_document_lists_each_name_the_code_reads_once_and_no_other(
    section: str, names: tuple[str, ...]
) -> None:
    listed = documented(section)
    assert len(listed) == len(set(listed)), f"listed twice in {section}: {listed}"
    assert sorted(listed) == sorted(names)


def test_the_documents_keymap_gives_each_binding_its_keys_in_a_terminal_and_a_browser() -> None:
    text = DOCUMENT.read_text(encoding="utf-8")
    for binding in BINDINGS:
        browser = key_words(binding.browser) if binding.browser else "the same"
        assert f"| `{binding.id}` | {key_words(binding.keys)} | {browser} |" in text, binding.id


def _string_constants() -> dict[str, str]:
    """Every module-level `NAME = "text"` of the package, by NAME."""
    found = {}
    for path in PACKAGE.rglob("*.py"):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if (
                isinstance(node, ast.Assign)
                and isinstance(node.value, ast.Constant)
                and isinstance(node.value.value, str)
            ):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        found[f"{path.relative_to(REPO)}:{target.id}"] = node.value.value
    return found


def test_every_variable_name_the_code_defines_is_in_the_reference() -> None:
    variables = {
        where: value for where, value in _string_constants().items() if where.endswith("_ENV")
    }
    assert variables  # the names are found: TOKEN_ENV, CONFIG_DIR_ENV...
    assert {where: value for where, value in variables.items() if value not in ENVIRONMENT} == {}
    # And no PLANTSTORE_ variable is named anywhere in the code without being one of them.
    named = {
        name
        for path in PACKAGE.rglob("*.py")
        for name in re.findall(r"\bPLANTSTORE_[A-Z_]+\b", path.read_text(encoding="utf-8"))
    }
    assert named - set(ENVIRONMENT) == set()


def test_every_top_level_key_is_known_to_the_store_and_another_is_not(tmp_path: Path) -> None:
    (tmp_path / "profiles.toml").write_text(
        'default = "a"\nhistory_limit = 5\ntheme = "nord"\nsurprise = 1\n\n'
        '[profiles.a]\nbase_url = "https://a.example.com"\n'
    )
    assert ProfileStore(tmp_path).load().problems == (
        f"{tmp_path / 'profiles.toml'}, line 4: there is no setting `surprise`, so it is ignored.",
    )
    assert set(TOP_LEVEL_KEYS) == {"default", "history_limit", "theme", "profiles", "keymap"}


@pytest.mark.parametrize(
    ("variable", "base_url"),
    [
        ("https_proxy", "https://plants.example.com"),
        ("HTTPS_PROXY", "https://plants.example.com"),
        ("http_proxy", "http://plants.example.com"),
        ("HTTP_PROXY", "http://plants.example.com"),
        ("all_proxy", "https://plants.example.com"),
        ("ALL_PROXY", "http://plants.example.com"),
    ],
)
def test_each_proxy_variable_listed_chooses_the_proxy(variable: str, base_url: str) -> None:
    assert ENVIRONMENT[variable] == "plantstore-tui"
    chosen = choose_proxy(base_url, {variable: "http://proxy.example.com:3128"}, given=None)
    assert chosen is not None
    assert chosen.url == "http://proxy.example.com:3128"


@pytest.mark.parametrize("variable", ["no_proxy", "NO_PROXY"])
def test_each_no_proxy_variable_listed_sends_directly(variable: str) -> None:
    assert ENVIRONMENT[variable] == "plantstore-tui"
    environ = {"HTTPS_PROXY": "http://proxy.example.com:3128", variable: "plants.example.com"}
    assert choose_proxy("https://plants.example.com", environ, given=None) is None
