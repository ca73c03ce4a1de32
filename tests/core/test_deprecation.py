"""Names that moved: an old import path keeps working for one minor release, with a warning."""

from __future__ import annotations

import warnings

import pytest

from typed_elicit import errors
from typed_elicit._core.deprecation import REMOVED_IN, moved


def test_a_moved_name_comes_from_its_new_home_with_a_warning_naming_both_paths_and_the_release():
    with pytest.warns(DeprecationWarning, match="moved to") as caught:
        found = moved("old.place", "InvalidResponse", {"InvalidResponse": "typed_elicit.errors"})
    assert found is errors.InvalidResponse
    (warning,) = caught
    assert str(warning.message) == (
        "old.place.InvalidResponse moved to typed_elicit.errors.InvalidResponse; import it from there "
        f"(old.place.InvalidResponse goes in typed_elicit {REMOVED_IN})"
    )


def test_a_renamed_name_is_found_under_its_new_name():
    with pytest.warns(DeprecationWarning, match=r"old\.Bad moved to typed_elicit\.errors\.InvalidResponse"):
        found = moved("old", "Bad", {"Bad": "typed_elicit.errors:InvalidResponse"})
    assert found is errors.InvalidResponse


def test_a_name_that_never_lived_there_is_an_attribute_error_without_a_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(AttributeError, match="module 'old' has no attribute 'Nothing'"):
            moved("old", "Nothing", {"Bad": "typed_elicit.errors:InvalidResponse"})


def test_the_warning_points_at_the_line_that_imported_the_old_name():
    def old_module_getattr(name: str) -> object:  # what a shim's module `__getattr__` is
        return moved("old", name, {"InvalidResponse": "typed_elicit.errors"})

    with pytest.warns(DeprecationWarning, match="moved to") as caught:
        old_module_getattr("InvalidResponse")
    assert caught[0].filename == __file__
