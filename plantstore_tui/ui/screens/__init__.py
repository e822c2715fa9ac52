"""The TUI's screens: sending plants, and help."""
