"""A target's address as screens name it: host and port, the profile when known."""

from __future__ import annotations

from plantstore_tui.core.http.address import host_port, same_target, target_words, url_forms


def test_the_host_and_port_are_named_even_when_the_scheme_implies_the_port() -> None:
    assert host_port("https://plants.example.com:8443/api") == "plants.example.com:8443"
    assert host_port("https://plants.example.com") == "plants.example.com:443"
    assert host_port("http://127.0.0.1:9/") == "127.0.0.1:9"
    assert host_port("http://[::1]:8000") == "[::1]:8000"
    # A placeholder, not a URL, is named as it is.
    assert host_port("loading…") == "loading…"


def test_a_url_gets_shorter_without_its_scheme_then_its_path() -> None:
    assert url_forms("https://plants.example.com:8443/api/v2/") == (
        "https://plants.example.com:8443/api/v2/",
        "plants.example.com:8443/api/v2",
        "plants.example.com:8443",
    )
    assert url_forms("http://127.0.0.1:8000") == ("http://127.0.0.1:8000", "127.0.0.1:8000")
    assert url_forms("http://a.io") == ("http://a.io", "a.io:80")
    assert url_forms("starting…") == ("starting…",)


def test_target_words_name_the_profile_before_the_host() -> None:
    assert target_words("https://plants.example.com", "prod") == "prod · plants.example.com:443"
    assert target_words("http://127.0.0.1:8000", None) == "127.0.0.1:8000"


def test_two_targets_are_one_when_their_deployment_and_profile_agree() -> None:
    assert same_target("https://a.example/", "prod", "https://A.example:443", "prod")
    assert same_target("https://a.example", None, "https://a.example", "prod")
    assert not same_target("https://a.example", "prod", "https://a.example", "staging")
    assert not same_target("https://a.example", None, "http://a.example", None)
    assert not same_target("https://a.example:8443", None, "https://a.example", None)
    assert not same_target("https://a.example/v1", None, "https://a.example/v2", None)
