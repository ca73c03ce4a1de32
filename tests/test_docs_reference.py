"""The API reference (docs/reference/) covers every public name, each with a docstring.

One page per public module renders it with mkdocstrings; its `members:` list is the module's
`__all__`, so a name added to the surface without a reference entry fails here, and so does
a public name whose docstring (as mkdocstrings reads it, with griffe) is empty.
"""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys
from functools import cache
from pathlib import Path

import griffe
import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "docs" / "reference"
PUBLIC_MODULES = (
    "typed_elicit",
    "typed_elicit.errors",
    "typed_elicit.hooks",
    "typed_elicit.stores",
    "typed_elicit.fallback",
    "typed_elicit.pages",
    "typed_elicit.apps",
    "typed_elicit.client",
    "typed_elicit.client.terminal",
    "typed_elicit.testing",
    "typed_elicit.logs",
)
"""The public modules, in the order the reference section lists them."""

DIRECTIVE = re.compile(r"^::: (\S+)\n    options:\n      members:\n((?:        - \w+\n)+)", re.M)


def page_of(module: str) -> Path:
    return REFERENCE / f"{module}.md"


def documented_members(module: str) -> list[str]:
    """The names the module's reference page renders (its `::: module` directive's members)."""
    text = page_of(module).read_text(encoding="utf-8")
    (match,) = [m for m in DIRECTIVE.finditer(text) if m[1] == module]
    return [line.strip().removeprefix("- ") for line in match[2].splitlines()]


@cache
def griffe_package() -> griffe.Module:
    loader = griffe.GriffeLoader(docstring_parser=griffe.Parser.google)
    package = loader.load("typed_elicit")
    loader.resolve_aliases(external=False)
    assert isinstance(package, griffe.Module)
    return package


def griffe_object(dotted: str) -> griffe.Object:
    package = griffe_package()
    path = dotted.removeprefix("typed_elicit").lstrip(".")
    found = package[path] if path else package
    return found.final_target if isinstance(found, griffe.Alias) else found


def nav_pages() -> list[str]:
    class Loader(yaml.SafeLoader):
        pass

    Loader.add_multi_constructor("tag:yaml.org,2002:python/name:", lambda *_: None)
    Loader.add_multi_constructor("!", lambda *_: None)
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=Loader)

    def walk(item: object) -> list[str]:
        if isinstance(item, str):
            return [item]
        if isinstance(item, dict):
            return [page for value in item.values() for page in walk(value)]
        if isinstance(item, list):
            return [page for value in item for page in walk(value)]
        return []

    return walk(config["nav"])


@pytest.mark.parametrize("module", PUBLIC_MODULES)
def test_each_public_module_has_a_reference_page_rendering_exactly_its_all(module: str) -> None:
    names = importlib.import_module(module).__all__
    assert page_of(module).is_file(), f"docs/reference/{module}.md is missing"
    assert sorted(documented_members(module)) == sorted(names), f"docs/reference/{module}.md's members"


def test_no_reference_page_documents_a_module_that_is_not_public() -> None:
    assert sorted(path.stem for path in REFERENCE.glob("*.md")) == sorted(PUBLIC_MODULES)


def test_the_reference_section_of_the_nav_lists_every_public_module_in_order() -> None:
    pages = [page for page in nav_pages() if page.startswith("reference/")]
    assert pages == [f"reference/{module}.md" for module in PUBLIC_MODULES]


@pytest.mark.parametrize("module", PUBLIC_MODULES)
def test_every_public_name_and_module_has_a_docstring_the_reference_can_show(module: str) -> None:
    assert griffe_object(module).docstring is not None, f"{module} has no module docstring"
    missing = []
    for name in importlib.import_module(module).__all__:
        docstring = griffe_object(f"{module}.{name}").docstring
        if docstring is None or not docstring.value.strip():
            missing.append(name)
    assert missing == [], f"{module}: public names without a docstring"


def test_the_lazily_loaded_redis_store_is_visible_to_the_reference() -> None:
    # `RedisStore` is loaded by the module's `__getattr__` at run time; griffe reads the
    # `TYPE_CHECKING` import instead, so the reference renders the class itself.
    target = griffe_object("typed_elicit.stores.RedisStore")
    assert target.path == "typed_elicit.stores._redis.RedisStore"
    assert target.is_class


@pytest.mark.slow
def test_the_built_site_has_an_entry_for_every_public_name_on_its_module_page(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(tmp_path)],
        cwd=ROOT,
        check=True,
        timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    for module in PUBLIC_MODULES:
        html = (tmp_path / "reference" / module / "index.html").read_text(encoding="utf-8")
        anchors = set(re.findall(r'id="([\w.]+)"', html))
        missing = [
            name for name in importlib.import_module(module).__all__ if f"{module}.{name}" not in anchors
        ]
        assert missing == [], f"{module}: no reference entry in the built site"


def test_the_top_level_page_groups_every_top_level_name_by_what_a_server_does_with_it() -> None:
    import typed_elicit

    intro = page_of("typed_elicit").read_text(encoding="utf-8").split("\n::: ", 1)[0]
    grouped = set(re.findall(r"`(\w+)`", intro.split("by what a server does with them:", 1)[1]))
    assert set(typed_elicit.__all__) <= grouped
    assert grouped - set(typed_elicit.__all__) <= {"typed_elicit"}
