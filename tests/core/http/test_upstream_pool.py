"""httpcore's shared pool, on a bare httpx.AsyncClient: why core/http/connections.py exists.

Strict xfail: the day an httpcore release hands each request that arrives with others a
connection of its own, this passes, the suite says so, and `ConnectionPerSend` can go.
"""

from __future__ import annotations

import asyncio

import httpx
import pytest
from misbehaving import MisbehavingServer, spec_like


@pytest.mark.xfail(
    strict=True,
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
