"""plantstore-tui: a terminal application for adding plants to a Plant Store deployment."""

__version__ = "0.2.0"
