"""`plantstore-tui` run in a fresh interpreter, with `PlantStoreApp.run` replaced by a probe that
prints the target's label, which of httpx, Pydantic and keyring are loaded, and (with
`--connect`) what the connect thread resolves; and profiles.toml written for it."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TOKEN = "token-of-the-front-door-test"

_FRONT_DOOR = """
    import sys
    from plantstore_tui.ui.app import PlantStoreApp

    def run(self):
        print("label:", self._label.describe())
        heavy = ("httpx", "pydantic", "keyring")
        print("loaded:", [name for name in heavy if name in sys.modules])
        if self._connect is not None and CONNECT:
            # What the connect thread does after the first frame.
            try:
                print("connected:", self._connect().target.base_url)
            except Exception as exc:
                print("connect failed:", type(exc).__name__, exc)

    PlantStoreApp.run = run
    CONNECT = "--connect" in sys.argv
    sys.argv = ["plantstore-tui", *[arg for arg in sys.argv[1:] if arg != "--connect"]]
    from plantstore_tui.cli import main
    main()
"""


def front_door(arguments: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    """`plantstore-tui ARGUMENTS` run through the probe, with `env` and no other PLANTSTORE_."""
    environ = {key: value for key, value in os.environ.items() if not key.startswith("PLANTSTORE_")}
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_FRONT_DOOR), *arguments],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**environ, **env},
        timeout=60,
        check=False,
    )


def profiles_in(directory: Path, text: str) -> Path:
    """`directory`, holding a profiles.toml of `text`."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "profiles.toml").write_text(textwrap.dedent(text))
    return directory


SAVED = """
    default = "staging"

    [profiles.staging]
    base_url = "http://127.0.0.1:9"
    token_env = "STAGING_TOKEN"

    [profiles.prod]
    base_url = "https://plants.example.com/"
    protected = true
"""
