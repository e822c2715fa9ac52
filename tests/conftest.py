"""Fixtures shared by the whole suite: the real reference server on a loopback port."""

from __future__ import annotations

import inspect
import itertools
import os
import secrets
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import keyring
import pytest
from hypothesis import settings
from keyring.backends import fail
from misbehaving import reserved_port
from pydantic import SecretStr
from seen_support import record_notifications
from textual.widgets import Input

from plantstore_tui.server.runner import BackgroundServer

# CI runs on a fresh clone with no example database: the same examples every run, so a red CI
# is reproducible, and no deadline, so a loaded machine cannot fail a test on time alone.
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

# Ids handed out by `plant_id`; unique within a test session, so tests sharing a server never
# collide on the primary key.
_plant_ids = itertools.count(1_000_000)


# Tests of cost (frames, restyles, workers, loaded modules, memory) are opt-in: collected only
# when named, as in `python -m pytest tests/perf` (tests/perf/README.md).
collect_ignore = ["perf"]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The pty, subprocess and browser tests (tests/e2e, tests/web) first: they are the longest,
    mostly waiting on other processes, and a long test started last keeps one worker busy while
    the other has nothing left (xdist hands each worker half the list in this order, then
    steals)."""
    items.sort(key=lambda item: item.path.parent.name not in {"e2e", "web"})


@pytest.fixture(autouse=True)
def _isolated_from_the_operator(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No test reads or writes the real profiles, data or keyring, or sees a PLANTSTORE_* or
    proxy variable.

    Subprocesses inherit the same: the environment variables are set in os.environ.
    """
    for name in ("PLANTSTORE_TOKEN", "PLANTSTORE_PROFILE", "PLANTSTORE_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    # The machine's own proxy settings: no test goes through them unless it sets them.
    for scheme in ("http", "https", "all", "no"):
        monkeypatch.delenv(f"{scheme}_proxy", raising=False)
        monkeypatch.delenv(f"{scheme.upper()}_PROXY", raising=False)
    monkeypatch.setenv("PLANTSTORE_CONFIG_DIR", str(tmp_path / "isolated-config"))
    monkeypatch.setenv("PLANTSTORE_DATA_DIR", str(tmp_path / "isolated-data"))
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    monkeypatch.setattr(keyring.core, "_keyring_backend", fail.Keyring())


@pytest.fixture(autouse=True)
def _recorded_notifications(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each app keeps the notifications it was asked to show (notices_support.py)."""
    record_notifications(monkeypatch)


@pytest.fixture
def snap_compare(snap_compare: Callable[..., bool]) -> Callable[..., bool]:
    """pytest-textual-snapshot's `snap_compare`, every text cursor held still (`cursor_blink`
    off, which leaves it drawn) once `run_before` is done: a focused Input blinks every 0.5 s, so
    on a busy machine the picture could catch either phase of the blink."""

    def compare(app: Any, *, run_before: Any = None, **options: Any) -> bool:
        async def held_still(pilot: Any) -> None:
            if run_before is not None:
                result = run_before(pilot)
                if inspect.isawaitable(result):
                    await result
            for screen in pilot.app.screen_stack:
                for field in screen.query(Input):
                    field.cursor_blink = False
            await pilot.pause()

        return snap_compare(app, run_before=held_still, **options)

    return compare


def start_reference_server(db_path: Path, delay: float = 0.0) -> BackgroundServer:
    """A started server on a random token; the caller stops it."""
    server = BackgroundServer(
        token=SecretStr(secrets.token_urlsafe(32)), db_path=db_path, delay=delay
    )
    server.start()
    return server


@pytest.fixture
def reference_server(tmp_path: Path) -> Iterator[BackgroundServer]:
    """A reference server of its own: an empty database and a fresh token (~0.2 s per test)."""
    server = start_reference_server(tmp_path / "plants.sqlite3")
    yield server
    server.stop()


@pytest.fixture
def start_slow_server(tmp_path: Path) -> Iterator[Callable[[float], BackgroundServer]]:
    """Starts a reference server of the test's own that answers each POST /plants after the
    delay given (in seconds); stopped after the test."""
    started: list[BackgroundServer] = []

    def start(delay: float) -> BackgroundServer:
        server = start_reference_server(tmp_path / f"slow-{len(started)}.sqlite3", delay)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture(scope="session")
def shared_reference_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BackgroundServer]:
    """One reference server for the session (each worker of a parallel run has its own): use
    `plant_id` for ids no other test sends."""
    server = start_reference_server(tmp_path_factory.mktemp("shared") / "plants.sqlite3")
    yield server
    server.stop()


@pytest.fixture
def closed_port() -> Iterator[int]:
    """A loopback port with nothing listening on it: held bound (not listening) for the whole
    test, so no other test's server can take it meanwhile and answer."""
    with reserved_port() as sock:
        port: int = sock.getsockname()[1]
        yield port


@pytest.fixture
def plant_id() -> int:
    """An id no other test of this session uses."""
    return next(_plant_ids)


@pytest.fixture
def another_plant_id() -> int:
    """A second id no other test of this session uses (plant_id + 1 may be another test's)."""
    return next(_plant_ids)
