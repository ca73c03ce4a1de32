"""CHANGELOG.md lists every moved or renamed name with its new home; the errors page and glossary hold."""

from __future__ import annotations

import re
from pathlib import Path

import typed_elicit
import typed_elicit.client
import typed_elicit.errors
import typed_elicit.pages
import typed_elicit.stores
from typed_elicit._core.deprecation import MOVED_IN

ROOT = Path(__file__).resolve().parent.parent
CHANGELOG = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
ERRORS_PAGE = (ROOT / "docs" / "errors.md").read_text(encoding="utf-8")
PAGES_MOVED = {"url_required": "typed_elicit", "UrlElicitation": "typed_elicit"}
"""What `typed_elicit.pages.__getattr__` forwards (its map is inline in the function)."""
CLIENT_MOVED = {"InvalidAnswer": "typed_elicit.errors:InvalidResponse"}
"""What `typed_elicit.client.__getattr__` forwards."""
SHIMS = {
    "typed_elicit.terminal": "typed_elicit.client.terminal",
    "typed_elicit.pytest_plugin": "typed_elicit.testing.pytest_plugin",
}


def moved_release() -> str:
    """The changelog section of the release in which the names moved."""
    return CHANGELOG.split(f"## [{MOVED_IN}]", 1)[1].split("\n## [", 1)[0]


def rows_naming(name: str) -> list[str]:
    return [line for line in moved_release().splitlines() if line.startswith(f"| `{name}`")]


def new_home(target: str, name: str) -> str:
    module, _, new_name = target.partition(":")
    return f"{module}.{new_name or name}"


def test_every_name_that_moved_or_was_renamed_has_a_row_naming_its_new_home() -> None:
    maps = {
        "typed_elicit": typed_elicit.MOVED,
        "typed_elicit.stores": typed_elicit.stores._RENAMED,
        "typed_elicit.pages": PAGES_MOVED,
        "typed_elicit.client": CLIENT_MOVED,
    }
    for old_module, moved in maps.items():
        for name, target in moved.items():
            rows = rows_naming(name)
            assert rows, f"CHANGELOG.md: {old_module}.{name} has no row"
            assert any(f"`{new_home(target, name)}`" in row for row in rows), (name, rows)


def test_the_forwarding_maps_the_changelog_is_checked_against_are_the_modules_own() -> None:
    import warnings

    for module, moved in ((typed_elicit.pages, PAGES_MOVED), (typed_elicit.client, CLIENT_MOVED)):
        for name, target in moved.items():
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                value = getattr(module, name)
            new_module, _, new_name = target.partition(":")
            assert value is getattr(__import__(new_module, fromlist=["_"]), new_name or name)
            assert any(issubclass(w.category, DeprecationWarning) for w in caught)


def test_every_deprecated_module_shim_is_in_the_changelog_with_its_new_home() -> None:
    for old, new in SHIMS.items():
        assert (ROOT / Path(*old.split("."))).with_suffix(".py").is_file(), old
        assert any(f"`{old}`" in row and f"`{new}`" in row for row in rows_naming(old)), old


def test_the_changelog_has_every_version_from_0_1_0_newest_first() -> None:
    versions = re.findall(r"^## \[([\w.]+)\]", CHANGELOG, re.M)
    assert versions == ["Unreleased", "0.3.0", "0.2.0", "0.1.0"]


def test_the_errors_page_has_a_section_for_every_error_with_its_attributes_and_fix() -> None:
    sections = dict(re.findall(r"^## `(\w+)`\n(.*?)(?=^## |\Z)", ERRORS_PAGE, re.S | re.M))
    assert sorted(sections) == sorted(typed_elicit.errors.__all__)
    for name, body in sections.items():
        assert "**Raised:**" in body, name
        assert "**Attributes:**" in body, name
        assert "**Fix:**" in body, name
        assert f"(reference/typed_elicit.errors.md#typed_elicit.errors.{name})" in body, name


def test_the_errors_page_draws_the_tree_of_the_errors_module_docstring() -> None:
    doc = typed_elicit.errors.__doc__
    assert doc is not None
    (tree,) = re.findall(r"```\n(.*?)```", doc, re.S)
    assert f"```text\n{tree}```" in ERRORS_PAGE


def test_every_error_attribute_the_page_names_exists_on_the_class() -> None:
    sections = dict(re.findall(r"^## `(\w+)`\n(.*?)(?=^## |\Z)", ERRORS_PAGE, re.S | re.M))
    for name, body in sections.items():
        cls = getattr(typed_elicit.errors, name)
        line = body.split("**Attributes:**", 1)[1].split("\n\n", 1)[0]
        if "none of its own" in line:
            continue
        for attribute in re.findall(r"(?:^ |, )`(\w+)`", line):
            assert (
                attribute in cls.__init__.__code__.co_varnames
                or any(
                    attribute in vars(klass) or attribute in getattr(klass, "__annotations__", {})
                    for klass in cls.__mro__
                )
                or attribute in (cls.__doc__ or "")
            ), f"{name}.{attribute}"
