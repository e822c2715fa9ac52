"""The words a status line says about the queue's state and its counts."""

from __future__ import annotations

from datetime import datetime

from plantstore_tui.core.sending.counted import Counts
from plantstore_tui.core.sending.state import (
    Asking,
    Running,
    TokenRefused,
    Unreachable,
    state_words,
)

SINCE = datetime(2026, 11, 26, 14, 2, 30)


def test_running_says_what_is_in_line_and_what_needs_attention() -> None:
    assert state_words(Running(), Counts(0, 0, 0), now=0) == ("ready", "ready")
    assert state_words(Running(), Counts(2, 1, 0), now=0) == ("sending… · 2 queued", "busy")
    assert state_words(Running(), Counts(0, 0, 1), now=0) == (
        "1 needs attention (F4)",
        "problem",
    )
    assert state_words(Running(), Counts(0, 0, 0), now=0, connected=False) == (
        "connecting…",
        "busy",
    )


def test_a_question_open_says_the_queue_is_paused() -> None:
    assert state_words(Asking(), Counts(4, 0, 2), now=0) == (
        "paused for the question · 4 queued · 2 need attention (F4)",
        "busy",
    )
    # With nothing in line there is nothing to pause.
    assert state_words(Asking(), Counts(0, 0, 2), now=0) == (
        "2 need attention (F4)",
        "problem",
    )


def test_a_refused_token_says_what_to_do() -> None:
    assert state_words(TokenRefused(403), Counts(3, 0, 0), now=0) == (
        "token refused · 403: fix it in F2, then Ctrl+R · 3 waiting",
        "problem",
    )


def test_an_unreachable_deployment_counts_down_to_the_next_try() -> None:
    state = Unreachable(SINCE, next_try=100.0, reason="Cannot connect")
    assert state_words(state, Counts(7, 0, 0), now=91.5) == (
        "unreachable, next try in 9 s · since 14:02 · 7 waiting",
        "problem",
    )
    assert state_words(state, Counts(7, 0, 0), now=100.0)[0].startswith("unreachable, trying now…")
    assert state_words(state, Counts(6, 1, 0), now=95.0)[0].startswith("unreachable, trying now…")
    # A Retry-After of minutes is counted in minutes.
    later = Unreachable(SINCE, next_try=400.0, reason="503")
    assert state_words(later, Counts(1, 0, 0), now=100.0)[0].startswith(
        "unreachable, next try in 5 min"
    )


def test_a_configuration_problem_says_nothing_can_be_sent() -> None:
    assert state_words(Running(), Counts(1, 0, 0), now=0, problem=True) == (
        "cannot send: configuration problem",
        "problem",
    )
