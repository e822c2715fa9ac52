"""The one redaction (`core.http.target.redact`): a token long enough to be told apart from text is
taken out however an echo carries it; a shorter one never mangles text, and is masked only where
it cannot be ordinary text (a value that is the token, Bearer and the token)."""

from __future__ import annotations

import json
from urllib.parse import quote

from hypothesis import given
from hypothesis import strategies as st
from pydantic import SecretStr

from plantstore_tui.core.http.target import REDACTED, redact, redact_bytes, short_token

# The characters a token may hold (an Authorization header carries printable ASCII); not the
# brackets, so that no token can be made of pieces of `[token]` and what is beside it.
TOKEN_CHARS = st.characters(min_codepoint=0x21, max_codepoint=0x7E, exclude_characters="[]")
LONG = st.text(TOKEN_CHARS, min_size=8, max_size=40)
SHORT = st.text(TOKEN_CHARS, min_size=1, max_size=7)


@given(token=LONG, before=st.text(), after=st.text())
def test_a_long_token_is_in_no_form_of_what_is_left(token: str, before: str, after: str) -> None:
    secret = SecretStr(token)
    for echo in (token, token.upper(), json.dumps(token, ensure_ascii=True)[1:-1], quote(token)):
        left = redact(before + echo + after, secret)
        assert token not in left
        assert REDACTED in left


@given(token=LONG)
def test_a_json_escape_of_every_character_is_found(token: str) -> None:
    escaped = "".join(f"\\u{ord(char):04X}" for char in token)
    body = '{"message": "' + escaped + '"}'
    left = redact(body, SecretStr(token))
    assert token not in json.dumps(json.loads(left), ensure_ascii=False)


@given(token=SHORT, text=st.text())
def test_a_short_token_never_changes_ordinary_text(token: str, text: str) -> None:
    if text.strip() == token or "bearer" in text.lower():
        return
    assert redact(text, SecretStr(token)) == text
    assert short_token(SecretStr(token))


def test_a_short_token_is_masked_where_it_cannot_be_ordinary_text() -> None:
    token = SecretStr("k")
    assert redact("k", token) == REDACTED
    assert redact("Bearer k", token) == f"Bearer {REDACTED}"
    assert redact("bearer k, then more", token) == f"bearer {REDACTED}, then more"
    # Bearer and a longer word: not the token.
    assert redact("Bearer kale", token) == "Bearer kale"
    assert redact("keep looking, kind keeper", token) == "keep looking, kind keeper"


def test_bytes_of_any_encoding_change_only_where_the_token_is() -> None:
    token = SecretStr("canary-token-0123456789")
    data = b"\xff\xfe before canary-token-0123456789 after \x80"
    assert redact_bytes(data, token) == b"\xff\xfe before [token] after \x80"


def test_no_token_or_an_empty_one_changes_nothing() -> None:
    assert redact("anything", None) == "anything"
    assert redact("anything", SecretStr("")) == "anything"
    assert not short_token(SecretStr(""))
