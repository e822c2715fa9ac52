"""The TUI's send queue: plants the form took, sent one at a time in the order they were typed."""
