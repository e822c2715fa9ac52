"""The timing bar's cells: each phase its share of the width, the whole never wider than it, and
a phase that took any time never drawn as nothing while another can give up a cell."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from plantstore_tui.ui.widgets.timing_bar import cells

spans = st.lists(st.floats(min_value=0, max_value=1e5, allow_nan=False), min_size=1, max_size=6)


@given(spans, st.integers(min_value=0, max_value=200))
def test_the_cells_fill_the_width_at_most_and_each_phase_that_took_time_shows(
    taken: list[float], width: int
) -> None:
    total = sum(taken)
    drawn = cells(taken, total, width)
    assert len(drawn) == len(taken)
    assert all(count >= 0 for count in drawn)
    assert sum(drawn) <= width
    if total > 0 and width >= len(taken):
        assert sum(drawn) == width
        assert all(count >= 1 for span, count in zip(taken, drawn, strict=True) if span > 0)


def test_shares_follow_the_time() -> None:
    assert cells([1.0, 3.0], 4.0, 40) == [10, 30]
    # A total beyond the phases (the client's own work) leaves the rest of the width.
    assert cells([1.0, 1.0], 4.0, 40) == [10, 10]
