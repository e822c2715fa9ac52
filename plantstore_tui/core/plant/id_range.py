"""A profile's range of ids (`ids = "70000-70999"` in profiles.toml): the block of ids one
operator proposes and sends from, so that operators on one deployment never collide. Next id
(`core/sending/next_id.py`) stays in it; the form warns of an id typed outside it."""

from __future__ import annotations

import re
from typing import NamedTuple

from plantstore_tui.core.plant.form import INT64_MAX, INT64_MIN
from plantstore_tui.core.plant.text import plural

# FIRST-LAST, each an int64 with an optional sign ("-100--1" is a range of negative ids).
_RANGE = re.compile(r"\s*([+-]?[0-9]{1,30})\s*-\s*([+-]?[0-9]{1,30})\s*")
# The ids left in a range are said once this few remain.
ENDING = 10


class IdRange(NamedTuple):
    """The ids from `first` to `last`, both included."""

    first: int
    last: int

    def __str__(self) -> str:
        return f"{self.first}-{self.last}"

    def holds(self, plant_id: int) -> bool:
        """True when `plant_id` is in the range."""
        return self.first <= plant_id <= self.last

    def left_from(self, plant_id: int) -> int:
        """How many ids of the range are left from `plant_id` on, `plant_id` included."""
        return max(0, self.last - max(plant_id, self.first) + 1)


def parse_id_range(text: str) -> IdRange | str:
    """The range `text` spells (FIRST-LAST), or the words saying why it is not one."""
    found = _RANGE.fullmatch(text)
    if found is None:
        return 'ids must be a range of ids written FIRST-LAST, such as "70000-70999"'
    first, last = int(found[1]), int(found[2])
    if not (INT64_MIN <= first <= INT64_MAX and INT64_MIN <= last <= INT64_MAX):
        return f"ids must lie between {INT64_MIN} and {INT64_MAX} (the ids a plant can have)"
    if first > last:
        return f"ids must go from the lower id to the higher: {first} is more than {last}"
    return IdRange(first, last)


def range_warning(ids: IdRange, plant_id: int) -> str | None:
    """Words for an id outside the range, or among its last `ENDING` ids; None otherwise."""
    if not ids.holds(plant_id):
        return f"{plant_id} is outside this profile's ids ({ids})."
    left = ids.left_from(plant_id)
    if left > ENDING:
        return None
    return f"{plural(left, 'id')} left in {ids}, this one included."


def used_up_words(ids: IdRange) -> str:
    """Words for a range whose every id is taken (short: they sit under the ID field)."""
    return f"No id is left in {ids}: type one."
