"""Run the TUI or a script, and end the process (`os._exit`) the moment it reaches its stop.

    python benchmarks/stop_at.py SIDE STOP MARKER [ARGUMENT ...]

SIDE is `tui` (the arguments go to `plantstore-tui`) or `script` (the first argument is the
script). STOP: `frame` (the first write to the terminal that holds MARKER), `layout` (a screen's
first layout begins) or `run` (`App.run` is called). instructions.py runs this under cachegrind;
it imports nothing beyond what it needs to set the stop, so both sides pay the same for it.
"""

from __future__ import annotations

import os
import re
import sys
from importlib.abc import MetaPathFinder
from importlib.util import find_spec
from typing import Any

_, SIDE, STOP, MARKER = sys.argv[:4]
_ESCAPES = re.compile(r"\x1b(\[[0-9;?<>=$]*[ -/]*[@-~]|[()][0-9A-B]|[@-_])")


def _stop(*_: object, **__: object) -> None:
    os._exit(0)


def _stop_after_marker(write: Any) -> Any:
    """The driver's write, which ends the process once it has written the marker."""

    def written(self: object, data: str) -> None:
        write(self, data)
        if MARKER in _ESCAPES.sub("", data):
            _stop()

    return written


# The module, the class and the method where the stop is, and what that method becomes.
MODULE, CLASS, METHOD, STOPPING = {
    "frame": ("textual.drivers.linux_driver", "LinuxDriver", "write", _stop_after_marker),
    "layout": ("textual.screen", "Screen", "_refresh_layout", lambda _: _stop),
    "run": ("textual.app", "App", "run", lambda _: _stop),
}[STOP]


class _Stopper(MetaPathFinder):
    """Finds the stop's module through the other finders, and patches it once it is loaded."""

    def find_spec(self, name: str, path: object, target: object = None) -> Any:
        if name != MODULE:
            return None
        sys.meta_path.remove(self)
        spec = find_spec(name)
        assert spec is not None
        assert spec.loader is not None
        execute = spec.loader.exec_module

        def exec_module(module: Any) -> None:
            execute(module)
            owner = getattr(module, CLASS)
            setattr(owner, METHOD, STOPPING(getattr(owner, METHOD)))

        spec.loader.exec_module = exec_module  # type: ignore[method-assign]  # this spec's only
        return spec


sys.meta_path.insert(0, _Stopper())
if SIDE == "tui":
    from plantstore_tui.cli import main

    sys.argv = ["plantstore-tui", *sys.argv[4:]]
    main()
else:
    import runpy

    sys.argv = sys.argv[4:]
    runpy.run_path(sys.argv[0], run_name="__main__")
raise SystemExit("the program ended before its stop")
