"""Proxies through the command line: the environment, a profile's proxy, --proxy, what wins, and
where the proxy in use is shown (add, check, profile show, history), with a real proxy on
127.0.0.1 that alone knows the deployment's host name (no resolver is asked about it)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from click.testing import CliRunner, Result
from export_support import run_shell, tools
from proxy_support import HIDDEN_HOST, TestProxy, background_proxy

from plantstore_tui.cli import main
from plantstore_tui.core.config.options import TargetOptions
from plantstore_tui.core.config.targets import resolve_target

SECRET = "pr0xy-S3CRET"  # a proxy password: never printed


def _token(server: Any) -> str:
    value: str = server.token.get_secret_value()
    return value


def _run(*args: str, env: dict[str, str | None] | None = None) -> Result:
    return CliRunner().invoke(main, list(args), env=env)


@pytest.fixture
def proxy(shared_reference_server: Any) -> Iterator[TestProxy]:
    """A proxy that knows HIDDEN_HOST as the reference server."""
    port = int(shared_reference_server.base_url.rsplit(":", 1)[1])
    with background_proxy({HIDDEN_HOST: port}) as started:
        yield started


@pytest.fixture
def hidden_url(shared_reference_server: Any) -> str:
    """The reference server under a name only the proxy can resolve."""
    return f"http://{HIDDEN_HOST}:{shared_reference_server.base_url.rsplit(':', 1)[1]}"


def _add_profile(name: str, base_url: str, *extra: str) -> None:
    result = _run(
        "profile", "add", name, "--base-url", base_url, "--token-env", "TEST_TOKEN", *extra
    )
    assert result.exit_code == 0, result.output


def _add(plant_id: int, *args: str, env: dict[str, str | None]) -> Result:
    return _run("add", "--name", "Fern", "--id", str(plant_id), "--json", *args, env=env)


def test_the_environments_proxy_is_used_and_shown(
    proxy: TestProxy, hidden_url: str, shared_reference_server: Any, plant_id: int
) -> None:
    _add_profile("corp", hidden_url, "--allow-insecure-http")
    env = {"TEST_TOKEN": _token(shared_reference_server), "HTTP_PROXY": proxy.url}
    shown = _run("profile", "show", "corp", env=env)
    assert f"proxy:     {proxy.url} (from $HTTP_PROXY)" in shown.output
    result = _add(plant_id, "--profile", "corp", env=env)
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["proxy"] == proxy.url
    assert [(seen.method, seen.target) for seen in proxy.seen] == [("POST", f"{hidden_url}/plants")]


def test_loopback_goes_direct_whatever_the_environment(
    shared_reference_server: Any, plant_id: int, closed_port: int
) -> None:
    refusing = f"http://127.0.0.1:{closed_port}"
    env = {
        "PLANTSTORE_TOKEN": _token(shared_reference_server),
        "HTTPS_PROXY": refusing,
        "HTTP_PROXY": refusing,
        "ALL_PROXY": refusing,
    }
    result = _add(plant_id, "--base-url", shared_reference_server.base_url, env=env)
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["proxy"] is None


def test_a_profiles_proxy_beats_the_environment_and_proxy_beats_the_profile(
    proxy: TestProxy,
    hidden_url: str,
    shared_reference_server: Any,
    plant_id: int,
    closed_port: int,
) -> None:
    refusing = f"http://127.0.0.1:{closed_port}"
    env = {"TEST_TOKEN": _token(shared_reference_server), "HTTP_PROXY": refusing}
    _add_profile("corp", hidden_url, "--allow-insecure-http", "--proxy", proxy.url)
    result = _add(plant_id, "--profile", "corp", env=env)
    assert result.exit_code == 0, result.output
    assert len(proxy.seen) == 1

    edited = _run("profile", "edit", "corp", "--proxy", refusing)
    assert edited.exit_code == 0, edited.output
    result = _add(plant_id + 1, "--profile", "corp", "--proxy", proxy.url, env=env)
    assert result.exit_code == 0, result.output
    assert len(proxy.seen) == 2
    # Without --proxy, the profile's (refusing) proxy is used, and named as the failure.
    result = _run("add", "--name", "F", "--id", str(plant_id + 2), "--profile", "corp", env=env)
    assert result.exit_code == 3
    assert f"The proxy {refusing} refused the connection" in result.output


def test_proxy_none_means_direct_whatever_the_profile_and_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _add_profile("corp", "https://plants.example.com", "--proxy", "http://proxy.corp:3128")
    monkeypatch.setenv("TEST_TOKEN", "t" * 20)
    monkeypatch.setenv("HTTPS_PROXY", "http://env.corp:8080")
    target = resolve_target(TargetOptions(profile="corp"), {"TEST_TOKEN": "t" * 20})
    assert target.proxy is not None
    assert target.proxy.url == "http://proxy.corp:3128"
    options = TargetOptions(profile="corp", proxy="none")
    assert resolve_target(options, {"TEST_TOKEN": "t" * 20}).proxy is None
    edited = _run("profile", "edit", "corp", "--proxy", "none")
    assert edited.exit_code == 0, edited.output
    shown = _run("profile", "show", "corp")
    assert "environment's proxy is not used" in shown.output
    edited = _run("profile", "edit", "corp", "--proxy-from-env")
    assert edited.exit_code == 0, edited.output
    shown = _run("profile", "show", "corp")
    assert "proxy:     http://env.corp:8080 (from $HTTPS_PROXY)" in shown.output


def test_a_token_is_not_sent_to_a_proxy_in_the_clear_without_the_opt_in(
    proxy: TestProxy, hidden_url: str, shared_reference_server: Any, plant_id: int
) -> None:
    env = {"PLANTSTORE_TOKEN": _token(shared_reference_server)}
    result = _run(
        "add", "--name", "F", "--id", str(plant_id), "--base-url", hidden_url,
        "--proxy", proxy.url, env=env,
    )  # fmt: skip
    assert result.exit_code == 2
    assert (
        f"plain http:// to {HIDDEN_HOST} through the proxy {proxy.url} would send the token "
        "unencrypted to the proxy" in result.output
    )
    assert proxy.seen == []


def test_a_proxy_asking_for_a_login_is_named_and_its_password_never_shown(
    shared_reference_server: Any, hidden_url: str, plant_id: int
) -> None:
    port = int(shared_reference_server.base_url.rsplit(":", 1)[1])
    env = {"PLANTSTORE_TOKEN": _token(shared_reference_server)}
    with background_proxy({HIDDEN_HOST: port}, login=f"alice:{SECRET}") as proxy:
        args = ("--base-url", hidden_url, "--allow-insecure-http")
        refused = _run(
            "add", "--name", "F", "--id", str(plant_id), *args, "--proxy", proxy.url, env=env
        )
        with_login = proxy.url.replace("//", f"//alice:{SECRET}@")
        result = _add(plant_id, *args, "--proxy", with_login, env=env)
    assert refused.exit_code == 3
    assert f"The proxy {proxy.url} asks for a login (407)" in refused.output
    assert "Rejected" not in refused.output
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["proxy"] == proxy.url
    history = _run("history", "show", "2", "--json")
    assert json.loads(history.output)["proxy"] == proxy.url
    for output in (result.output, history.output, _run("history", "show", "2").output):
        assert SECRET not in output


def test_check_and_history_show_the_proxy(
    proxy: TestProxy, hidden_url: str, shared_reference_server: Any, plant_id: int
) -> None:
    env = {"PLANTSTORE_TOKEN": _token(shared_reference_server)}
    args = ("--base-url", hidden_url, "--allow-insecure-http", "--proxy", proxy.url)
    table = _run("check", *args, env=env)
    assert f"Check of {hidden_url}/plants through the proxy {proxy.url}:" in table.output
    report = _run("check", *args, "--json", env=env)
    assert json.loads(report.output)["proxy"] == proxy.url
    assert json.loads(report.output)["reachable"] is True
    added = _run("add", "--name", "F", "--id", str(plant_id), *args, env=env)
    assert f"POST {hidden_url}/plants through the proxy {proxy.url}: 200" in added.output
    shown = _run("history", "show", "1")
    assert f"through the proxy {proxy.url}" in shown.output


def test_a_profiles_proxy_password_is_never_shown() -> None:
    with_login = f"http://alice:{SECRET}@proxy.corp:3128"
    _add_profile("corp", "https://plants.example.com", "--proxy", with_login)
    shown = _run("profile", "show", "corp")
    assert "proxy:     http://proxy.corp:3128 with a login (from the profile)" in shown.output
    listing = _run("profile", "list", "--json")
    entry = json.loads(listing.output)["profiles"][0]
    assert entry["proxy"] == "http://proxy.corp:3128"
    assert entry["proxy_in_use"] == "http://proxy.corp:3128"
    for output in (shown.output, listing.output):
        assert SECRET not in output


@pytest.mark.parametrize(
    ("value", "code", "words"),
    [
        ("socks5://proxy:1080", 2, "only http:// and https:// proxies are supported"),
        ("http://proxy:3128/some/path", 2, "without a path"),
    ],
)
def test_an_unusable_proxy_option_is_a_usage_error(value: str, code: int, words: str) -> None:
    env = {"PLANTSTORE_TOKEN": "t" * 20}
    result = _run(
        "add", "--name", "F", "--id", "1", "--base-url", "https://plants.example.com",
        "--proxy", value, env=env,
    )  # fmt: skip
    assert result.exit_code == code
    assert words in result.output


def test_an_unusable_proxy_in_the_environment_is_a_configuration_problem() -> None:
    env = {"PLANTSTORE_TOKEN": "t" * 20, "ALL_PROXY": "socks5://proxy:1080"}
    result = _run(
        "add", "--name", "F", "--id", "1", "--base-url", "https://plants.example.com", env=env
    )
    assert result.exit_code == 4
    assert "The proxy ($ALL_PROXY) is a socks5:// proxy" in result.output


@pytest.mark.parametrize("as_", ["curl", "httpie"])
def test_an_exported_send_goes_through_the_same_proxy(
    proxy: TestProxy, hidden_url: str, shared_reference_server: Any, plant_id: int, as_: str
) -> None:
    # Only the proxy knows the deployment's host: the command reaches it through the proxy or
    # not at all.
    tools(as_)
    token = _token(shared_reference_server)
    args = ("--base-url", hidden_url, "--allow-insecure-http", "--proxy", proxy.url)
    added = _run(
        "add", "--name", "F", "--id", str(plant_id), *args, env={"PLANTSTORE_TOKEN": token}
    )
    assert added.exit_code == 0, added.output
    command = _run("history", "export", "1", "--as", as_).stdout.strip()
    assert proxy.url in command
    done = run_shell(command, token)
    # The plant exists already: the deployment's own answer (a refusal, so the command fails)
    # came back through the proxy.
    assert done.returncode != 0, done.stderr
    assert str(plant_id) in done.stdout
    posts = [seen for seen in proxy.seen if seen.method == "POST"]
    assert [seen.target for seen in posts] == [f"{hidden_url}/plants"] * 2
