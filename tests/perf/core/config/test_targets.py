"""Resolving a target loads no command-line library."""

from __future__ import annotations

import subprocess
import sys


def test_resolving_a_target_needs_no_command_line_library() -> None:
    code = (
        "import sys\n"
        "from plantstore_tui.core.config import targets, store\n"
        "assert 'click' not in sys.modules, 'click was imported'\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
