"""Many processes, one ledger, walked at random (issue 42): TUIs in terminals, a second TUI, `add`
with and without an id, `history`, `probe` and `import` beside them, F3, F6 and F7 opened and
closed, kill -9, the deployment down and up, on one data directory against the real reference
server; after every step, every plant a screen or a command acknowledged is in the ledger once with
its fate, the ledger passes its integrity check, no process holds a deleted ledger file, and no id
went out twice (tests/walk_support.py).

The default run walks a few fixed seeds; PLANTSTORE_WALK_SEED=N walks seed N again. The soak
(`-m soak`, or PLANTSTORE_SOAK=1) walks longer, from fresh seeds; a failed walk names its seed.
"""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path

import pytest
from walk_support import SOAK_VARIABLE, Walk, seeds_given, soak_requested

from plantstore_tui.server.runner import BackgroundServer

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="reads /proc/PID/fd of the TUIs"
)

HERE = "tests/e2e/test_many_processes.py"
SEEDS = seeds_given() or [4201, 4202, 4203]
STEPS = 14  # every kind of step once, then three more
SOAK_WALKS = 4
SOAK_STEPS = int(os.environ.get("PLANTSTORE_SOAK_STEPS", "150"))


@pytest.mark.parametrize("seed", SEEDS)
def test_a_walk_of_many_processes_on_one_ledger_keeps_every_plant_once(
    seed: int, reference_server: BackgroundServer, tmp_path: Path
) -> None:
    Walk(seed, tmp_path, reference_server, replay=f"python -m pytest -n 0 {HERE}").run(STEPS)


@pytest.mark.soak
@pytest.mark.parametrize("walk", range(SOAK_WALKS))
def test_a_long_walk_of_many_processes_on_one_ledger_keeps_every_plant_once(
    walk: int, request: pytest.FixtureRequest, reference_server: BackgroundServer, tmp_path: Path
) -> None:
    if not soak_requested(request.config):
        pytest.skip(f"the soak runs with -m soak or {SOAK_VARIABLE}=1")
    given = seeds_given()
    seed = given[walk % len(given)] if given else random.SystemRandom().randrange(10**9)
    print(f"walk {walk}: seed {seed}")
    replay = (
        f"{SOAK_VARIABLE}=1 PLANTSTORE_SOAK_STEPS={SOAK_STEPS} python -m pytest -n 0 -k long {HERE}"
    )
    Walk(seed, tmp_path, reference_server, replay=replay).run(SOAK_STEPS)
