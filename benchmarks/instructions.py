"""Instructions to the first painted frame, under cachegrind: the TUI against the bare app and
the floor (the bare app with httpx and Pydantic imported, issue 34's yardstick for the start).

    .venv/bin/python benchmarks/instructions.py [--until frame|layout|run] [--side tui|floor|bare]

A count that a loaded machine cannot move (startup.py's wall time can): each program runs under
`valgrind --tool=cachegrind` in a pty of startup.py's size and ends itself (`os._exit`) as soon as
its stop is reached (`stop_at.py`):
  frame   the first write to the terminal that holds the marker startup.py waits for (default;
          --marker TEXT waits for TEXT instead, e.g. a footer key's words);
  layout  the first layout of a screen begins (imports, app built, driver, compose and mount);
  run     `App.run` is called (imports and the app built).
Prints million instructions for each side and the TUI's ratios to the bare app and to the
floor. Needs valgrind. The package's bytecode is compiled first, as startup.py does.
`PYTHONHASHSEED=0`, the config and data directories are throwaway ones, the target is
`--base-url http://127.0.0.1:9` as in startup.py, and for the operator's everyday start
(`--side profile`) the default profile of startup.py's profiles.toml.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import shutil
import struct
import subprocess
import sys
import tempfile
import termios
from pathlib import Path

from startup import HEIGHT, PROGRAMS, REPO, WIDTH, compile_package, write_config

SIDES = {
    "tui": ("plantstore-tui", ["--base-url", "http://127.0.0.1:9"]),
    "profile": ("plantstore-tui, default profile", []),
    "bare": ("bare Textual app", [str(REPO / "benchmarks" / "bare_app.py")]),
    "floor": ("Textual + httpx + Pydantic", [str(REPO / "benchmarks" / "floor_app.py")]),
}
# The yardsticks a TUI side is divided by, in the words the ratio is printed with.
BASES = {"bare": "the bare app", "floor": "the floor (Textual + httpx + Pydantic)"}


def count(side: str, until: str, directory: Path, marker: str | None = None) -> int:
    """Instructions of one start of `side` to its stop, under cachegrind in a pty."""
    name, arguments = SIDES[side]
    program = PROGRAMS[name]
    out = directory / f"cachegrind.{side}.{until}"
    env = {
        **os.environ,
        "PYTHONHASHSEED": "0",
        "TERM": "xterm-256color",
        "COLORTERM": "truecolor",
        "PLANTSTORE_DATA_DIR": str(directory / "data"),
        "PLANTSTORE_CONFIG_DIR": str(directory / f"config.{side}"),
    }
    env.update(pair.split("=", 1) for pair in program["env"])
    write_config(program, directory / f"config.{side}")
    command = [
        "valgrind",
        "--tool=cachegrind",
        "--cache-sim=no",
        f"--cachegrind-out-file={out}",
        sys.executable,
        str(Path(__file__).with_name("stop_at.py")),
        "script" if side in BASES else "tui",
        until,
        marker or program["marker"],
        *arguments,
    ]
    main_fd, terminal_fd = pty.openpty()
    fcntl.ioctl(terminal_fd, termios.TIOCSWINSZ, struct.pack("HHHH", HEIGHT, WIDTH, 0, 0))
    process = subprocess.Popen(
        command,
        stdin=terminal_fd,
        stdout=terminal_fd,
        stderr=terminal_fd,
        env=env,
        cwd=REPO,
        start_new_session=True,
    )
    os.close(terminal_fd)
    screen = bytearray()
    while True:  # drain the terminal until the program has gone
        try:
            chunk = os.read(main_fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        screen += chunk
    os.close(main_fd)
    process.wait()
    tail = screen[-2000:].decode(errors="replace")
    if not out.exists():
        raise SystemExit(f"{side}: no cachegrind output\n{tail}")
    summary = next(line for line in out.read_text().splitlines() if line.startswith("summary:"))
    if b"the program ended before its stop" in screen or process.returncode != 0:
        raise SystemExit(f"{side}: did not reach its stop\n{tail}")
    return int(summary.split()[1])


def main() -> None:
    """Count each side and print million instructions and the ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--until", choices=("frame", "layout", "run"), default="frame")
    parser.add_argument("--side", choices=tuple(SIDES), action="append", help="default: all")
    parser.add_argument("--marker", help="stop at the first frame holding this text instead")
    parser.add_argument("--keep", type=Path, help="keep the cachegrind files in this directory")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is needed (apt-get install valgrind)")
    compile_package()
    counts: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as temporary:
        directory = args.keep or Path(temporary)
        directory.mkdir(parents=True, exist_ok=True)
        for side in args.side or tuple(SIDES):
            counts[side] = count(side, args.until, directory, args.marker)
            print(f"{SIDES[side][0]:31} {counts[side] / 1e6:9.1f} M instructions to {args.until}")
    for side in ("tui", "profile"):
        for base, words in BASES.items():
            if side in counts and base in counts:
                print(f"ratio, {SIDES[side][0]}: {counts[side] / counts[base]:.3f}x {words}")


if __name__ == "__main__":
    main()
