"""The words a status line says about the queue's state and its counts, and the changes of the
state the log tells."""

from __future__ import annotations

from datetime import datetime

from plantstore_tui.core.plant.models import NewPlant, Plant
from plantstore_tui.core.plant.outcome import Created, cancelled
from plantstore_tui.core.sending.counted import Counts
from plantstore_tui.core.sending.state import (
    Asking,
    Running,
    RunsAgain,
    StateNews,
    Stopped,
    TokenRefused,
    Unreachable,
    change_words,
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


def test_each_change_of_the_queue_is_told_once_and_running_again_only_once_it_is_so() -> None:
    news = StateNews()
    at = SINCE
    gone = Unreachable(SINCE, 10.0, "Cannot connect")
    assert news.seen(Running(), at, in_line=True) is None
    assert news.seen(gone, at, in_line=True) == Stopped(gone, at)
    # The next tries, the countdown, a question meanwhile: nothing new to tell.
    assert news.seen(Unreachable(SINCE, 20.0, "Cannot connect"), at, in_line=True) is None
    assert news.seen(Asking(), at, in_line=True) is None
    fern = NewPlant(id=1, name="Fern")
    url = "http://127.0.0.1:9/plants"
    created = Created(
        url=url, sent=fern, status=200, elapsed_ms=3.0, plant=Plant(name="Fern"), body=""
    )
    assert news.seen(Running(), at, in_line=True, answer=created) == RunsAgain(gone, at)
    assert "answers again" in change_words(RunsAgain(gone, at))
    # A refused token runs again only once a plant's answer says the token was taken.
    refused = TokenRefused(401)
    assert news.seen(refused, at, in_line=True) == Stopped(refused, at)
    news.resumed()
    assert news.seen(Running(), at, in_line=True) is None
    no_answer = cancelled(url, fern, 2.0)
    assert news.seen(Running(), at, in_line=True, answer=no_answer) is None
    assert news.seen(Running(), at, in_line=True, answer=created) == RunsAgain(refused, at)
    # A question stops a running queue with plants in it, and its answer lets it go on.
    assert news.seen(Asking(), at, in_line=False) is None
    assert news.seen(Asking(), at, in_line=True) == Stopped(Asking(), at)
    assert news.seen(Running(), at, in_line=True) == RunsAgain(Asking(), at)
