"""Fixtures shared by the whole suite: the real reference server on a loopback port."""

from __future__ import annotations

import itertools
import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import SecretStr

from plantstore_tui.server.runner import BackgroundServer

# Ids handed out by `plant_id`; unique within a test session, so tests sharing a server never
# collide on the primary key.
_plant_ids = itertools.count(1_000_000)


def start_reference_server(db_path: Path) -> BackgroundServer:
    """A started server on a random token; the caller stops it."""
    server = BackgroundServer(token=SecretStr(secrets.token_urlsafe(32)), db_path=db_path)
    server.start()
    return server


@pytest.fixture
def reference_server(tmp_path: Path) -> Iterator[BackgroundServer]:
    """A reference server of its own: an empty database and a fresh token (~0.2 s per test)."""
    server = start_reference_server(tmp_path / "plants.sqlite3")
    yield server
    server.stop()


@pytest.fixture(scope="session")
def shared_reference_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BackgroundServer]:
    """One reference server for the session: use `plant_id` for ids no other test sends."""
    server = start_reference_server(tmp_path_factory.mktemp("shared") / "plants.sqlite3")
    yield server
    server.stop()


@pytest.fixture
def plant_id() -> int:
    """An id no other test of this session uses."""
    return next(_plant_ids)
