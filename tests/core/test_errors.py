"""One exception family: every exception the core defines derives from `PlantStoreError` and says
in a docstring what it means."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

from plantstore_tui import core
from plantstore_tui.core.errors import PlantStoreError

# Packages whose exceptions join the family on branches not merged yet (config: ConfigError and its
# family; http: InvalidBaseURL, CABundleError...). Whoever merges those branches empties this list.
NOT_YET_IN_THE_FAMILY = ("plantstore_tui.core.config.", "plantstore_tui.core.http.")


def _exceptions() -> list[type[BaseException]]:
    found: list[type[BaseException]] = []
    for module_info in pkgutil.walk_packages(core.__path__, prefix="plantstore_tui.core."):
        module = importlib.import_module(module_info.name)
        found += [
            value
            for value in vars(module).values()
            if inspect.isclass(value)
            and issubclass(value, BaseException)
            and value.__module__ == module.__name__
        ]
    return found


EXCEPTIONS = _exceptions()


def _name(exception: type[BaseException]) -> str:
    return f"{exception.__module__}.{exception.__qualname__}"


def _checked(exception: type[BaseException]) -> bool:
    return not _name(exception).startswith(NOT_YET_IN_THE_FAMILY)


def test_every_core_exception_derives_from_plant_store_error() -> None:
    strays = [_name(e) for e in EXCEPTIONS if _checked(e) and not issubclass(e, PlantStoreError)]
    assert strays == []


def test_every_core_exception_has_a_docstring() -> None:
    undocumented = [_name(e) for e in EXCEPTIONS if _checked(e) and not (e.__doc__ or "").strip()]
    assert undocumented == []


@pytest.mark.parametrize("package", NOT_YET_IN_THE_FAMILY)
def test_the_leftovers_are_still_left_over(package: str) -> None:
    # Once a leftover package's exceptions have all joined the family, it must leave the list, so
    # the test checks it from then on.
    in_package = [e for e in EXCEPTIONS if _name(e).startswith(package)]
    assert not all(issubclass(e, PlantStoreError) and e.__doc__ for e in in_package), (
        f"every exception of {package} is in the family now: remove it from NOT_YET_IN_THE_FAMILY"
    )


def test_the_walk_finds_the_known_families() -> None:
    names = {_name(e) for e in EXCEPTIONS}
    assert {
        "plantstore_tui.core.errors.PlantStoreError",
        "plantstore_tui.core.store.database.StoreError",
        "plantstore_tui.core.importing.files.FileProblem",
    } <= names
