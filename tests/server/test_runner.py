"""`listen`: every way the server cannot listen, in one sentence that says what to try."""

from __future__ import annotations

import errno
import os
import socket

import pytest

from plantstore_tui.server.runner import CannotListen, listen


def test_a_port_in_use_is_named() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(CannotListen) as raised:
            listen("127.0.0.1", port)
    assert str(raised.value) == (
        f"Port {port} on 127.0.0.1 is in use: stop what listens there, or choose another --port."
    )


def test_an_address_this_machine_does_not_have_is_named() -> None:
    # 192.0.2.0/24 is reserved for documentation: no machine has it, and nothing is sent.
    with pytest.raises(CannotListen) as raised:
        listen("192.0.2.7", 0)
    assert str(raised.value).startswith(
        "Cannot listen on 192.0.2.7: it is not an address of this machine"
    )


def _bind_fails(monkeypatch: pytest.MonkeyPatch, code: int) -> None:
    def bind(self: socket.socket, address: object) -> None:
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(socket.socket, "bind", bind)


@pytest.mark.parametrize(
    ("port", "expected"),
    [
        (80, "Port 80 needs privileges this user does not have: choose a --port of 1024 or above."),
        (8080, "Listening on 127.0.0.1 port 8080 is not allowed here: choose another --port."),
    ],
)
def test_a_refused_permission_is_named(
    port: int, expected: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Tests may run as root, who may listen anywhere: the system's refusal is simulated.
    _bind_fails(monkeypatch, errno.EACCES)
    with pytest.raises(CannotListen) as raised:
        listen("127.0.0.1", port)
    assert str(raised.value) == expected


def test_anything_else_is_the_system_s_reason_without_its_number(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _bind_fails(monkeypatch, errno.ENOBUFS)
    with pytest.raises(CannotListen) as raised:
        listen("127.0.0.1", 8000)
    assert str(raised.value) == "Cannot listen on 127.0.0.1 port 8000: no buffer space available."
