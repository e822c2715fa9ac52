"""What the import screen says of a checked file: its verdict (cannot be read, bad rows, or
every row valid and whether it went to this target before) and the bad rows listed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text

from plantstore_tui.core.plant.text import plural, visible

if TYPE_CHECKING:
    from plantstore_tui.core.importing import CheckedFile, Validation


@dataclass(frozen=True, slots=True)
class Verdict:
    """The words under the file's path, their look ("-ok", "-bad"), and the bad rows if any."""

    text: Text
    kind: str
    problems: Text | None = None


def _problems_text(checked: CheckedFile, validation: Validation) -> Text:
    shown = visible(checked.name)
    lines = [visible(problem.where(shown)) for problem in validation.problems]
    hidden = validation.problem_count - len(validation.problems)
    if hidden:
        lines.append(f"… and {plural(hidden, 'more bad row')} not listed")
    return Text("\n".join(lines))


def verdict_of(checked: CheckedFile) -> Verdict:
    """What the check of `checked` found, in words."""
    shown = visible(checked.name)
    validation = checked.validation
    if validation is None:
        return Verdict(
            Text(f"This file cannot be read as plants; nothing was sent.\n{checked.problem}"),
            "-bad",
        )
    if not validation.ok:
        return Verdict(
            Text(
                f"{shown}: {plural(validation.problem_count, 'bad row')} of {validation.rows:,}; "
                "nothing will be sent. Fix the file, then check it again (Enter in the path)."
            ),
            "-bad",
            _problems_text(checked, validation),
        )
    assert checked.fmt is not None
    words = (
        f"{shown}: {plural(validation.valid, 'plant')}, every row valid "
        f"({checked.fmt.value}, {plural(validation.size, 'byte')})."
    )
    if checked.ledger_problem is not None:
        words += f"\nCannot send: {visible(checked.ledger_problem)}"
    elif checked.earlier is not None and checked.earlier.running is not None:
        words += (
            f"\nCannot send: {checked.earlier.running.words()}. Check it again once that "
            "import has ended."
        )
    elif checked.earlier is not None:
        words += "\nImported to this target before: Send offers to resume or restart."
    elif checked.created:
        count = len(checked.created)
        words += (
            f"\n{plural(count, 'row')} {'has an id' if count == 1 else 'have ids'} created on "
            "this target before: left out, not sent again."
        )
    return Verdict(Text(words), "-ok" if checked.sendable else "-bad")
