"""The import screen's question before sending: the target, the count, and resume or restart
when the file went to this target before."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text

from plantstore_tui.core.http.target import Target
from plantstore_tui.core.importing import CheckedFile
from plantstore_tui.core.plant.text import plural, visible
from plantstore_tui.ui.screens.confirm import Choice, ChoiceScreen


def import_question(
    target: Target, checked: CheckedFile, answered: Callable[[str], None]
) -> ChoiceScreen[str]:
    """The question; `answered` gets new, resume, restart or cancel."""
    assert checked.validation is not None
    valid = checked.validation.valid
    created = len(checked.created)
    # Rows whose ids the ledger knows as created here are left out, as `import` leaves them.
    sending = valid - created
    left_out = (
        f"\n{plural(created, 'row')} whose ids were created here before "
        f"{'is' if created == 1 else 'are'} left out."
        if created
        else ""
    )
    subject = Text()
    subject.append(visible(target.profile or "(no profile)"), style="bold")
    subject.append(f"\n{visible(target.base_url)}\n\n")
    protected = (
        "\nThis profile is marked protected: every send to it is confirmed first."
        if target.protected
        else ""
    )
    earlier = checked.earlier
    if earlier is None:
        subject.append(f"{plural(sending, 'plant')} from {visible(checked.name)}{left_out}")
        question = "Send to a protected profile?" if target.protected else "Import the file?"
        detail = (
            "Each row is written to the ledger before it is sent: a stopped import resumes "
            "without sending any row twice." + protected
        )
        choices = [
            Choice(
                f"Send {sending:,}",
                "Enter",
                "new",
                "import-go",
                "error" if target.protected else "primary",
            ),
            Choice("Cancel", "Esc", "cancel", "import-cancel"),
        ]
    else:
        counts = earlier.counts
        when = earlier.batch.started_at.astimezone()
        stands = (
            f"every row done: {counts.created:,} created, {counts.rejected:,} rejected"
            + ("" if counts.journaled == earlier.batch.rows else ", the others not kept")
            if earlier.batch.finished
            else f"{counts.created:,} created, {counts.rejected:,} rejected, "
            f"{counts.failed:,} not sent after a failure, {counts.unknown:,} unknown, "
            f"{earlier.never_sent:,} never sent"
        )
        subject.append(
            f"{visible(checked.name)} was imported here on {when:%Y-%m-%d %H:%M}:\n{stands}"
        )
        question = "Imported here before"
        unknown = (
            f"; the {counts.unknown:,} whose fate is unknown are left out (they may exist)"
            if counts.unknown
            else ""
        )
        detail = (
            f"Resume sends the {plural(earlier.to_resume, 'row')} not yet sent{unknown}. Restart "
            f"sends the {plural(sending, 'row')} whose ids are not known as created here again, "
            f"as a new import.{left_out}" + protected
        )
        choices = [
            Choice(f"Resume: send {earlier.to_resume:,}", "r", "resume", "import-resume"),
            Choice(f"Restart: send {sending:,}", "a", "restart", "import-restart"),
            Choice("Cancel", "Esc", "cancel", "import-cancel"),
        ]
    asking = ChoiceScreen(
        question,
        subject,
        detail,
        choices,
        cancel="cancel",
        danger=target.protected,
        answered=answered,
    )
    # Wider than the other questions, its words wrapped (import.tcss).
    asking.add_class("-import")
    return asking
