"""Proxies as curl and pip use them: the choice (environment, NO_PROXY, loopback, settings) and
sends through a real proxy on 127.0.0.1 to a host name only that proxy knows."""

from __future__ import annotations

import errno

import httpx
import pytest
import trustme
from proxy_support import HIDDEN_HOST, TestProxy
from pydantic import SecretStr
from tls_support import TOKEN, TLSServer, plant_store

from plantstore_tui.core.http.client import PlantStoreClient
from plantstore_tui.core.http.failures import explain
from plantstore_tui.core.http.proxy import (
    InvalidProxy,
    Proxy,
    bypassed,
    choose_proxy,
    parse_proxy,
    route_words,
)
from plantstore_tui.core.http.target import Limits
from plantstore_tui.core.plant.models import NewPlant
from plantstore_tui.core.plant.outcome import Created, Failed, FailureKind, Outcome, PlantFate

REMOTE_HTTPS = "https://plants.example.com"
REMOTE_HTTP = "http://plants.example.com"


@pytest.mark.parametrize(
    ("base_url", "variable"),
    [
        (REMOTE_HTTPS, "https_proxy"),
        (REMOTE_HTTPS, "HTTPS_PROXY"),
        (REMOTE_HTTP, "http_proxy"),
        (REMOTE_HTTP, "HTTP_PROXY"),
        (REMOTE_HTTPS, "all_proxy"),
        (REMOTE_HTTP, "ALL_PROXY"),
    ],
)
def test_each_spelling_of_the_environment_is_honoured(base_url: str, variable: str) -> None:
    chosen = choose_proxy(base_url, {variable: "proxy.corp:3128"})
    assert chosen == Proxy("http://proxy.corp:3128", f"${variable}")


def test_the_schemes_variable_wins_over_all_proxy_and_lower_case_over_upper() -> None:
    environ = {
        "ALL_PROXY": "http://all:1",
        "HTTPS_PROXY": "http://upper:2",
        "https_proxy": "http://lower:3",
    }
    chosen = choose_proxy(REMOTE_HTTPS, environ)
    assert chosen is not None
    assert chosen.url == "http://lower:3"
    # An http:// target does not take the https proxy.
    chosen = choose_proxy(REMOTE_HTTP, environ)
    assert chosen is not None
    assert chosen.url == "http://all:1"


@pytest.mark.parametrize(
    "host", ["127.0.0.1", "127.8.9.10", "localhost", "LocalHost", "[::1]", "[::ffff:127.0.0.1]"]
)
def test_loopback_is_always_direct(host: str) -> None:
    environ = {"HTTPS_PROXY": "http://proxy.corp:3128", "HTTP_PROXY": "http://proxy.corp:3128"}
    for scheme in ("http", "https"):
        base_url = f"{scheme}://{host}:8000"
        assert choose_proxy(base_url, environ) is None
        # Even an explicit setting: the demo works behind a company proxy.
        assert choose_proxy(base_url, environ, given="http://proxy.corp:3128") is None


@pytest.mark.parametrize(
    ("no_proxy", "host", "port", "expected"),
    [
        ("*", "plants.example.com", 443, True),
        ("example.com", "plants.example.com", 443, True),
        ("example.com", "example.com", 443, True),
        (".example.com", "plants.example.com", 443, True),
        (".example.com", "example.com", 443, True),
        ("example.com", "notexample.com", 443, False),
        ("other.org, example.com", "plants.example.com", 443, True),
        ("other.org example.com", "plants.example.com", 443, True),
        ("EXAMPLE.COM", "Plants.Example.Com", 443, True),
        ("example.com:8443", "plants.example.com", 8443, True),
        ("example.com:8443", "plants.example.com", 443, False),
        ("10.0.0.7", "10.0.0.7", 443, True),
        ("10.0.0.0/8", "10.20.30.40", 443, True),
        ("10.0.0.0/8", "11.0.0.1", 443, False),
        ("10.0.0.0/8", "plants.example.com", 443, False),
        ("[2001:db8::1]:443", "2001:db8::1", 443, True),
        ("2001:db8::/32", "2001:db8::5", 443, True),
        ("", "plants.example.com", 443, False),
    ],
)
def test_no_proxy_as_curl_reads_it(no_proxy: str, host: str, port: int, expected: bool) -> None:
    assert bypassed(no_proxy, host, port) is expected


def test_no_proxy_in_either_case_sends_direct() -> None:
    for variable in ("no_proxy", "NO_PROXY"):
        environ = {"HTTPS_PROXY": "http://proxy.corp:3128", variable: ".example.com"}
        assert choose_proxy(REMOTE_HTTPS, environ) is None
        assert choose_proxy("https://plants.other.org", environ) is not None


def test_a_setting_wins_over_the_environment_and_none_means_direct() -> None:
    environ = {"HTTPS_PROXY": "http://env:1"}
    chosen = choose_proxy(REMOTE_HTTPS, environ, given="http://set:2", given_by="profile p")
    assert chosen == Proxy("http://set:2", "profile p")
    assert choose_proxy(REMOTE_HTTPS, environ, given="none") is None
    assert choose_proxy(REMOTE_HTTPS, environ, given="NONE") is None


def test_credentials_are_kept_apart_and_never_shown() -> None:
    chosen = parse_proxy("http://alice:s%40cret@proxy.corp:3128", "--proxy")
    assert chosen.url == "http://proxy.corp:3128"
    assert chosen.credentials is not None
    user, password = chosen.credentials
    assert (user, password.get_secret_value()) == ("alice", "s@cret")
    for shown in (repr(chosen), str(chosen), chosen.describe()):
        assert "cret" not in shown
        assert "alice" not in shown
    assert "with a login" in chosen.describe()


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("socks5://proxy:1080", "only http:// and https:// proxies are supported"),
        ("http://proxy:3128/path", "without a path"),
        ("http://proxy:99999", "port"),
        ("", "empty"),
    ],
)
def test_an_unusable_proxy_is_refused_in_words(text: str, words: str) -> None:
    with pytest.raises(InvalidProxy, match=words):
        parse_proxy(text, "$ALL_PROXY")


def test_route_words_say_how_sends_go() -> None:
    environ = {"HTTPS_PROXY": "http://u:pw@env:1"}
    assert "direct (this machine" in route_words("http://127.0.0.1:8000", environ, None)
    assert (
        route_words(REMOTE_HTTPS, environ, None) == "http://env:1 with a login (from $HTTPS_PROXY)"
    )
    assert "environment's proxy is not used" in route_words(REMOTE_HTTPS, environ, "none")
    assert route_words(REMOTE_HTTPS, {}, None).startswith("direct (no proxy")


def test_unreachable_proxy_is_named_in_words() -> None:
    proxy = Proxy("http://proxy.corp:3128", "--proxy")
    unreachable = httpx.ConnectError("All connection attempts failed")
    unreachable.__cause__ = OSError(errno.EHOSTUNREACH, "No route to host")
    failure = explain(unreachable, None, Limits(), HIDDEN_HOST, proxy)
    assert failure.message == (
        "The proxy http://proxy.corp:3128 cannot be reached: the network or host is unreachable"
    )
    assert failure.kind is FailureKind.PROXY
    assert failure.fate is PlantFate.NOT_CREATED
    failure = explain(httpx.ConnectTimeout("timed out"), None, Limits(), HIDDEN_HOST, proxy)
    assert failure.message.startswith("Could not connect to the proxy http://proxy.corp:3128")


def _plant() -> NewPlant:
    return NewPlant(id=7, name="Fern")


async def _send_over_tls(server: TLSServer, proxy_url: str, ca_file: str) -> Outcome:
    """One plant to the hidden host behind `server`, through the proxy at `proxy_url`."""
    async with PlantStoreClient(
        f"https://{HIDDEN_HOST}:{server.port}",
        SecretStr(TOKEN),
        ca_bundle=ca_file,
        proxy=parse_proxy(proxy_url, "--proxy"),
    ) as client:
        return await client.create_plant(_plant())


async def test_https_goes_through_connect_with_the_token_inside_tls(
    ca: trustme.CA, ca_file: str
) -> None:
    certificate = ca.issue_cert(HIDDEN_HOST)
    async with (
        TLSServer(plant_store, certificate=certificate) as server,
        TestProxy({HIDDEN_HOST: server.port}) as proxy,
    ):
        outcome = await _send_over_tls(server, proxy.url, ca_file)
    assert isinstance(outcome, Created), outcome
    assert outcome.proxy == proxy.url
    assert [(seen.method, seen.target) for seen in proxy.seen] == [
        ("CONNECT", f"{HIDDEN_HOST}:{server.port}")
    ]
    # The proxy saw no token: it travelled inside the tunnel's TLS.
    assert "authorization" not in proxy.seen[0].headers


async def test_a_proxy_asking_for_a_login_is_the_proxys_failure() -> None:
    async with TestProxy({HIDDEN_HOST: 9}, login="alice:secret") as proxy:
        for scheme in ("https", "http"):
            outcome = await _send_via(proxy.url, scheme)
            assert isinstance(outcome, Failed), outcome
            assert outcome.message == f"The proxy {proxy.url} asks for a login (407)"
            assert outcome.kind is FailureKind.PROXY
            assert outcome.fate is PlantFate.NOT_CREATED
            assert "USER:PASSWORD" in outcome.advice


async def test_the_proxys_login_is_sent_to_it(ca: trustme.CA, ca_file: str) -> None:
    certificate = ca.issue_cert(HIDDEN_HOST)
    async with (
        TLSServer(plant_store, certificate=certificate) as server,
        TestProxy({HIDDEN_HOST: server.port}, login="alice:s@cret") as proxy,
    ):
        outcome = await _send_over_tls(
            server, proxy.url.replace("//", "//alice:s%40cret@"), ca_file
        )
    assert isinstance(outcome, Created), outcome


async def _send_via(proxy_url: str, scheme: str = "https") -> Outcome:
    """One plant to the hidden host (no server behind it), through the proxy at `proxy_url`."""
    through = parse_proxy(proxy_url, "--proxy")
    async with PlantStoreClient(
        f"{scheme}://{HIDDEN_HOST}", SecretStr(TOKEN), proxy=through
    ) as client:
        return await client.create_plant(_plant())


async def test_a_proxy_that_refuses_the_connection_is_named(closed_port: int) -> None:
    outcome = await _send_via(f"http://127.0.0.1:{closed_port}")
    assert isinstance(outcome, Failed)
    assert outcome.message == f"The proxy http://127.0.0.1:{closed_port} refused the connection"
    assert outcome.fate is PlantFate.NOT_CREATED
    assert HIDDEN_HOST not in outcome.message


async def test_a_direct_send_is_unchanged(closed_port: int) -> None:
    async with PlantStoreClient(f"http://127.0.0.1:{closed_port}", SecretStr(TOKEN)) as client:
        outcome = await client.create_plant(_plant())
    assert isinstance(outcome, Failed)
    assert outcome.message.startswith("Cannot connect to 127.0.0.1")
    assert outcome.proxy is None


async def test_a_proxy_that_cannot_reach_the_host_says_so_as_the_proxys() -> None:
    async with TestProxy({}) as proxy:
        outcome = await _send_via(proxy.url)
    assert isinstance(outcome, Failed)
    assert outcome.message == f"The proxy {proxy.url} did not pass the request on: 502 Bad Gateway"
    assert outcome.fate is PlantFate.NOT_CREATED
