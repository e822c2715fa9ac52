"""The root of every exception the product raises on purpose.

Each front end translates a `PlantStoreError` into words (the CLI's exit codes, the TUI's
notices); anything else that reaches a front end is a bug. A send's result is never an exception:
outcomes (`core.plant.outcome`) are values.
"""

from __future__ import annotations


class PlantStoreError(Exception):
    """Something the operator must be told in words: a file, a setting or a target that cannot
    be used. Its `str()` is those words."""


class InputError(PlantStoreError):
    """What the operator gave to be read as input (a file of plants) cannot be; the command line
    ends it as invalid input (exit 2), not as a setting that cannot be used (exit 4)."""
