"""TLS as deployments use it: real TLS servers on loopback with certificates made by trustme.

Each failure must reach the operator in words (what was wrong, what to do) through the real
commands, run as subprocesses.
"""

from __future__ import annotations

import asyncio
import datetime
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import trustme
from tls_support import NOW, TOKEN, TLSServer, plant_store


def _run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "plantstore_tui", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PLANTSTORE_TOKEN": TOKEN, **(env or {})},
        check=False,
        stdin=subprocess.DEVNULL,
    )


async def _against(certificate: trustme.LeafCert, *args: str) -> subprocess.CompletedProcess[str]:
    async with TLSServer(plant_store, certificate=certificate) as server:
        command = [args[0], "--base-url", server.base_url, *args[1:]]
        return await asyncio.to_thread(_run, *command)


def _tls_row(done: subprocess.CompletedProcess[str]) -> dict[str, str]:
    rows = json.loads(done.stdout)["probes"]
    row: dict[str, str] = next(row for row in rows if row["probe"] == "tls")
    return row


async def test_an_unknown_ca_is_refused_in_words(ca: trustme.CA) -> None:
    certificate = ca.issue_cert("127.0.0.1")
    checked = await _against(certificate, "check", "--json")
    added = await _against(certificate, "add", "--name", "Fern", "--id", "1")
    assert checked.returncode == 1
    row = _tls_row(checked)
    assert row["verdict"] == "fail"
    assert row["seen"].startswith("The server's TLS certificate is from an issuer this machine")
    assert "ca_bundle" in row["why"]
    assert added.returncode == 3
    assert "from an issuer this machine does not trust" in added.stdout
    assert "--ca-bundle PATH" in added.stdout
    assert "The plant was not created." in added.stdout


async def test_a_ca_given_as_ca_bundle_is_trusted(ca: trustme.CA, ca_file: str) -> None:
    certificate = ca.issue_cert("127.0.0.1")
    checked = await _against(certificate, "check", "--ca-bundle", ca_file, "--json")
    added = await _against(certificate, "add", "--ca-bundle", ca_file, "--name", "F", "--id", "1")
    assert checked.returncode == 0, checked.stdout
    row = _tls_row(checked)
    assert row["verdict"] == "pass"
    assert row["seen"].startswith("TLSv1.")
    assert "certificate issued by trustme" in row["seen"]
    assert added.returncode == 0, added.stdout


async def test_a_profile_ca_bundle_is_used(ca: trustme.CA, ca_file: str) -> None:
    async with TLSServer(plant_store, certificate=ca.issue_cert("127.0.0.1")) as server:
        env = {"TLS_TOKEN": TOKEN}
        saved = await asyncio.to_thread(
            _run,
            "profile",
            "add",
            "company",
            "--base-url",
            server.base_url,
            "--token-env",
            "TLS_TOKEN",
            "--ca-bundle",
            ca_file,
            env=env,
        )
        assert saved.returncode == 0, saved.stderr
        checked = await asyncio.to_thread(_run, "check", "--profile", "company", env=env)
    assert checked.returncode == 0, checked.stdout
    assert "certificate issued by trustme" in checked.stdout


async def test_an_expired_certificate_is_said_so(ca: trustme.CA, ca_file: str) -> None:
    certificate = ca.issue_cert(
        "127.0.0.1",
        not_before=NOW - datetime.timedelta(days=30),
        not_after=NOW - datetime.timedelta(days=1),
    )
    checked = await _against(certificate, "check", "--ca-bundle", ca_file, "--json")
    assert checked.returncode == 1
    row = _tls_row(checked)
    assert row["seen"] == "The server's TLS certificate has expired"
    assert "renew" in row["why"]


async def test_a_certificate_for_another_host_is_said_so(ca: trustme.CA, ca_file: str) -> None:
    certificate = ca.issue_cert("plants.other.example")
    checked = await _against(certificate, "check", "--ca-bundle", ca_file, "--json")
    added = await _against(certificate, "add", "--ca-bundle", ca_file, "--name", "F", "--id", "1")
    assert checked.returncode == 1
    assert _tls_row(checked)["seen"].startswith(
        "The server's TLS certificate is for another host name"
    )
    assert added.returncode == 3
    assert "use the name the certificate was issued for" in added.stdout


async def test_a_certificate_about_to_expire_warns(ca: trustme.CA, ca_file: str) -> None:
    certificate = ca.issue_cert("127.0.0.1", not_after=NOW + datetime.timedelta(days=5))
    checked = await _against(certificate, "check", "--ca-bundle", ca_file, "--json")
    assert checked.returncode == 0, checked.stdout
    row = _tls_row(checked)
    assert row["verdict"] == "warn"
    assert "expires in 4 days" in row["seen"] or "expires in 5 days" in row["seen"]


def test_a_ca_bundle_that_is_not_pem_is_a_configuration_problem(tmp_path: Path) -> None:
    bogus = tmp_path / "ca.pem"
    bogus.write_text("not a certificate\n")
    done = _run("check", "--base-url", "https://127.0.0.1:9", "--ca-bundle", str(bogus))
    assert done.returncode == 4
    assert f"The CA file {bogus} cannot be used (no PEM certificate in it)" in done.stderr


def test_a_profile_whose_ca_bundle_is_gone_is_a_configuration_problem(tmp_path: Path) -> None:
    config = Path(os.environ["PLANTSTORE_CONFIG_DIR"])
    config.mkdir(parents=True)
    gone = tmp_path / "gone.pem"
    (config / "profiles.toml").write_text(
        f'[profiles.company]\nbase_url = "https://127.0.0.1:9"\ntoken_env = "X"\n'
        f'ca_bundle = "{gone}"\n'
    )
    done = _run("check", "--profile", "company")
    assert done.returncode == 4
    assert f"The CA file {gone} cannot be used (No such file or directory)" in done.stderr


async def test_the_ca_bundle_given_before_the_command_counts_too(
    ca: trustme.CA, ca_file: str
) -> None:
    # The TUI takes its options before any command: the same TargetOptions carry them.
    async with TLSServer(plant_store, certificate=ca.issue_cert("127.0.0.1")) as server:
        command = ["--ca-bundle", ca_file, "check", "--base-url", server.base_url]
        checked = await asyncio.to_thread(_run, *command)
    assert checked.returncode == 0, checked.stdout


def test_the_tuis_target_carries_the_ca_bundle(
    ca_file: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from plantstore_tui.cli.targets import TargetOptions, resolve_target

    monkeypatch.setenv("PLANTSTORE_TOKEN", TOKEN)
    options = TargetOptions(base_url="https://127.0.0.1:9", ca_bundle=ca_file)
    assert resolve_target(options, interactive=False).ca_bundle == ca_file
