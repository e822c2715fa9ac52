"""The mistakes in profiles.toml, said at the TUI's start: at once in a notification, and each
kept in the log. The words are the core's (`Finding`), the command line's too (cli/findings.py)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

from plantstore_tui.core.config.files import PROFILES_FILE
from plantstore_tui.core.plant.text import visible

if TYPE_CHECKING:
    from plantstore_tui.core.config.findings import Finding
    from plantstore_tui.ui.widgets.response_log import ResponseLog

# The most mistakes one notification lists (the log keeps every one), and how long it stays.
SHOWN = 3
SECONDS = 15


def tell_findings(
    log: ResponseLog, notify: Callable[..., None], now: datetime, findings: tuple[Finding, ...]
) -> None:
    """Say the findings in one notification, and put each in the log, where it stays.

    The notification names the file in its title and each mistake by its line: a long path
    would push the nearest key out of a small toast. The log has the path too."""
    said = [visible(str(finding)) for finding in findings]
    brief = [visible(finding.without_path()) for finding in findings]
    shown = brief if len(brief) <= SHOWN else brief[: SHOWN - 1]
    more = [f"And {len(brief) - len(shown)} more: the log lists each."] if shown != brief else []
    notify(
        "\n\n".join([*shown, *more]),
        title=f"{'Mistakes' if len(said) > 1 else 'A mistake'} in {PROFILES_FILE}",
        severity="warning",
        timeout=SECONDS,
        # The words name tables in brackets ([profiles.NAME]): text, never markup.
        markup=False,
    )
    for words in said:
        log.add_note(words, now)
