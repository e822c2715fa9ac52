"""What the TUI's start leaves in memory: the threads it starts after the first frame, and the
name tables it does not read."""

from __future__ import annotations
