"""A log entry's lines, made without a table, are the table's cell for cell: labels in their
column, long values wrapped (and words longer than the column folded) under their label, wide
characters, several lines, and a log too narrow for the column falling back to the table."""

from __future__ import annotations

import pytest
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text

from plantstore_tui.ui.widgets import log_entry
from plantstore_tui.ui.widgets.log_entry import Entry

RED = Style(color="red", bold=True)
ROWS: list[tuple[Text, Text]] = [
    (Text("✔", RED), Text("Created plant 7 (Fern)", RED)),
    (Text("sent"), Text('{"id": 7, "name": "' + "Fern " * 30 + '"}')),
    (Text("to send"), Text("x" * 150)),
    (Text(""), Text("The plant was not created.\nCheck the URL.", Style(italic=True))),
    (Text("⚑", RED), Text("日本語の植物" * 9 + " 🌿🌿🌿")),
]


def _cells(lines: list[list[Segment]]) -> list[list[tuple[str, Style | None]]]:
    return [[(char, segment.style) for segment in line for char in segment.text] for line in lines]


def _by_table(entry: Entry, console: Console, width: int) -> list[list[Segment]]:
    rendered = console.render(entry.renderable(), console.options.update_width(width))
    return [
        list(line)
        for line in Segment.split_and_crop_lines(rendered, width, pad=True, include_new_lines=False)
    ]


@pytest.mark.parametrize("width", [5, 10, 11, 12, 20, 37, 64, 101])
@pytest.mark.parametrize("rows", [0, 1, 2, 5], ids=lambda rows: f"{rows}-rows")
def test_an_entrys_lines_are_the_tables_cell_for_cell(width: int, rows: int) -> None:
    console = Console(width=200, color_system="truecolor", force_terminal=True)
    entry = Entry(
        Text("09:30:15  #1  POST http://127.0.0.1:8000/plants  200  3.1 ms"), tuple(ROWS[:rows])
    )
    lines = entry.lines(console, width)
    assert all(sum(segment.cell_length for segment in line) == width for line in lines)
    assert _cells(lines) == _cells(_by_table(entry, console, width))


def test_an_entry_wide_enough_for_its_columns_is_drawn_without_a_table(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The table measured every cell twice and laid out both columns: a third of the cost of an
    # answer's entry, drawn once for every plant sent.
    console = Console(width=200, color_system="truecolor", force_terminal=True)
    entry = Entry(Text("09:30:15  #1  POST http://127.0.0.1:8000/plants  200"), tuple(ROWS))
    expected = _cells(_by_table(entry, console, 64))

    def no_table(*args: object, **kwargs: object) -> None:
        raise AssertionError("a table was built")

    monkeypatch.setattr(log_entry.Table, "grid", no_table)
    assert _cells(entry.lines(console, 64)) == expected


@pytest.mark.parametrize("width", [50, 61, 62])
def test_a_header_too_long_for_the_log_breaks_before_its_state_not_inside_its_time(
    width: int,
) -> None:
    # At 110 columns the log is 62 wide: the header's time went to the next line alone, or
    # broke between "412.7" and "ms".
    console = Console(width=200, color_system="truecolor", force_terminal=True)
    head = "09:30:15  #1  POST http://127.0.0.1:18777/plants  "
    entry = Entry(Text(head + "200  412.7 ms"), tuple(ROWS[:1]), state_at=len(head))
    lines = [
        "".join(char for char, _ in line).rstrip() for line in _cells(entry.lines(console, width))
    ]
    assert lines[:2] == [head.rstrip(), "  200  412.7 ms"]
    assert all(
        sum(segment.cell_length for segment in line) == width
        for line in entry.lines(console, width)
    )


def test_a_header_that_fits_stays_one_line() -> None:
    console = Console(width=200, color_system="truecolor", force_terminal=True)
    head = "09:30:15  #1  POST http://127.0.0.1:18777/plants  "
    entry = Entry(Text(head + "200  412.7 ms"), tuple(ROWS[:1]), state_at=len(head))
    first = "".join(char for char, _ in _cells(entry.lines(console, 80))[0]).rstrip()
    assert first == head + "200  412.7 ms"
