"""Running an exported command for real: bash with the token in the environment, curl or the dev
extra's HTTPie."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent
HTTPIE = shutil.which("http", path=str(BIN)) or shutil.which("http")


def run_shell(command: str, token: str | None) -> subprocess.CompletedProcess[str]:
    """Run `command` in bash with $PLANTSTORE_TOKEN set to `token` (None: unset)."""
    # HTTPie is the dev extra's, in this venv's bin; a private config dir keeps it from writing
    # to the operator's.
    env = {
        **{name: value for name, value in os.environ.items() if name != "PLANTSTORE_TOKEN"},
        "PATH": f"{BIN}:{os.environ.get('PATH', '')}",
        "HTTPIE_CONFIG_DIR": str(Path(os.environ["PLANTSTORE_DATA_DIR"]) / "httpie"),
    }
    if token is not None:
        env["PLANTSTORE_TOKEN"] = token
    return subprocess.run(
        ["bash", "-c", command], capture_output=True, text=True, env=env, timeout=60, check=False
    )


def tools(as_: str) -> None:
    if as_ == "curl" and shutil.which("curl") is None:
        pytest.skip("curl is not installed")
    if as_ == "httpie" and HTTPIE is None:
        pytest.skip("HTTPie is not installed (it is in the dev extra)")
