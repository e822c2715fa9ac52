"""The TUI's widgets: the plant form, the response log and the status line."""
