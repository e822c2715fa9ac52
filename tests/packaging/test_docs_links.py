"""Every relative link of README.md and docs/*.md leads somewhere: the file it names exists, and
the heading its `#anchor` names is in that file, as GitHub makes a heading's anchor.

A reader who follows a link out of the README lands on the words it promised, and a section
moved or renamed shows here rather than as a dead link on the project's page. The README stays a
newcomer's guide (at most 450 lines, reference material in docs/), and its test command is the one
CI runs.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]

FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$")
LINK = re.compile(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
INLINE_CODE = re.compile(r"`[^`]*`")
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)


def prose_lines(text: str) -> list[tuple[int, str]]:
    """The lines of a Markdown page outside its fenced code blocks, with their numbers."""
    lines: list[tuple[int, str]] = []
    fenced = False
    for number, line in enumerate(text.splitlines(), start=1):
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            lines.append((number, line))
    return lines


def anchors(text: str) -> set[str]:
    """The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as
    hyphens, a repeated heading numbered -1, -2..."""
    found: set[str] = set()
    seen: dict[str, int] = {}
    for _, line in prose_lines(text):
        match = HEADING.match(line)
        if match is None:
            continue
        slug = re.sub(r"[^\w\- ]", "", match.group(1).strip().lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def broken_links(page: Path) -> list[str]:
    """Each relative link of the page whose file or heading does not exist, said as
    `page:line: target (why)`."""
    broken: list[str] = []
    for number, line in prose_lines(page.read_text(encoding="utf-8")):
        for target in LINK.findall(INLINE_CODE.sub("", line)):
            if EXTERNAL.match(target):
                continue
            path, _, anchor = target.partition("#")
            linked = (page.parent / path).resolve() if path else page
            where = page.relative_to(REPO).as_posix() if page.is_relative_to(REPO) else page.name
            if not linked.exists():
                broken.append(f"{where}:{number}: {target} (no such file)")
            elif anchor and anchor not in anchors(linked.read_text(encoding="utf-8")):
                broken.append(f"{where}:{number}: {target} (no heading #{anchor})")
    return broken


README_LINES = 450
TEST_COMMAND = ".venv/bin/python -m pytest -q -p no:cacheprovider"


def test_the_readme_is_a_guide_whose_test_command_is_the_one_ci_runs() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= README_LINES, "reference material belongs in docs/"
    section = readme.partition("\n## Running the tests\n")[2].partition("\n## ")[0]
    assert f"```sh\n{TEST_COMMAND}\n```" in section
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert TEST_COMMAND.replace(".venv/", ".ci-venv/") in ci.splitlines()


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.relative_to(REPO).as_posix())
def test_every_relative_link_leads_to_a_file_and_heading_that_exist(page: Path) -> None:
    assert broken_links(page) == []


def test_a_link_to_a_missing_file_or_heading_is_named_with_its_line(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "other.md").write_text("# Other\n\n## The `history` command\n")
    page = tmp_path / "README.md"
    page.write_text(
        "# Guide\n\n"
        "See [history](docs/other.md#the-history-command) and [the guide](#guide).\n"
        "```sh\n# not a heading](nowhere.md)\n```\n"
        "[gone](docs/gone.md), [moved](docs/other.md#profiles), [here](#nowhere), "
        "[web](https://example.com/x#y), `[code](nowhere.md)`\n"
    )
    assert [line.split(": ", 1)[1] for line in broken_links(page)] == [
        "docs/gone.md (no such file)",
        "docs/other.md#profiles (no heading #profiles)",
        "#nowhere (no heading #nowhere)",
    ]


def test_anchors_are_made_as_github_makes_them() -> None:
    text = (
        "# plantstore-tui\n## Mistakes in profiles.toml\n### `--json`\n"
        "## The `history` command\n## Keys\n## Keys\n```\n# not a heading\n```\n"
    )
    assert anchors(text) == {
        "plantstore-tui",
        "mistakes-in-profilestoml",
        "--json",
        "the-history-command",
        "keys",
        "keys-1",
    }
