"""Verified entry: each plant keyed twice, the second time blind, and compared field by field
before it counts, as data-entry trades verify (the IBM 129's verify mode, CSPro's verify mode,
REDCap's double data entry).

Two keyings agree when they make the same plant: an id keyed `007` once and `7` the next is the
same id, a name with a space after it the same name. Where they differ, nothing is taken until
the operator settles each differing field: keyed a third time, or one of the two picked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple, TypeAlias

from plantstore_tui.core.plant.form import FORM_FIELDS, FormField, FormTexts

if TYPE_CHECKING:
    from plantstore_tui.core.plant.models import NewPlant


class KeyAgain(NamedTuple):
    """The first keying is kept, not taken: the form clears for the same plant, keyed blind."""

    first: FormTexts


class Differs(NamedTuple):
    """The two keyings make different plants: nothing is taken until each of `fields` is
    settled (`settle`)."""

    first: FormTexts
    second: FormTexts
    fields: tuple[FormField, ...]

    def settle(self, chosen: dict[FormField, str]) -> tuple[FormTexts, int]:
        """The plant as settled: each differing field's text as chosen (one of the two, or
        keyed a third time), the others as both keyings had them; and how many fields were
        corrected (each differing field counts once)."""
        missing = [field for field in self.fields if field not in chosen]
        if missing:
            raise ValueError(f"not settled: {', '.join(missing)}")
        settled = self.second._replace(**{field: chosen[field] for field in self.fields})
        return settled, len(self.fields)


class Agreed(NamedTuple):
    """Both keyings make the same plant: it may be taken, as the second keying typed it."""

    texts: FormTexts


Keyed: TypeAlias = KeyAgain | Differs | Agreed


def differing(first: NewPlant, second: NewPlant) -> tuple[FormField, ...]:
    """The fields, in the form's order, whose values differ between two plants."""
    return tuple(field for field in FORM_FIELDS if getattr(first, field) != getattr(second, field))


class Verification:
    """The keying of one plant at a time: the first keying waits here for the second."""

    def __init__(self) -> None:
        self._first: tuple[FormTexts, NewPlant] | None = None

    @property
    def first(self) -> FormTexts | None:
        """The first keying, while it waits for the second (never to be shown: the second is
        keyed blind)."""
        return None if self._first is None else self._first[0]

    def keyed(self, texts: FormTexts, plant: NewPlant) -> Keyed:
        """A valid plant keyed: the first keying (kept, `KeyAgain`), or the second, compared with
        the first (`Agreed` or `Differs`; either way the next plant starts afresh)."""
        if self._first is None:
            self._first = (texts, plant)
            return KeyAgain(texts)
        first_texts, first_plant = self._first
        self._first = None
        fields = differing(first_plant, plant)
        if not fields:
            return Agreed(texts)
        return Differs(first_texts, texts, fields)

    def forget(self) -> None:
        """Drop a first keying (verification turned off, the form emptied by the operator)."""
        self._first = None
