"""`probe -v`: where the time went (connect, TLS, request, first byte, body, total) and the wire
(the request line and headers in the order sent, the status line and headers as received, the
bodies' bytes), the real command in a process of its own against the reference server, a server
that echoes the token and a port where nothing listens; `--json` and `history show` carry the
timings. The token is nowhere in any of it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

from misbehaving import ReceivedRequest, Send, ServerThread, response

from plantstore_tui.server.runner import BackgroundServer

TOKEN = "canary-token-0123456789-DO-NOT-PRINT"
_MS = r"\d+\.\d ms"


def plantstore(*args: str, token: str = TOKEN) -> subprocess.CompletedProcess[str]:
    """The real command, as an operator runs it (the data directory is the test's own)."""
    return subprocess.run(
        [sys.executable, "-m", "plantstore_tui", *args],
        input="",
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PLANTSTORE_TOKEN": token},
        check=False,
    )


def section(out: str, title: str) -> list[str]:
    """The lines under `title` up to the next line that is not indented."""
    lines = out.splitlines()
    start = lines.index(title) + 1
    taken = []
    for line in lines[start:]:
        if not line.startswith(" "):
            break
        taken.append(line)
    return taken


def test_v_prints_the_phases_and_the_wire_with_the_token_masked(
    shared_reference_server: BackgroundServer,
) -> None:
    token = shared_reference_server.token.get_secret_value()
    base = shared_reference_server.base_url
    body = '{"id": "7", "name": "Fern"}'
    done = plantstore(
        "probe", "--base-url", base, "--body", body, "--header", "X-Trace: one", "-v", token=token
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "Answer: 400" in out
    timings = section(out, "Timings:")
    for label in ("connect", "request", "first byte", "body", "total"):
        assert any(re.fullmatch(rf"  {label} +{_MS}.*", line) for line in timings), (label, out)
    assert any(re.fullmatch(r"  TLS +- .*", line) for line in timings), out
    sent = section(out, "Sent on the wire:")
    assert sent[0] == "  POST /plants HTTP/1.1"
    head = sent[1 : sent.index(f"  body, {len(body)} bytes:")]
    names = [line.strip().split(":")[0] for line in head]
    # As they went: the client's, the header given, and the length the body set, last.
    assert names == [
        "Host",
        "User-Agent",
        "Accept",
        "Accept-Encoding",
        "Content-Type",
        "Authorization",
        "X-Trace",
        "Content-Length",
    ]
    assert f"    Authorization: Bearer …{token[-4:]}" in sent
    assert f"    Content-Length: {len(body)}" in sent
    assert f"    {body}" in sent
    received = section(out, "Received on the wire:")
    assert received[0] == "  HTTP/1.1 400 Bad Request"
    assert "    content-type: application/json" in received
    assert token not in done.stdout + done.stderr
    assert token[:-4] not in done.stdout + done.stderr


def test_json_and_history_carry_the_timings(shared_reference_server: BackgroundServer) -> None:
    token = shared_reference_server.token.get_secret_value()
    base = shared_reference_server.base_url
    done = plantstore("probe", "--base-url", base, "--body", "{}", "--json", token=token)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    timings = answer["timings"]
    assert set(timings) == {
        "connect_ms",
        "tls_ms",
        "request_ms",
        "first_byte_ms",
        "body_ms",
        "total_ms",
        "reused",
        "stopped",
    }
    assert timings["connect_ms"] > 0
    assert timings["tls_ms"] is None
    assert (timings["reused"], timings["stopped"]) == (False, None)
    assert answer["wire"]["request"]["line"] == "POST /plants HTTP/1.1"
    assert answer["wire"]["answer"]["line"] == "HTTP/1.1 400 Bad Request"
    shown = plantstore("history", "show", answer["probe"])
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert any(re.fullmatch(rf"    first byte +{_MS}.*", line) for line in lines), lines
    listed = plantstore("history", "--probes", "--json")
    [kept] = json.loads(listed.stdout)
    assert kept["timings"] == timings


def test_no_answer_says_where_it_stopped(closed_port: int) -> None:
    nowhere = f"http://127.0.0.1:{closed_port}"
    done = plantstore("probe", "--base-url", nowhere, "--body", "{}", "-v")
    assert done.returncode == 3, done.stderr
    timings = section(done.stdout, "Timings:")
    assert any(re.fullmatch(rf"  connect +{_MS} +stopped here.*", line) for line in timings)
    assert any(re.fullmatch(r"  first byte +- .*", line) for line in timings), timings
    # What was to go is shown; nothing came back.
    assert section(done.stdout, "Sent on the wire:")[0] == "  POST /plants HTTP/1.1"
    assert "Received on the wire:\n  nothing" in done.stdout
    as_json = plantstore("probe", "--base-url", nowhere, "--body", "{}", "--json")
    assert json.loads(as_json.stdout)["timings"]["stopped"] == "connect"
    shown = plantstore("history", "show", "p1")
    assert "stopped here" in shown.stdout


def echo(request: ReceivedRequest) -> list[Send]:
    """The token back in a header, in the body, and the whole request quoted in the body."""
    raw = request.raw.decode("latin-1")
    body = f"\x00\xff token {TOKEN} and the request:\n{raw}".encode("latin-1")
    headers = [("Content-Type", "text/plain"), ("X-Echo", TOKEN), (f"X-{TOKEN}", "named")]
    return [Send(response(400, body, headers=headers))]


def test_a_server_echoing_the_token_shows_it_nowhere_in_the_wire_json_or_history() -> None:
    with ServerThread(echo) as server:
        base = ("probe", "--base-url", server.base_url, "--header", f"X-Given: {TOKEN}")
        verbose = plantstore(*base, "--body", f'{{"name": "{TOKEN}"}}', "-v")
        as_json = plantstore(*base, "--body", "{}", "-v", "--json")
        [first, _] = server.requests
    assert first.headers["authorization"] == f"Bearer {TOKEN}"
    assert (verbose.returncode, as_json.returncode) == (0, 0), verbose.stderr + as_json.stderr
    received = section(verbose.stdout, "Received on the wire:")
    assert "    X-Echo: [token]" in received
    assert "    X-[token]: named" in received
    # The body's bytes escaped where they are not text, the token taken out of them.
    assert any("token [token] and the request:" in line for line in received)
    assert any("\\x00\\xff" in line for line in received), received
    assert "    X-Given: [token]" in section(verbose.stdout, "Sent on the wire:")
    shown = plantstore("history", "show", "p1")
    listed = plantstore("history", "--probes", "--json")
    for done in (verbose, as_json, shown, listed):
        text = done.stdout + done.stderr
        for form in (TOKEN, TOKEN.upper(), TOKEN.lower(), TOKEN[:-4]):
            assert form not in text, form
    assert "\x00" not in verbose.stdout
