"""The waits between tries at a deployment that cannot be reached."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from plantstore_tui.core.sending.backoff import Backoff


def test_the_waits_double_from_one_second_up_to_thirty() -> None:
    backoff = Backoff(draw=lambda: 1.0)
    assert [backoff.next_wait() for _ in range(7)] == [1, 2, 4, 8, 16, 30, 30]


def test_an_answer_starts_the_waits_again() -> None:
    backoff = Backoff(draw=lambda: 1.0)
    backoff.next_wait()
    backoff.next_wait()
    backoff.reset()
    assert backoff.next_wait() == 1.0


def test_a_retry_after_is_honoured_even_past_the_most() -> None:
    backoff = Backoff(draw=lambda: 0.0)
    assert backoff.next_wait(asked=90.0) == 90.0
    assert backoff.next_wait(asked=0.0) == 1.0  # half of the second step


@given(st.lists(st.floats(min_value=0.0, max_value=0.999999), min_size=1, max_size=20))
def test_every_wait_is_between_half_and_all_of_its_step(draws: list[float]) -> None:
    values = iter(draws)
    backoff = Backoff(draw=lambda: next(values))
    for tries in range(len(draws)):
        step = min(30.0, 2.0**tries)
        assert step / 2 <= backoff.next_wait() <= step
