"""What a fresh interpreter has loaded once it has run some code: the tests of the headless core
(tests/core/test_headless.py) and of its cost (tests/perf/core/test_headless.py)."""

from __future__ import annotations

import json
import subprocess
import sys


def loaded_after_running(code: str) -> set[str]:
    """The names in sys.modules of a fresh interpreter once it has run `code`."""
    code += "\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))\n"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    return set(json.loads(result.stdout))


def loaded_after_importing(*modules: str) -> set[str]:
    """The names in sys.modules of a fresh interpreter once `modules` are imported."""
    return loaded_after_running(
        f"import importlib\nfor name in {modules!r}:\n    importlib.import_module(name)"
    )
