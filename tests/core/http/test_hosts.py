"""The one loopback rule, used by profiles, ad hoc targets, `check` and `serve` alike."""

from __future__ import annotations

import pytest

from plantstore_tui.core.http.hosts import insecure_http_problem, is_loopback_host


@pytest.mark.parametrize(
    "host",
    [
        "127.0.0.1",
        "127.0.0.2",
        "127.255.255.254",
        "::1",
        "[::1]",
        # An IPv4-mapped IPv6 address reaches the IPv4 address it maps: this one is loopback.
        "::ffff:127.0.0.1",
        "[::ffff:127.0.0.1]",
        "::ffff:127.1.2.3",
        # `localhost` names this machine; host names are not case-sensitive.
        "localhost",
        "LOCALHOST",
    ],
)
def test_loopback_addresses_and_localhost_are_loopback(host: str) -> None:
    assert is_loopback_host(host)


@pytest.mark.parametrize(
    "host",
    [
        # Listening on every interface is reachable from the network.
        "0.0.0.0",
        "::",
        "::ffff:0.0.0.0",
        "::ffff:10.0.0.1",
        "10.0.0.1",
        "128.0.0.1",
        "::2",
        "plants.example.com",
        "localhost.example.com",
        "127.0.0.1.nip.io",
        "",
    ],
)
def test_other_hosts_and_names_that_only_look_local_are_not_loopback(host: str) -> None:
    assert not is_loopback_host(host)


@pytest.mark.parametrize(
    "base_url", ["http://127.0.0.1:8000", "http://[::ffff:127.0.0.1]:8000", "https://a.example"]
)
def test_loopback_http_and_any_https_can_carry_a_token(base_url: str) -> None:
    assert insecure_http_problem(base_url, allowed=False) is None


def test_plain_http_beyond_loopback_is_named_unless_allowed() -> None:
    assert insecure_http_problem("http://10.0.0.1", allowed=False) == (
        "plain http:// to 10.0.0.1 would send the token unencrypted over the network"
    )
    assert insecure_http_problem("http://10.0.0.1", allowed=True) is None
