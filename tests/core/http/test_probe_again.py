"""A kept probe's request made to send again (core/http/probe_again.py): each part given takes
the place of the kept one, a header of the same name in any case replaces the kept one, an
Authorization kept masked is left out (unless another is given), and the words say what
changed."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from plantstore_tui.core.http.probe import ProbeRequest, TokenChoice
from plantstore_tui.core.http.probe_again import left_out_words, sent_again

KEPT = ProbeRequest(
    b'{"id": "7"}',
    TokenChoice.WRONG,
    (("X-Trace", "one"), ("Authorization", "Basic …ster"), ("Accept", "text/plain")),
    "PUT",
    "/plants/7?x=1",
)


def test_as_kept_it_is_the_kept_request_without_the_masked_authorization() -> None:
    again = sent_again(KEPT)
    assert again.request == ProbeRequest(
        KEPT.body,
        TokenChoice.WRONG,
        (("X-Trace", "one"), ("Accept", "text/plain")),
        "PUT",
        KEPT.path,
    )
    assert again.masked == "Basic …ster"
    assert again.changed == ()
    assert again.words("p3") == "p3 sent again as kept."
    assert "Basic …ster" in left_out_words("p3", "Basic …ster", TokenChoice.WRONG)
    assert "The fixed wrong token goes in its place." in left_out_words(
        "p3", "…", TokenChoice.WRONG
    )


def test_each_part_given_takes_the_place_of_the_kept_one() -> None:
    again = sent_again(
        KEPT, path="/plants", body=b"{}", token=TokenChoice.NONE, headers=(("x-trace", "two"),)
    )
    assert again.request.path == "/plants"
    assert (again.request.method, again.request.body) == ("PUT", b"{}")
    assert again.request.headers == (("Accept", "text/plain"), ("x-trace", "two"))
    assert again.changed == ("path", "body", "token", "headers")
    assert again.words("p3") == "p3 sent again, its path, body, token and headers changed."
    # Another Authorization given: nothing masked is left out.
    given_one = sent_again(KEPT, headers=(("authorization", "Bearer other"),))
    assert given_one.masked is None
    assert ("authorization", "Bearer other") in given_one.request.headers


names = st.sampled_from(["X-A", "x-a", "Accept", "Authorization", "X-B"])
values = st.text(alphabet="abc …", max_size=6)


@given(
    st.lists(st.tuples(names, values), max_size=5), st.lists(st.tuples(names, values), max_size=5)
)
def test_headers_given_replace_their_names_and_no_authorization_kept_goes(
    kept: list[tuple[str, str]], given_headers: list[tuple[str, str]]
) -> None:
    again = sent_again(ProbeRequest(b"", headers=tuple(kept)), headers=tuple(given_headers))
    sent = again.request.headers
    given_names = {name.lower() for name, _ in given_headers}
    # Every header given goes, after whatever of the kept ones is left, in its order.
    assert sent[len(sent) - len(given_headers) :] == tuple(given_headers)
    left = sent[: len(sent) - len(given_headers)]
    assert all(name.lower() not in given_names for name, _ in left)
    assert all(name.lower() != "authorization" for name, _ in left)
    kept_masked = any(name.lower() == "authorization" for name, _ in kept)
    assert (again.masked is not None) == (kept_masked and "authorization" not in given_names)
