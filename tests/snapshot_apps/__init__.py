"""Apps and helpers for the TUI tests: canned outcomes, fixed clocks, readers of the log."""
