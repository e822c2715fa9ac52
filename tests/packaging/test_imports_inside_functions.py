"""Imports live at the top of their modules (issue 34): an import inside a function is kept only
for an optional feature (a screen opened on demand, the demo, the OS keyring, a crash's
traceback) or for a measured cost, with a comment saying which. This count keeps more from
creeping back; one under `if TYPE_CHECKING:` is not an import that runs, and is not counted.
"""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "plantstore_tui"
# Each kept import is listed by imports_inside_functions(); raise this only with a reason
# written beside the import. 16 + 3: the help, differences and attention screens, opened on
# demand, no longer load before the first frame; + 1: the probe screen, opened on demand (F6).
# What each costs, measured again by benchmarks/deferred.py: benchmarks/README.md, "Imports
# kept out of the start".
LIMIT = 20


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


class _Finder(ast.NodeVisitor):
    """The import statements that run inside a function body, by line."""

    def __init__(self) -> None:
        self.depth = 0
        self.lines: list[int] = []

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_If(self, node: ast.If) -> None:
        if _is_type_checking(node.test):
            for statement in node.orelse:
                self.visit(statement)
        else:
            self.generic_visit(node)

    def visit_Import(self, node: ast.Import | ast.ImportFrom) -> None:
        if self.depth:
            self.lines.append(node.lineno)

    visit_ImportFrom = visit_Import


def imports_inside_functions() -> list[str]:
    """Every import inside a function of the package, as file:line."""
    found: list[str] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        finder = _Finder()
        finder.visit(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
        found += [f"{path.relative_to(REPO)}:{line}" for line in finder.lines]
    return found


def test_the_finder_sees_imports_in_functions_and_not_for_type_checking() -> None:
    finder = _Finder()
    finder.visit(
        ast.parse(
            "import os\n"
            "if TYPE_CHECKING:\n    import json\n"
            "def f():\n    import csv\n    if TYPE_CHECKING:\n        import abc\n"
            "class C:\n    async def g(self):\n        from math import pi\n"
        )
    )
    assert finder.lines == [5, 10]


def test_imports_inside_functions_stay_few() -> None:
    found = imports_inside_functions()
    assert len(found) <= LIMIT, "\n".join(found)
