"""httpx's and httpcore's own behaviour behind each workaround core/http keeps, shown on bare
httpx (no code of this project): each test is a strict xfail, so the day a release changes the
behaviour the suite fails, saying which workaround can go.

- httpcore's shared pool handing requests that arrive together one idle connection:
  `core/http/connections.py` (`ConnectionPerSend`).
- httpx importing its command line with the package: `httpx._main` marked missing in
  `core/http/__init__.py`.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys

import httpx
import pytest
from misbehaving import MisbehavingServer, spec_like


@pytest.mark.xfail(
    strict=True,
    raises=AssertionError,
    reason="httpcore hands requests that arrive together the same idle connection, then retries "
    "them one by one (encode/httpcore#822, the review of encode/httpcore#1111)",
)
async def test_requests_started_together_each_take_a_connection_at_the_first_try(
    connection_retries: list[int],
) -> None:
    async with MisbehavingServer(spec_like) as server, httpx.AsyncClient() as client:
        for start in (0, 8, 16):
            answers = await asyncio.gather(
                *(
                    client.post(f"{server.base_url}/plants", json={"id": number, "name": "P"})
                    for number in range(start, start + 8)
                )
            )
            assert [answer.status_code for answer in answers] == [200] * 8
    assert server.connections == 8
    assert connection_retries == [0]


@pytest.mark.xfail(
    strict=True,
    raises=AssertionError,
    reason="httpx imports its command line (click, rich.progress, rich.syntax, pygments) with the "
    "package whenever they are installed (encode/httpx#3547, open)",
)
def test_importing_httpx_leaves_its_command_line_out() -> None:
    # A fresh interpreter: this one has imported the package, and httpx with it.
    code = "import sys, httpx; sys.exit(2 if 'httpx._main' in sys.modules else 0)"
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0
