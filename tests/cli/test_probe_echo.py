"""`probe` against a server that echoes the token back everywhere it can (headers of the answer,
a header's name, its body in plain, JSON-escaped, percent-escaped and upper case, its Content-Type,
the request it received), and given the token by hand (`--header`, the body): the real command in
a process of its own, its text, its JSON, the ledger, `history show` and `history export` hold no
copy of it. A token too short to be found in text is said once and never mangles what is shown."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

from misbehaving import ReceivedRequest, Send, ServerThread, json_response, response

from plantstore_tui.core.http.cases import load_cases
from plantstore_tui.core.http.target import SHORT_TOKEN_NOTE

TOKEN = "canary-token-0123456789-DO-NOT-PRINT"


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


def forms_of(token: str) -> list[str]:
    """The token as an echo may carry it, each a way a reader gets it back."""
    escaped = "".join(f"\\u{ord(char):04x}" for char in token)
    return [token, token.upper(), token.lower(), escaped, quote(token, safe="")]


def echo_everywhere(request: ReceivedRequest) -> list[Send]:
    """Every header and the body carry the token back, however the request carried it."""
    raw = request.raw.decode("latin-1")
    body = json.dumps(
        {
            "error": 1,
            "message": f"echo {TOKEN} upper {TOKEN.upper()} percent {quote(TOKEN, safe='')}",
            "request": raw,
        }
    )
    # A JSON escape of every character, which a body shown pretty decodes.
    body = body[:-1] + ', "escaped": "' + forms_of(TOKEN)[3] + '"}'
    headers = [
        ("Content-Type", f"application/x-{TOKEN}"),
        ("X-Echo", f"Bearer {TOKEN}"),
        ("X-Upper", TOKEN.upper()),
        (f"X-{TOKEN}", "a header named after the token"),
        ("Retry-After", TOKEN),
    ]
    return [Send(response(400, body.encode("latin-1"), headers=headers))]


def none_of(token: str, text: str) -> None:
    for form in forms_of(token):
        assert form not in text, form


def test_a_server_echoing_the_token_everywhere_shows_it_nowhere(tmp_path: Path) -> None:
    cases = tmp_path / "cases.toml"
    with ServerThread(echo_everywhere) as server:
        base = ("probe", "--base-url", server.base_url, "--header", f"X-Debug: {TOKEN}")
        text = plantstore(*base, "--body", f'{{"id": 7, "name": "{TOKEN}"}}')
        as_json = plantstore(*base, "--body", "{}", "--json", "--save-case", str(cases))
        [first, _] = server.requests
    # It went: the server had the token, in the Authorization and in the header given.
    assert first.headers["authorization"] == f"Bearer {TOKEN}"
    assert first.headers["x-debug"] == TOKEN
    assert (text.returncode, as_json.returncode) == (0, 0), text.stderr + as_json.stderr
    none_of(TOKEN, text.stdout + text.stderr)
    none_of(TOKEN, as_json.stdout + as_json.stderr)
    assert "X-Debug: [token]" in text.stdout
    assert "x-echo: Bearer [token]" in text.stdout
    assert "x-[token]:" in text.stdout.lower()
    answer = json.loads(as_json.stdout)
    assert ["X-Debug", "[token]"] in answer["request"]["headers"]
    assert ["x-echo", "Bearer [token]"] in [[n.lower(), v] for n, v in answer["headers"]]
    labelled = "the body is JSON but is labelled application/x-[token]"
    assert answer["verdict"]["off_spec"] == [labelled]
    # Kept, shown, exported and saved as a case: nowhere either.
    listed = plantstore("history", "--probes", "--json")
    shown = plantstore("history", "show", "p1")
    exported = plantstore("history", "export", "p1", "--as", "curl")
    for done in (listed, shown, exported):
        assert done.returncode == 0, done.stderr
        none_of(TOKEN, done.stdout + done.stderr)
    assert '"name": "[token]"' in shown.stdout
    none_of(TOKEN, cases.read_text(encoding="utf-8"))
    [case] = load_cases(cases)
    assert case.request.headers == (("X-Debug", "[token]"),)


def test_a_plant_sent_to_such_a_server_keeps_and_shows_no_copy_either(tmp_path: Path) -> None:
    with ServerThread(echo_everywhere) as server:
        added = plantstore("add", "--base-url", server.base_url, "--id", "1", "--name", "Fern")
        as_json = plantstore(
            "add", "--base-url", server.base_url, "--id", "2", "--name", "Ivy", "--json"
        )
    assert (added.returncode, as_json.returncode) == (1, 1), added.stderr
    history = plantstore("history", "--json")
    for done in (added, as_json, history):
        none_of(TOKEN, done.stdout + done.stderr)
    assert "[token]" in history.stdout


def short_echo(request: ReceivedRequest) -> list[Send]:
    """A server that echoes a one-letter token in headers, beside a message full of its letter."""
    words = {"error": 1, "message": "keep looking, kind keeper: the key is kept"}
    return [Send(json_response(400, words, headers=[("X-Echo", "Bearer k"), ("X-Raw", "k")]))]


def test_a_one_letter_token_never_mangles_what_is_shown_and_is_said_once() -> None:
    with ServerThread(short_echo) as server:
        probed = plantstore("probe", "--base-url", server.base_url, "--body", "{}", token="k")
        added = plantstore(
            "add", "--base-url", server.base_url, "--id", "1", "--name", "Kale", token="k"
        )
    assert probed.returncode == 0, probed.stderr
    assert "keep looking, kind keeper: the key is kept" in probed.stdout
    assert "Bearer [token]" in probed.stdout
    assert "x-raw: [token]" in probed.stdout.lower()
    # Said once, on stderr, and never a letter turned into [token].
    assert probed.stderr.count(SHORT_TOKEN_NOTE.split(":")[0]) == 1
    assert "[token]eep" not in probed.stdout + probed.stderr
    assert added.returncode == 1, added.stderr
    kept = plantstore("history", "--json")
    listed = plantstore("history", "--probes", "--json")
    assert "keep looking, kind keeper: the key is kept" in kept.stdout
    assert "keep looking, kind keeper: the key is kept" in listed.stdout
    assert "[token]eep" not in kept.stdout + listed.stdout


def test_a_long_token_gives_no_note() -> None:
    with ServerThread(short_echo) as server:
        probed = plantstore("probe", "--base-url", server.base_url, "--body", "{}")
    assert probed.returncode == 0, probed.stderr
    assert SHORT_TOKEN_NOTE.split(":")[0] not in probed.stderr
