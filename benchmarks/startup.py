"""Cold start to the first painted screen, and peak RSS: the TUI against a bare Textual app.

    .venv/bin/python benchmarks/startup.py [--probe PATH] [--runs N] [--rounds N] [--json]

Uses the project's tmux-based startup probe (by default `shared/tools/startup_probe.py` in the
first folder above the repository that has one; give --probe otherwise). The programs are timed
in the same run, alternating in rounds so that a busy machine slows all alike, then the medians
and their ratio are printed.
Goal (issue 34): first paint at most 1.30x the bare app with httpx and Pydantic imported
(floor_app.py, the floor of any Plant Store TUI); the bare app alone is printed beside it. Peak
RSS has its own benchmark beside the same floor (memory.py); the RSS printed here is for
information. With --json, one RESULT line for run_all.py follows the table.
"""

from __future__ import annotations

import argparse
import compileall
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from result import Budget, emit

REPO = Path(__file__).resolve().parent.parent
# The project's probe sits in shared/tools beside the clone, or beside the folder of worktrees.
DEFAULT_PROBE = next(
    (
        folder / "shared" / "tools" / "startup_probe.py"
        for folder in REPO.parents
        if (folder / "shared" / "tools" / "startup_probe.py").exists()
    ),
    REPO.parent / "shared" / "tools" / "startup_probe.py",
)
WIDTH, HEIGHT = 110, 32
# Issue 34: the first paint at most 1.30x the floor's (floor_app.py), in the same run.
BUDGET = Budget("at most", 1.30)
# How a reader sees where a start goes, beside the floor's own (run_all.py prints it when missed).
PROFILE = (
    "PLANTSTORE_TOKEN=x .venv/bin/python -X importtime -m plantstore_tui --base-url "
    "http://127.0.0.1:9 2> tui.txt (Ctrl+Q quits) beside .venv/bin/python -X importtime "
    "benchmarks/floor_app.py 2> floor.txt; or -m cProfile -o start.prof in place of -X importtime, "
    "then .venv/bin/python -m pstats start.prof"
)


def _tui_command(*arguments: str) -> list[str]:
    script = Path(sys.executable).with_name("plantstore-tui")
    entry = [str(script)] if script.exists() else [sys.executable, "-m", "plantstore_tui"]
    return [*entry, *arguments]


# The operator's everyday start: `plantstore-tui` on the default profile, its token in the
# environment. Port 9 (discard), here as for --base-url: nothing listens, and nothing is sent
# unless someone presses Send.
PROFILES_TOML = """\
default = "benchmark"

[profiles.benchmark]
base_url = "http://127.0.0.1:9"
token_env = "BENCHMARK_PLANTSTORE_TOKEN"
"""


PROGRAMS: dict[str, dict[str, Any]] = {
    "bare Textual app": {
        "command": [sys.executable, str(REPO / "benchmarks" / "bare_app.py")],
        "marker": "bare app ready",
        "env": [],
    },
    # The floor of any Plant Store TUI (issue 34's budget): the bare app with httpx and Pydantic
    # imported. memory.py measures against the same program.
    "Textual + httpx + Pydantic": {
        "command": [sys.executable, str(REPO / "benchmarks" / "floor_app.py")],
        "marker": "floor app ready",
        "env": [],
    },
    "plantstore-tui": {
        "command": _tui_command("--base-url", "http://127.0.0.1:9"),
        "marker": "e.g. Monstera deliciosa",
        "env": ["PLANTSTORE_TOKEN=benchmark-token-not-a-secret"],
    },
    "plantstore-tui, default profile": {
        "command": _tui_command(),
        "marker": "e.g. Monstera deliciosa",
        "env": ["BENCHMARK_PLANTSTORE_TOKEN=benchmark-token-not-a-secret"],
        "profiles": PROFILES_TOML,
    },
}


def write_config(program: dict[str, Any], config: Path) -> None:
    """The program's profiles.toml in its throwaway config directory, if it starts on one."""
    if "profiles" in program:
        config.mkdir(parents=True, exist_ok=True)
        (config / "profiles.toml").write_text(program["profiles"])


def probe(probe: Path, program: dict[str, Any], runs: int, settle: float) -> list[dict[str, Any]]:
    """`runs` cold starts of `program` by the tmux probe: its per-run results."""
    with tempfile.TemporaryDirectory() as directory:
        out = Path(directory) / "probe.json"
        command = [
            sys.executable,
            str(probe),
            "--runs",
            str(runs),
            "--width",
            str(WIDTH),
            "--height",
            str(HEIGHT),
            "--settle",
            str(settle),
            "--marker",
            program["marker"],
            "--json",
            str(out),
            "--cwd",
            str(REPO),
        ]
        # The TUI's history and config go to the throwaway directory, not the operator's.
        write_config(program, Path(directory) / "config")
        if "prepare" in program:
            program["prepare"](Path(directory) / "data")
        isolated = [
            f"PLANTSTORE_DATA_DIR={Path(directory) / 'data'}",
            f"PLANTSTORE_CONFIG_DIR={Path(directory) / 'config'}",
        ]
        for pair in [*program["env"], *isolated]:
            command += ["--env", pair]
        subprocess.run([*command, "--", *program["command"]], check=False, capture_output=True)
        results: list[dict[str, Any]] = json.loads(out.read_text())["results"]
    failed = [r for r in results if not r["ok"]]
    if failed:
        raise SystemExit(f"{program['command']}: {failed[0].get('error')}")
    return results


def probe_options(parser: argparse.ArgumentParser, *, runs: int, rounds: int) -> None:
    """The options every tmux-probed benchmark takes."""
    parser.add_argument("--probe", type=Path, default=DEFAULT_PROBE, help="startup_probe.py")
    parser.add_argument("--runs", type=int, default=runs, help="timed runs per program")
    parser.add_argument("--rounds", type=int, default=rounds, help="alternations of the programs")
    parser.add_argument("--settle", type=float, default=0.5, help="seconds after first paint")
    parser.add_argument("--json", action="store_true", help="end with one RESULT line")


def compile_package() -> None:
    """Compile the package's bytecode, as pip does when it installs the wheel: Textual's is in
    site-packages already, so both sides start from bytecode. An editable install has none, and
    with PYTHONDONTWRITEBYTECODE set (as on the machine this is built on) no start writes any:
    every timed start compiled the 50 modules of the first frame from source (11% of the
    instructions to its first paint) and the compiler's peak memory stayed in the peak RSS."""
    compileall.compile_dir(REPO / "plantstore_tui", quiet=1)


def probe_in_rounds(
    args: argparse.Namespace, programs: dict[str, dict[str, Any]]
) -> dict[str, list[dict[str, Any]]]:
    """Every program probed `args.runs` times, taking turns in `args.rounds` rounds (a busy
    machine slows all alike), after one untimed run each; the results by program."""
    if not args.probe.exists():
        raise SystemExit(f"startup probe not found at {args.probe}: give --probe PATH")
    if shutil.which("tmux") is None:
        raise SystemExit("tmux is needed (apt-get install tmux)")
    per_round = max(1, args.runs // args.rounds)
    collected: dict[str, list[dict[str, Any]]] = {name: [] for name in programs}
    compile_package()
    for program in programs.values():
        probe(args.probe, program, 1, 0.2)  # warm the file cache, untimed
    for _ in range(args.rounds):
        for name, program in programs.items():
            collected[name] += probe(args.probe, program, per_round, args.settle)
    return collected


def main() -> None:
    """Probe both programs in alternating rounds and print medians, ratio and memory."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    probe_options(parser, runs=12, rounds=4)
    args = parser.parse_args()
    collected = probe_in_rounds(args, PROGRAMS)

    paint: dict[str, float] = {}
    tui_rss = 0.0
    settled_title = f"RSS +{args.settle:g} s"
    print(f"{'':31} {'first paint':>12} {'RSS at paint':>13} {settled_title:>12}")
    for name, results in collected.items():
        paint[name] = statistics.median(r["first_paint_s"] for r in results) * 1000
        at_paint = statistics.median(r["mem_at_paint"]["main_hwm_kib"] for r in results) / 1024
        settled = statistics.median(r["mem_after_settle"]["main_hwm_kib"] for r in results) / 1024
        print(f"{name:31} {paint[name]:9.1f} ms {at_paint:9.1f} MiB {settled:8.1f} MiB")
        if name == "plantstore-tui":
            tui_rss = at_paint
    ratio = paint["plantstore-tui"] / paint["Textual + httpx + Pydantic"]
    bare = paint["plantstore-tui"] / paint["bare Textual app"]
    print(
        f"\nstartup ratio (median first paint, {len(collected['plantstore-tui'])} runs each): "
        f"{ratio:.2f}x the bare app with httpx and Pydantic imported (goal {BUDGET}): "
        f"{'met' if BUDGET.met(ratio) else 'NOT met'}; "
        f"{bare:.2f}x the bare app alone"
    )
    profile = paint["plantstore-tui, default profile"] / paint["bare Textual app"]
    print(f"the default profile's start: {profile:.2f}x the bare app")
    print(f"peak RSS at first paint: {tui_rss:.1f} MiB (its goal and yardstick: memory.py)")
    if args.json:
        emit(
            "Cold start to first paint",
            ours=paint["plantstore-tui"],
            plain=paint["Textual + httpx + Pydantic"],
            unit="ms",
            digits=0,
            plain_label="bare Textual app importing httpx and Pydantic",
            judged=ratio,
            budget=BUDGET,
            profile=PROFILE,
            runs=len(collected["plantstore-tui"]),
        )


if __name__ == "__main__":
    main()
