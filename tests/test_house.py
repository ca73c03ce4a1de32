"""The house's shape: the test tree mirrors the package module by module, and the facade stays small.

The layer contracts themselves are import-linter's (`[tool.importlinter]` in pyproject.toml, run by
`.ci/run`, each shown to fail on a probe in `tests/test_house_contracts.py`); docs/architecture.md
describes them.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import typed_elicit
from typed_elicit import ElicitContext

PACKAGE = Path(typed_elicit.__file__).parent
TESTS = Path(__file__).parent

CROSS_CUTTING = {"docs", "public", "security", "bench", "house", "release"}
"""Top-level test modules named after a concern that spans the package instead of one of its parts."""

TESTED_THROUGH: dict[str, str] = {
    "hooks": "a face (re-exports only): tests/observe/test_hooks.py tests the code",
    "logs": "a face (re-exports only): tests/observe/test_logs.py tests the code",
    "terminal": "the 0.2 shim of typed_elicit.client.terminal: tests/client/test_terminal.py",
    "pytest_plugin": "the 0.2 shim of testing.pytest_plugin: tests/testing/test_pytest_plugin.py",
    "cli/_main__": "`python -m typed_elicit._cli`, one line: tests/cli/test_parser.py runs it",
    "cli/common": "exit codes and help texts, no behaviour: tests/cli/test_parser.py checks the help",
    "core/clock": "`time.time()` behind a name tests replace to move time (tests/calls/test_call.py)",
    "core/versions": "the revisions' names, no behaviour: tests/core/test_eras.py checks them",
    "core/suspension": "a base class, no behaviour: tests/observe/test_telemetry.py sees its outcomes",
    "pages/config": "serve_pages's checked settings, a frozen record: tests/pages/test_serve.py checks them",
    "stores/redis_clients": "builds redis-py's clients: tests/stores/test_redis_cluster.py, _sentinel.py",
}
"""Modules without a test file of their own, each with where it is tested and why (keep it short)."""


def bare(name: str) -> str:
    return name.removeprefix("_")


def modules() -> dict[str, Path]:
    """Every module of the package by its bare path (`forms/page/tree`), faces and `__init__` left out."""
    found: dict[str, Path] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).with_suffix("")
        if relative.name != "__init__":
            found["/".join(bare(part) for part in relative.parts)] = path
    return found


def packages() -> set[str]:
    """Every package (and subpackage) of typed_elicit by its bare path (`forms/page`)."""
    return {
        "/".join(bare(part) for part in init.parent.relative_to(PACKAGE).parts)
        for init in PACKAGE.rglob("__init__.py")
        if init.parent != PACKAGE
    }


def files_testing(module: str) -> list[Path]:
    """The test files of a module (`test_<name>.py`, `test_<name>_<aspect>.py`) in its mirrored directory."""
    where, _, name = module.rpartition("/")
    directory = TESTS / where if where else TESTS
    return sorted([*directory.glob(f"test_{name}.py"), *directory.glob(f"test_{name}_*.py")])


def test_every_module_has_a_test_file_of_its_own_or_says_where_it_is_tested() -> None:
    untested = sorted(name for name in modules() if not files_testing(name) and name not in TESTED_THROUGH)
    assert untested == [], "add tests/<package>/test_<module>.py, or a line in TESTED_THROUGH saying why not"


def test_the_explained_list_names_only_modules_that_exist_and_have_no_tests_of_their_own() -> None:
    stale = sorted(name for name in TESTED_THROUGH if name not in modules() or files_testing(name))
    assert stale == []


def test_the_explained_list_stays_short_and_names_test_files_that_exist() -> None:
    assert len(TESTED_THROUGH) <= 15, "give a module a test file of its own rather than a line here"
    named = {found for reason in TESTED_THROUGH.values() for found in re.findall(r"tests/[\w/]+\.py", reason)}
    assert named
    assert sorted(path for path in named if not (TESTS.parent / path).is_file()) == []


def test_every_test_file_is_named_after_a_module_or_a_package_its_directory_mirrors() -> None:
    known = set(modules()) | packages()
    unmatched = []
    for path in sorted(TESTS.rglob("test_*.py")):
        relative = path.relative_to(TESTS)
        if relative.parts[0] in ("typing", "bench", "peers") or len(relative.parts) == 1:
            continue
        where = "/".join(relative.parts[:-1])
        stem = path.stem.removeprefix("test_")
        candidates = (
            {f"{where}/{stem.split('_')[0]}"}
            | {f"{where}/{stem[:i]}" for i in range(len(stem)) if stem[i] == "_"}
            | {f"{where}/{stem}"}
        )
        package_named = where in packages() and (
            stem == where.split("/")[-1] or stem.startswith(f"{where.split('/')[-1]}_")
        )
        if not (candidates & known) and not package_named:
            unmatched.append(str(relative))
    assert unmatched == []


def test_the_top_level_test_files_are_the_cross_cutting_suites_only() -> None:
    unmatched = [
        path.name
        for path in sorted(TESTS.glob("test_*.py"))
        if not any(
            path.stem == f"test_{name}" or path.stem.startswith(f"test_{name}_") for name in CROSS_CUTTING
        )
    ]
    assert unmatched == []


def test_the_facade_elicit_context_is_at_most_300_lines() -> None:
    source = (PACKAGE / "_calls" / "context.py").read_text(encoding="utf-8")
    (found,) = [node for node in ast.parse(source).body if isinstance(node, ast.ClassDef)]
    assert found.name == ElicitContext.__name__
    assert found.end_lineno is not None
    assert found.end_lineno - found.lineno + 1 <= 300


def test_no_file_of_the_package_is_over_600_lines() -> None:
    long = {
        str(path.relative_to(PACKAGE)): length
        for path in sorted(PACKAGE.rglob("*.py"))
        if (length := len(path.read_text(encoding="utf-8").splitlines())) > 600
    }
    assert long == {}
