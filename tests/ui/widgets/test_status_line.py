"""The status line: parts fitted to the width, the URL's middle giving way before the token's
source (issue 17: at 80x24 it was cut to "http://127.0.0.1:9 · token from"), the state's words
given the room they need before the target's URL and profile name (issue 16)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from rich.cells import cell_len
from snapshot_apps.canned import canned_app
from snapshot_apps.support import settled
from textual.pilot import Pilot

from plantstore_tui.ui.connection import TargetLabel
from plantstore_tui.ui.screens.send import SendScreen
from plantstore_tui.ui.widgets.status_line import (
    StatusLine,
    StatusPart,
    fit_parts,
    fit_sides,
    shorten_middle,
    state_parts,
    state_words,
)


@asynccontextmanager
async def canned_status(size: tuple[int, int]) -> AsyncIterator[tuple[StatusLine, Pilot[int]]]:
    """The status line of the canned TUI at `size`, once it has settled."""
    app = canned_app()
    async with app.run_test(size=size) as pilot:
        await settled(app, pilot)
        screen = app.screen
        assert isinstance(screen, SendScreen)
        yield screen.status, pilot


LONG = TargetLabel(
    base_url="https://plants.greenhouse-operations.example.com:8443/api/v2/",
    token_source="$PLANTSTORE_TOKEN",
    profile="greenhouse-east",
    protected=True,
)


def test_everything_is_shown_when_it_fits() -> None:
    parts = LONG.parts("…a1b2")
    assert fit_parts(parts, 200) == (
        "greenhouse-east PROTECTED · https://plants.greenhouse-operations.example.com:8443"
        "/api/v2/ · token from $PLANTSTORE_TOKEN …a1b2"
    )


def test_narrow_the_hint_goes_then_the_urls_middle_and_the_token_source_stays_whole() -> None:
    fitted = fit_parts(LONG.parts("…a1b2"), 90)
    assert fitted == (
        "greenhouse-east PROTECTED · https://plants.…om:8443/api/v2/ · token from $PLANTSTORE_TOKEN"
    )


def test_at_80_columns_a_profile_keeps_its_name_protected_and_the_token_source() -> None:
    fitted = fit_parts(LONG.parts("…a1b2"), 52)
    assert fitted == "greenhouse… PROTECTED · token from $PLANTSTORE_TOKEN"


def test_without_a_profile_the_url_keeps_its_ends() -> None:
    label = TargetLabel(base_url="http://127.0.0.1:36325/", token_source="the demo (fresh)")
    assert fit_parts(label.parts("…a1b2"), 53) == (
        "http://127.0.0.1:36325/ · token from the demo (fresh)"
    )
    assert fit_parts(label.parts("…a1b2"), 45) == "http://12…0.1:36325/ · token from the demo (…"


def test_shorten_middle_keeps_both_ends() -> None:
    assert shorten_middle("http://127.0.0.1:36325", 12) == "http:…:36325"
    assert shorten_middle("abcdef", 4) == "a…ef"
    assert shorten_middle("short", 12) == "short"


def test_a_part_of_lower_rank_gives_way_first() -> None:
    parts = [StatusPart("keep me whole", 5), StatusPart("drop me", 0)]
    assert fit_parts(parts, 14) == "keep me whole"


async def test_at_80x24_the_status_line_keeps_the_target_and_the_token_source() -> None:
    async with canned_status((80, 24)) as (status, pilot):
        await pilot.pause()
        shown, _state = status.sides()
        assert "127.0.0.1" in shown
        assert "token from $PLANTSTORE_TOKEN" in shown


BUSY = "sending… · 1 queued · 1 needs attention (F4)"


def test_the_states_words_get_their_room_before_the_urls_middle() -> None:
    target, state = fit_sides([LONG.parts("…a1b2"), state_parts(BUSY)], 125)
    assert state == BUSY
    assert target == (
        "greenhouse-east PROTECTED · https://pl…443/api/v2/ · token from $PLANTSTORE_TOKEN"
    )
    # Narrower, the URL goes (its profile names the target) before the state is cut.
    target, state = fit_sides([LONG.parts("…a1b2"), state_parts(BUSY)], 105)
    assert (target, state) == ("greenhouse-east PROTECTED · token from $PLANTSTORE_TOKEN", BUSY)


async def test_at_110_columns_a_long_target_leaves_the_state_uncut() -> None:
    async with canned_status((110, 24)) as (status, pilot):
        status.show_target(LONG.parts("…a1b2"), protected=True)
        status.show_state(*state_words(1, 1, 1, problem=False, connected=True))
        await pilot.pause()
        line = status.render().plain
        # Before, the state had a fixed 30% of the line: "sending… · 1 queued · 1 needs a…".
        assert line.endswith(" " + BUSY)
        # The URL gave way (the profile names the target), the token source stays whole.
        assert line.startswith(" greenhouse-east PROTECTED · token from $PLANTSTORE_TOKEN ")
        assert status.kind == "problem"


# Two cells each on the screen: a profile's name or a host may be written in any script.
WIDE = TargetLabel(
    base_url="http://127.0.0.1:9/",
    token_source="$PLANTSTORE_TOKEN",
    profile="温室東棟温室東棟温室東棟温室東棟",
)


def test_wide_characters_are_fitted_by_the_cells_they_take() -> None:
    assert shorten_middle("温室東棟温室東棟", 9) == "温室…東棟"
    assert cell_len(shorten_middle("温室東棟温室東棟", 8)) <= 8
    for width in range(1, 80):
        fitted = fit_parts(WIDE.parts("…a1b2"), width)
        assert cell_len(fitted) <= width, (width, fitted)
    # The profile's name gives way, by cells, before the token's source.
    fitted = fit_parts(WIDE.parts("…a1b2"), 60)
    assert fitted.endswith(" · token from $PLANTSTORE_TOKEN")
    assert cell_len(fitted) <= 60


async def test_a_wide_profile_name_leaves_the_state_at_the_end_of_the_line() -> None:
    async with canned_status((80, 24)) as (status, pilot):
        status.show_target(WIDE.parts("…a1b2"))
        status.show_state("ready", "ready")
        await pilot.pause()
        line = status.render()
        # Counted in characters, the name took twice its room and pushed "ready" off the line.
        assert line.cell_len == status.content_region.width
        assert line.plain.endswith(" ready")
        assert "token from $PLANTSTORE_TOKEN" in line.plain


async def test_the_targets_tooltip_shows_over_the_target_only() -> None:
    async with canned_status((110, 24)) as (status, pilot):
        status.show_state("ready", "ready")
        await pilot.pause()
        width = status.content_region.width
        await pilot.hover(status, offset=(width - 2, 0))  # over "ready"
        assert status.tooltip is None
        await pilot.hover(status, offset=(3, 0))  # over the target
        assert isinstance(status.tooltip, str)
        assert "Click (or F2) to see and switch profiles" in status.tooltip
