"""What `probe -v` adds to a probe's lines, and `history show pN` shows of its timings: where the
time went, a line a phase, and the exchange as it went on the wire. Everything a server sent goes
through `visible` and is bounded as the rest of `probe`'s output is; the token was taken out of
every name and value before it got here (`core/http/wire.py`)."""

from __future__ import annotations

from plantstore_tui.core.http.probe import ProbeAnswer
from plantstore_tui.core.http.timings import OTHER_WORDS, Timings
from plantstore_tui.core.http.wire import Wire, shown_bytes
from plantstore_tui.core.plant.text import plural, shorten, visible

# A header's value is shown to this many characters, as in probe's other lines.
_HEADER_SHOWN = 120
_LABEL = 11


def timing_lines(timings: Timings, indent: str = "  ") -> list[str]:
    """A line a phase with its milliseconds (or why it has none), then the total."""
    lines = []
    for phase, ms in timings.phases():
        words = timings.words(phase)
        shown = f"{ms:>7.1f} ms" if ms is not None else f"{'-':>7}   "
        lines.append(f"{indent}{phase.label:<{_LABEL}}{shown}  {words}".rstrip())
    if timings.other_ms is not None:
        lines.append(f"{indent}{'other':<{_LABEL}}{timings.other_ms:>7.1f} ms  {OTHER_WORDS}")
    if timings.total_ms is not None:
        lines.append(f"{indent}{'total':<{_LABEL}}{timings.total_ms:>7.1f} ms")
    return lines


def _headers(pairs: tuple[tuple[str, str], ...]) -> list[str]:
    return [
        f"    {visible(name)}: {visible(shorten(value, _HEADER_SHOWN, what=name))}"
        for name, value in pairs
    ]


def _body(data: bytes, size: int) -> list[str]:
    if not size:
        return ["  no body"]
    return [f"  body, {plural(size, 'byte')}:"] + [
        f"    {line}" for line in shown_bytes(data, size).splitlines()
    ]


def wire_lines(wire: Wire) -> list[str]:
    """The request line, headers and body as sent; the status line, headers and body as
    received (or that nothing was)."""
    lines = [
        "Sent on the wire:",
        f"  {visible(wire.request_line)}",
        *_headers(wire.request_headers),
        *_body(wire.request_body, len(wire.request_body)),
        "Received on the wire:",
    ]
    if wire.status_line is None:
        lines.append("  nothing: no answer came")
        return lines
    lines.append(f"  {visible(wire.status_line)}")
    lines.extend(_headers(wire.answer_headers))
    lines.extend(_body(wire.answer_body, wire.answer_size))
    return lines


def render_verbose(answer: ProbeAnswer) -> str:
    """`probe -v`'s lines after the answer: its timings and its wire."""
    lines = []
    if answer.timings is not None:
        lines.extend(["Timings:", *timing_lines(answer.timings)])
    if answer.wire is not None:
        lines.extend(wire_lines(answer.wire))
    if not lines:
        lines.append("Nothing went on the wire: the request was not sent.")
    return "\n".join(lines)
