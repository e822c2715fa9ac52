"""Fixtures of the TLS and proxy tests: a CA of their own and its certificate as a file."""

from __future__ import annotations

from pathlib import Path

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
