"""The package as an index serves it: the wheel built from this checkout carries the license, the
classifiers, the short index page and the version of `plantstore_tui/__init__.py`; installed
without the dev extra into a fresh venv, it runs as a tool.

Packaging tests (marker `packaging`): unlike the rest of the suite they reach the package index,
for the build backend and the dependencies, and they skip, saying so, when it cannot be reached.
"""

from __future__ import annotations

import email.parser
import os
import re
import subprocess
import sys
import tomllib
import urllib.request
import zipfile
from pathlib import Path

import pytest

from plantstore_tui import __version__

pytestmark = pytest.mark.packaging

REPO = Path(__file__).resolve().parents[2]
INDEX = os.environ.get("PIP_INDEX_URL", "https://pypi.org/simple/").rstrip("/")
CLASSIFIERS = {
    "Environment :: Console",
    "Intended Audience :: Developers",
    "Intended Audience :: System Administrators",
    "Operating System :: POSIX",
    "Programming Language :: Python :: 3.11",
    "Programming Language :: Python :: 3.12",
    "Programming Language :: Python :: 3.13",
    "Topic :: Internet :: WWW/HTTP",
    "Typing :: Typed",
}


def _index_reachable() -> bool:
    # One package's page, headers only: the build backend's.
    request = urllib.request.Request(f"{INDEX}/hatchling/", method="HEAD")
    try:
        with urllib.request.urlopen(request, timeout=15):
            return True
    except (OSError, ValueError):
        return False


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel `pip wheel --no-deps` builds from this checkout."""
    if not _index_reachable():
        pytest.skip(
            f"packaging test: the package index ({INDEX}) cannot be reached, and the build "
            "backend and the dependencies come from it"
        )
    dist = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--wheel-dir", str(dist), str(REPO)],
        check=True,
        capture_output=True,
        timeout=600,
    )
    (built,) = dist.glob("*.whl")
    return built


def test_the_version_has_one_source() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert "version" not in project
    assert "version" in project["dynamic"]


def test_the_wheel_carries_the_license_the_classifiers_and_the_index_page(wheel: Path) -> None:
    dist_info = f"plantstore_tui-{__version__}.dist-info"
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        metadata = email.parser.Parser().parsestr(archive.read(f"{dist_info}/METADATA").decode())
        license_text = archive.read(f"{dist_info}/licenses/LICENSE").decode()
    assert wheel.name == f"plantstore_tui-{__version__}-py3-none-any.whl"
    assert metadata["Version"] == __version__
    assert license_text == (REPO / "LICENSE").read_text()
    assert license_text.startswith("MIT License\n\nCopyright (c) 2026 The plantstore-tui authors")
    assert metadata["License-Expression"] == "MIT"
    assert metadata.get_all("License-File") == ["LICENSE"]
    assert set(metadata.get_all("Classifier") or []) >= CLASSIFIERS
    assert "plantstore_tui/py.typed" in names
    # What the package reads beside its modules: the styles, and the page's script for keys.
    assert {"plantstore_tui/ui/app.tcss", "plantstore_tui/web/keys.js"} <= names
    # The index's page is the short one, with no image and no link that resolves only in the
    # repository.
    page = metadata.get_payload()
    assert metadata["Description-Content-Type"] == "text/markdown"
    assert page.strip() == (REPO / "docs" / "package-index.md").read_text().strip()
    assert "![" not in page
    assert all(link.startswith("https://") for link in re.findall(r"\]\(([^)]*)\)", page))
    # The tests' tools are the dev extra's, not the tool's.
    assert not any(
        requirement.startswith("pytest")
        for requirement in metadata.get_all("Requires-Dist") or []
        if "extra ==" not in requirement
    )


def test_the_wheel_installs_as_a_tool_without_the_dev_extra(wheel: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    # Nothing of this checkout on the path: the venv runs what the wheel installed.
    env = {
        **{key: value for key, value in os.environ.items() if key != "PYTHONPATH"},
        "PLANTSTORE_CONFIG_DIR": str(tmp_path / "config"),
        "PLANTSTORE_DATA_DIR": str(tmp_path / "data"),
    }
    bin_dir = venv / "bin"

    def run(*command: str | Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(part) for part in command],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            env=env,
            stdin=subprocess.DEVNULL,
            timeout=900,
            check=False,
        )

    installed = run(bin_dir / "python", "-m", "pip", "install", "--quiet", wheel)
    assert installed.returncode == 0, installed.stderr
    version = run(bin_dir / "plantstore-tui", "--version")
    assert version.returncode == 0, version.stderr
    assert version.stdout == f"plantstore-tui, version {__version__}\n"
    script = run(bin_dir / "plantstore-tui", "completion", "bash")
    assert script.returncode == 0, script.stderr
    assert "_PLANTSTORE_TUI_COMPLETE=bash_complete" in script.stdout
    where = run(bin_dir / "python", "-c", "import plantstore_tui; print(plantstore_tui.__file__)")
    assert Path(where.stdout.strip()).is_relative_to(venv)
    assert run(bin_dir / "python", "-c", "import pytest").returncode != 0
