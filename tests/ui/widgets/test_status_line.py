"""The status line: parts fitted to the width, the URL's scheme and path giving way before the
token's source, a long host cut in its middle to a readable length, the host and port always
named, the state's counts kept whole ("3 need attention", never "3 need at…")."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime

from rich.cells import cell_len
from snapshot_apps.canned import canned_app
from snapshot_apps.support import settled
from textual.pilot import Pilot

from plantstore_tui.core.sending.counted import Counts
from plantstore_tui.core.sending.state import Running, TokenRefused, Unreachable, state_words
from plantstore_tui.ui.connection import TargetLabel
from plantstore_tui.ui.screens.send import SendScreen
from plantstore_tui.ui.widgets.status_line import (
    Give,
    StatusLine,
    StatusPart,
    clipped_words,
    fit_parts,
    fit_sides,
    shorten_middle,
    state_parts,
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


def test_narrow_the_hint_goes_then_the_scheme_and_path_then_a_long_hosts_middle() -> None:
    fitted = fit_parts(LONG.parts("…a1b2"), 90)
    assert fitted == (
        "greenhouse-east PROTECTED · plants.greenhouse-op…ions.example.com:8443 · $PLANTSTORE_TOKEN"
    )


def test_at_52_columns_the_host_keeps_its_port_and_the_profile_gives_way_last() -> None:
    fitted = fit_parts(LONG.parts("…a1b2"), 52)
    assert fitted == "greenho… PROTECTED · plants.g….com:8443 · $PLANTSTO…"


def test_without_a_profile_the_url_loses_its_scheme_then_its_middle() -> None:
    label = TargetLabel(base_url="http://127.0.0.1:36325/", token_source="the demo (fresh)")
    assert fit_parts(label.parts("…a1b2"), 53) == (
        "http://127.0.0.1:36325/ · token from the demo (fresh)"
    )
    assert fit_parts(label.parts("…a1b2"), 45) == "127.0.0.1:36325 · token from the demo (fresh)"
    assert fit_parts(label.parts("…a1b2"), 30) == "127.0.0.1:36325 · demo (fresh)"


def test_shorten_middle_keeps_both_ends() -> None:
    assert shorten_middle("http://127.0.0.1:36325", 12) == "http:…:36325"
    assert shorten_middle("abcdef", 4) == "a…ef"
    assert shorten_middle("short", 12) == "short"


def test_a_part_of_lower_rank_gives_way_first() -> None:
    parts = [
        StatusPart("keep me whole", (Give(5, "drop"),)),
        StatusPart("drop me", (Give(0, "drop"),)),
    ]
    assert fit_parts(parts, 14) == "keep me whole"


def test_room_a_later_step_freed_goes_back_to_a_cut_made_before_it() -> None:
    parts = [
        StatusPart("a long name to cut", (Give(0, "end", 4),)),
        StatusPart("a wording that gets shorter", (Give(1, "reword", text="shorter"),)),
    ]
    # The name was cut for the 22 cells the line lacked; the rewording then freed 20.
    assert fit_parts(parts, 24) == "a long name t… · shorter"


def test_a_cut_at_a_word_keeps_whole_words_when_they_keep_most_of_the_room() -> None:
    assert clipped_words("deployment unreachable since 14:02", 24) == "deployment unreachable…"
    assert clipped_words("paused: token refused (401)", 16) == "paused: token…"
    # A cut after "a b c" would leave most of the room empty.
    assert clipped_words("a b c deployment", 12) == "a b c deplo…"


async def test_at_80x24_the_status_line_keeps_the_target_and_the_token_source() -> None:
    async with canned_status((80, 24)) as (status, pilot):
        await pilot.pause()
        shown, _state = status.sides()
        assert "127.0.0.1" in shown
        assert "$PLANTSTORE_TOKEN" in shown


async def test_the_target_and_the_state_close_together_are_parted_evenly() -> None:
    # The token's hint gave way to "1 needs attention (F4)", leaving a cell to spare: the two
    # were joined by a dot with a space too many before it ("TOKEN  · 1 needs…").
    async with canned_status((80, 24)) as (status, pilot):
        words = ["1 needs attention (F4)", "ready", "3 queued · 1 sending", "starting…"]
        for hint in ("…a1b2", None):
            label = TargetLabel(base_url="http://127.0.0.1:8000", token_source="$PLANTSTORE_TOKEN")
            status.show_target(label.parts(hint))
            for state in words:
                status.show_state(state, "ready")
                await pilot.pause()
                line = status.render().plain
                assert "  · " not in line, line
                assert " ·  " not in line, line


BUSY = "sending… · 1 queued · 1 needs attention (F4)"


def test_the_states_words_get_their_room_before_a_long_hosts_middle() -> None:
    target, state = fit_sides([LONG.parts("…a1b2"), state_parts(BUSY)], 125)
    assert state == BUSY
    assert target == (
        "greenhouse-east PROTECTED · plants.greenhous…example.com:8443 · $PLANTSTORE_TOKEN"
    )
    # Narrower, the host and port stay: the count says "attention" without "needs" and "(F4)".
    target, state = fit_sides([LONG.parts("…a1b2"), state_parts(BUSY)], 105)
    assert state == "sending… · 1 queued · 1 attention"
    assert target == "greenhouse-east PROTECTED · plants.gree…ple.com:8443 · $PLANTSTORE_TOKEN"


async def test_at_110_columns_a_long_target_leaves_the_counts_whole() -> None:
    async with canned_status((110, 24)) as (status, pilot):
        status.show_target(LONG.parts("…a1b2"), protected=True)
        status.show_state(*state_words(Running(), Counts(1, 1, 1), now=0.0))
        await pilot.pause()
        line = status.render().plain
        # The counts keep their numbers and last words.
        assert line.endswith(" sending… · 1 queued · 1 attention")
        # The host and port stay, cut in the middle; the token's source stays whole; the
        # profile's name gives way first.
        assert line.startswith(" greenhouse-e… PROTECTED · plants.gree")
        assert ".com:8443 · $PLANTSTORE_TOKEN " in line
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
    assert fitted.endswith(" · 127.0.0.1:9 · $PLANTSTORE_TOKEN")
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
        assert " · 127.0.0.1:9 · $PLANTSTORE_TOKEN " in line.plain


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


def test_a_stopped_queue_keeps_its_headline_beside_its_counts_at_80_columns() -> None:
    label = TargetLabel(
        base_url="http://127.0.0.1:47123",
        token_source="the credentials file",
        profile="greenhouse-north",
    )
    for state, headline in (
        (TokenRefused(401), "token refused"),
        (Unreachable(datetime(2026, 11, 26, 14, 2), 108.0, "refused"), "unreachable"),
    ):
        words, _ = state_words(state, Counts(2, 0, 3), now=100.0)
        target, shown = fit_sides([label.parts(), state_parts(words, stopped=True)], 79)
        assert shown.startswith(headline), shown
        if isinstance(state, TokenRefused):
            assert "then Ctrl+R" in shown, shown
        assert shown.endswith("2 waiting · 3 attention"), shown
        assert "127.0.0.1:47123" in target
        # Running, the headline ("sending…") is what gives way to the counts.
        words, _ = state_words(Running(), Counts(2, 1, 3), now=0.0)
        assert "sending" not in fit_sides([label.parts(), state_parts(words)], 50)[1]
