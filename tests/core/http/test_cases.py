"""Files of cases: a request just probed appended as a case and read back as the same request."""

from __future__ import annotations

from pathlib import Path

import pytest

from plantstore_tui.core.http.cases import CasesError, append_case, case_of, load_cases
from plantstore_tui.core.http.probe import ProbeRequest, TokenChoice, send_probe
from plantstore_tui.core.http.target import Target
from plantstore_tui.server.runner import BackgroundServer


def _target(server: BackgroundServer) -> Target:
    return Target(base_url=server.base_url, token=server.token, token_source="test")


@pytest.mark.parametrize(
    "request_",
    [
        ProbeRequest(b'{"id": "7", "name": "Fern"}'),
        ProbeRequest(b'{"id": 7,\n "name": "it\'s \\"x\\""', token=TokenChoice.NONE),
        ProbeRequest(b'{"id": 7, "id": 8, "name": "twice"}', token=TokenChoice.WRONG),
        ProbeRequest(b'{"id": 7, "name": null}', headers=(("X-Trace", "abc"),)),
    ],
    ids=["json", "not-json", "repeated-key", "null"],
)
async def test_a_saved_case_is_the_request_sent_and_the_status_it_got(
    shared_reference_server: BackgroundServer, tmp_path: Path, request_: ProbeRequest
) -> None:
    answer = await send_probe(_target(shared_reference_server), request_)
    path = tmp_path / "cases.toml"
    path.write_text("# kept by hand\n", encoding="utf-8")
    append_case(path, case_of("first", answer))
    append_case(path, case_of("second", answer))
    assert path.read_text(encoding="utf-8").startswith("# kept by hand\n")
    first, second = load_cases(path)
    assert (first.name, second.name) == ("first", "second")
    assert first.status == answer.status
    assert first.request.token is request_.token
    assert first.request.headers == request_.headers
    if first.body is None:
        assert first.request.body == request_.body
    # Sent again, the case gets the answer it was saved with.
    again = await send_probe(_target(shared_reference_server), first.request)
    assert again.status == first.status


async def test_an_error_s_code_is_kept_as_the_expectation(
    shared_reference_server: BackgroundServer, tmp_path: Path
) -> None:
    answer = await send_probe(_target(shared_reference_server), ProbeRequest(b'{"id": "7"}'))
    path = tmp_path / "cases.toml"
    append_case(path, case_of("string id", answer))
    (case,) = load_cases(path)
    assert case.status == 400
    assert case.error is not None
    assert not case.expects_success


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[[case]]\nname = 'x'\nstatus = 400\n", "exactly one of"),
        ("[[case]]\nname = 'x'\nraw = '{}'\nstatus = 'four'\n", "`status` is required"),
        ("[[case]]\nname = 'x'\nraw = '{}'\nstatus = 400\ntoken = 'maybe'\n", "`token`"),
        ("[[case]]\nname = 'x'\nraw = '{}'\nstatus = 400\nstatsu = 1\n", "unknown key 'statsu'"),
        ("[[case]]\nname = 'x'\nraw = '{}'\nstatus = 400\n" * 2, "two cases are named"),
        ("[[case]\n", "is not TOML"),
        ("[[case]]\nname = 'x'\nraw = '{}'\nstatus = 400\nheaders = {Host = 'a'}\n", "Host"),
        ("[[case]]\nname = 'x'\nbody = {id = 1, on = 2026-11-28}\nstatus = 400\n", "a date"),
    ],
)
def test_a_file_that_cannot_be_read_says_which_case_and_why(
    tmp_path: Path, text: str, words: str
) -> None:
    path = tmp_path / "cases.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CasesError, match=words):
        load_cases(path)
