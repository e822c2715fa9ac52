"""Probes in the ledger: kept in a table of their own, with the request and the answer as shown,
never the token, never a plant of the queue, needs attention or the history of plants."""

from __future__ import annotations

import json
import threading

import pytest
from ledger_support import as_before, ledger_file, new_row, opened, take_settled
from misbehaving import MisbehavingServer, Send, json_response
from pydantic import SecretStr

from plantstore_tui.core.http.probe import ProbeRequest, Shape, TokenChoice, send_probe
from plantstore_tui.core.http.target import Target
from plantstore_tui.core.plant.outcome import PlantFate
from plantstore_tui.core.store import open_for_reading
from plantstore_tui.core.store.probes import (
    clear_probes,
    count_probes,
    get_probe,
    list_probes,
    parse_label,
    record_probe,
    write_probe,
)
from plantstore_tui.server.runner import BackgroundServer

CANARY = "canary-token-0123456789-DO-NOT-KEEP"


def _target(base_url: str, token: str = CANARY, profile: str | None = None) -> Target:
    return Target(base_url=base_url, token=SecretStr(token), token_source="test", profile=profile)


async def test_a_probe_is_kept_with_its_request_and_answer_and_never_as_a_plant(
    shared_reference_server: BackgroundServer,
) -> None:
    with opened("add") as ledger:
        plant = take_settled(ledger, new_row("Fern", "1"))
    target = _target(
        shared_reference_server.base_url, shared_reference_server.token.get_secret_value()
    )
    body = b'{"id": "7", "name": "Fern"}'
    answer = await send_probe(target, ProbeRequest(body, headers=(("X-Probe", "one"),)))
    warnings: list[str] = []
    # From a thread, as the TUI's probe screen calls it.
    numbers: list[int | None] = []
    worker = threading.Thread(
        target=lambda: numbers.append(record_probe(target, answer, warn=warnings.append))
    )
    worker.start()
    worker.join()
    assert warnings == []
    [number] = numbers
    assert number is not None
    with opened("test") as ledger:
        [kept] = list_probes(ledger)
        assert kept == get_probe(ledger, number)
        # The plants' views never see it.
        assert [row.entry for row in ledger.query()] == [plant]
        assert ledger.attention() == []
        assert ledger.open_rows() == []
        assert ledger.pending() == []
    assert kept.label == f"p{number}"
    assert parse_label(kept.label) == number
    assert (kept.body, kept.token, kept.headers) == (
        body,
        TokenChoice.PROFILE,
        (("X-Probe", "one"),),
    )
    assert kept.status == 400
    assert kept.message is None
    assert (kept.shape, kept.listed, kept.fate) == (Shape.ERROR, True, PlantFate.NOT_CREATED)
    assert json.loads(kept.answer_body)["error"] > 0
    assert ("content-type", "application/json") in [
        (name.lower(), value) for name, value in kept.answer_headers
    ]
    assert kept.elapsed_ms == answer.elapsed_ms
    assert kept.url == f"{shared_reference_server.base_url}/plants"
    assert kept.to_json()["verdict"]["shape"] == "Error"


async def test_a_probe_that_got_no_answer_keeps_why(closed_port: int) -> None:
    target = _target(f"http://127.0.0.1:{closed_port}", profile=None)
    answer = await send_probe(target, ProbeRequest(b"not json", token=TokenChoice.NONE))
    number = record_probe(target, answer, warn=pytest.fail)
    with opened() as ledger:
        kept = get_probe(ledger, number or 0)
    assert kept is not None
    assert kept.status is None
    assert kept.shape is None
    assert kept.message == answer.outcome.headline
    assert kept.message
    assert kept.answer_headers == ()
    assert kept.token is TokenChoice.NONE


async def test_the_token_is_never_kept_even_when_the_server_echoes_it() -> None:
    echo = [
        Send(
            json_response(
                400,
                {"error": 1, "message": f"your token is {CANARY}"},
                headers=[("X-Echo", f"Bearer {CANARY}")],
            )
        )
    ]
    async with MisbehavingServer(echo) as server:
        target = _target(server.base_url)
        answer = await send_probe(
            target,
            ProbeRequest(
                b"{}",
                headers=(("Authorization", f"Bearer {CANARY}"), ("X-Key", CANARY)),
            ),
        )
    number = record_probe(target, answer, warn=pytest.fail)
    assert number is not None
    raw = b"".join(path.read_bytes() for path in ledger_file().parent.iterdir() if path.is_file())
    assert CANARY.encode() not in raw
    with opened() as ledger:
        kept = get_probe(ledger, number)
    assert kept is not None
    assert ("Authorization", "Bearer …KEEP") in kept.headers
    assert ("X-Key", "[token]") in kept.headers


async def test_history_off_keeps_no_probe(
    monkeypatch: pytest.MonkeyPatch, closed_port: int
) -> None:
    monkeypatch.setenv("PLANTSTORE_NO_HISTORY", "1")
    target = _target(f"http://127.0.0.1:{closed_port}")
    answer = await send_probe(target, ProbeRequest(b"{}"))
    assert record_probe(target, answer, warn=pytest.fail) is None
    with opened() as ledger:
        assert list_probes(ledger) == []


async def test_a_ledger_that_cannot_be_written_is_a_warning(closed_port: int) -> None:
    ledger_file().parent.mkdir(parents=True, exist_ok=True)
    ledger_file().write_bytes(b"not a ledger at all" * 100)
    target = _target(f"http://127.0.0.1:{closed_port}")
    answer = await send_probe(target, ProbeRequest(b"{}"))
    warnings: list[str] = []
    assert record_probe(target, answer, warn=warnings.append) is None
    assert warnings
    assert warnings[0].startswith("History is off for this run:")
    assert ledger_file().read_bytes() == b"not a ledger at all" * 100


async def test_probes_are_listed_filtered_and_cleared(closed_port: int) -> None:
    here = _target(f"http://127.0.0.1:{closed_port}", profile="here")
    there = _target(f"http://127.0.0.1:{closed_port}", profile="there")
    answer = await send_probe(here, ProbeRequest(b"{}"))
    with opened() as ledger:
        first = write_probe(ledger, here, answer)
        second = write_probe(ledger, there, answer)
        assert [one.number for one in list_probes(ledger)] == [second, first]
        assert [one.number for one in list_probes(ledger, profile="here")] == [first]
        assert [one.number for one in list_probes(ledger, limit=1)] == [second]
        assert count_probes(ledger) == 2
        assert clear_probes(ledger, profile="there") == 1
        assert [one.number for one in list_probes(ledger)] == [first]
        assert clear_probes(ledger) == 1
        assert count_probes(ledger) == 0


async def test_the_ledger_keeps_at_most_its_limit_of_probes(closed_port: int) -> None:
    target = _target(f"http://127.0.0.1:{closed_port}")
    answer = await send_probe(target, ProbeRequest(b"{}"))
    with opened(limit=2) as ledger:
        numbers = [write_probe(ledger, target, answer) for _ in range(3)]
        assert [one.number for one in list_probes(ledger)] == numbers[:0:-1]


def test_a_ledger_of_the_release_before_gets_the_probes_table() -> None:
    with opened() as ledger:
        entry = take_settled(ledger, new_row("Fern", "1"))
    as_before("probes")
    ledger = open_for_reading()
    assert ledger is not None
    try:
        assert [row.entry for row in ledger.query()] == [entry]
        assert list_probes(ledger) == []
    finally:
        ledger.close()


@pytest.mark.parametrize(
    ("text", "number"),
    [("p12", 12), ("P3", 3), ("12", None), ("p", None), ("p-1", None), ("x1", None)],
)
def test_a_probe_is_named_p_and_its_number(text: str, number: int | None) -> None:
    assert parse_label(text) == number
