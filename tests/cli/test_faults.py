"""`plantstore-tui add` against servers that do what the spec never says: words and exit codes."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass

import pytest
from misbehaving import (
    Action,
    MisbehavingServer,
    Script,
    empty_200,
    error_with_wrong_types,
    gzip_bomb,
    html_502,
    markup_and_escapes,
    oversized,
    redirect_to,
    reset_mid_body,
    slow_drip,
    status_413,
    status_429,
    status_500,
    wrong_shape_200,
)

CANARY = "CANARY-faults-92e1c4b0d7f35a68"
# Nothing a server sends may reach the terminal as a control or bidi character.
FORBIDDEN_ON_SCREEN = ("\x1b", "\x07", "\x9b", "\u202e", "\x00")


@dataclass(frozen=True)
class Ran:
    code: int
    stdout: str
    stderr: str


async def run_add(base_url: str, *extra: str) -> Ran:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLANTSTORE_")}
    env["PLANTSTORE_TOKEN"] = CANARY
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "plantstore_tui",
        "add",
        "--name",
        "Fern",
        "--id",
        "12",
        "--base-url",
        base_url,
        "--timeout",
        "2",
        *extra,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await process.communicate()
    assert process.returncode is not None
    return Ran(process.returncode, out.decode(), err.decode())


def faults() -> list[object]:
    cases: list[tuple[str, Sequence[Action], int, Sequence[str]]] = [
        ("html 502", html_502(), 1, ["Rejected with 502", "not JSON", "may or may not"]),
        ("empty 200", empty_200(), 3, ["not a Plant"]),
        ("wrong shape 200", wrong_shape_200(), 3, ["not a Plant", "name"]),
        (
            "Error of wrong types",
            error_with_wrong_types({"error": "12", "message": 3}),
            1,
            ["not an Error", "error", "message"],
        ),
        (
            "redirect",
            redirect_to("http://127.0.0.2:9/plants"),
            3,
            ["redirect", "http://127.0.0.2:9/plants", "not followed"],
        ),
        ("413", status_413(), 1, ["Rejected with 413", "too large"]),
        ("429", status_429("7"), 1, ["Rejected with 429", "slow down", "Retry-After: 7"]),
        ("500", status_500(), 1, ["Rejected with 500", "may or may not"]),
        ("past the cap", oversized(2 * 1024 * 1024), 3, ["too large"]),
        ("gzip bomb", gzip_bomb(), 3, ["too large"]),
        ("slow drip", slow_drip(0.2), 3, ["deadline", "may or may not"]),
        ("reset mid-body", reset_mid_body(), 3, ["dropped", "may or may not"]),
        ("markup and escapes", markup_and_escapes(400), 1, ["[bold red]x[/]", "\\e]52;c;"]),
    ]
    # Named by the fault alone: the scripts hold megabytes, and a gzip stream differs each run.
    return [pytest.param(*case, id=case[0]) for case in cases]


@pytest.mark.parametrize(("name", "script", "code", "words"), faults())
async def test_every_fault_has_its_exit_code_and_words(
    name: str, script: Script, code: int, words: Sequence[str]
) -> None:
    async with MisbehavingServer(script) as server:
        ran = await run_add(server.base_url)
    assert ran.code == code, (name, ran)
    for word in words:
        assert word in ran.stdout, (word, ran.stdout)
    for text in (ran.stdout, ran.stderr):
        assert CANARY not in text
        for char in FORBIDDEN_ON_SCREEN:
            assert char not in text


async def test_json_output_is_one_object_even_for_escapes() -> None:
    async with MisbehavingServer(markup_and_escapes(400)) as server:
        ran = await run_add(server.base_url, "--json")
    assert ran.code == 1
    assert ran.stdout.count("\n") == 1
    assert "\x1b" not in ran.stdout
    assert '"outcome": "rejected"' in ran.stdout
