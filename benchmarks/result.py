"""The one machine-readable line each benchmark prints with --json, and run_all.py reads."""

from __future__ import annotations

import json
from typing import Any

PREFIX = "RESULT "


def emit(
    figure: str,
    ours: str,
    plain: str,
    ratio: float | None,
    goal: str,
    met: bool | None,
    **details: Any,
) -> None:
    """Print the figure's row: what it is, both sides in words, the ratio, whether it is met.

    `met` is None for a figure measured for information, with no goal of its own.
    """
    row = {"figure": figure, "ours": ours, "plain": plain, "ratio": ratio, "goal": goal}
    print(PREFIX + json.dumps({**row, "met": met, **details}), flush=True)
