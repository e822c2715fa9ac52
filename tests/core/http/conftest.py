"""Fixtures of the TLS and proxy tests (a CA of their own and its certificate as a file) and of
the connection tests (httpcore's retries counted)."""

from __future__ import annotations

from pathlib import Path

import httpcore
import pytest
import trustme


@pytest.fixture(scope="module")
def ca() -> trustme.CA:
    """A CA no trust store on this machine knows."""
    return trustme.CA()


@pytest.fixture
def ca_file(ca: trustme.CA, tmp_path: Path) -> str:
    """The CA's certificate as a PEM file, for ca_bundle."""
    path = tmp_path / "company-ca.pem"
    ca.cert_pem.write_to_path(str(path))
    return str(path)


@pytest.fixture
def connection_retries(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A count (its one item) of the requests httpcore's pool handed a connection that another
    request had taken first (`httpcore.ConnectionNotAvailable`), each then retried."""
    retries = [0]
    handle = httpcore.AsyncHTTP11Connection.handle_async_request

    async def counted(
        connection: httpcore.AsyncHTTP11Connection, request: httpcore.Request
    ) -> httpcore.Response:
        try:
            return await handle(connection, request)
        except httpcore.ConnectionNotAvailable:
            retries[0] += 1
            raise

    monkeypatch.setattr(httpcore.AsyncHTTP11Connection, "handle_async_request", counted)
    return retries
