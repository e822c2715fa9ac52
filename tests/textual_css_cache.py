"""Textual's parsed CSS, shared by every app a test process starts.

Each Textual app parses the CSS of its widgets again (Textual keeps what it parsed per
stylesheet, and a re-parse makes a new stylesheet), about a tenth of a second of CPU per app, for
the same text with the same variables every time. The suite starts hundreds of apps: this keeps
the rules parsed from one (text, place, variables) for the rest of the process. Textual already
hands one parsed rule set to every parse of its stylesheet and never changes it afterwards; CSS
that does not parse is not kept, so its error is raised each time as before.
"""

from __future__ import annotations

from typing import Any

from textual.css.model import RuleSet
from textual.css.stylesheet import Stylesheet

_parsed: dict[tuple[object, ...], list[RuleSet]] = {}


def share_parsed_css() -> None:
    """Have every Stylesheet of this process use and fill the shared rules (done once)."""
    parse_rules = Stylesheet._parse_rules
    if getattr(parse_rules, "shared", False):
        return

    def shared_parse_rules(
        self: Stylesheet,
        css: str,
        read_from: Any,
        is_default_rules: bool = False,
        tie_breaker: int = 0,
        scope: str = "",
    ) -> list[RuleSet]:
        variables = frozenset(self._variables.items())
        key = (css, read_from, is_default_rules, tie_breaker, scope, variables)
        rules = _parsed.get(key)
        if rules is None:
            rules = parse_rules(self, css, read_from, is_default_rules, tie_breaker, scope)
            if not any(rule.errors for rule in rules):
                _parsed[key] = rules
        return rules

    shared_parse_rules.shared = True  # type: ignore[attr-defined]  # marks the wrapper as installed
    Stylesheet._parse_rules = shared_parse_rules  # type: ignore[method-assign]  # test-only cache
