"""The house's shape (issue 19): the test tree mirrors the package, and the facade stays small.

The layer contracts themselves are import-linter's (`[tool.importlinter]` in pyproject.toml,
run by `.ci/run`); docs/architecture.md describes them.
"""

from __future__ import annotations

import inspect
from pathlib import Path

import typed_elicit
from typed_elicit import ElicitContext

PACKAGE = Path(typed_elicit.__file__).parent
TESTS = Path(__file__).parent

CROSS_CUTTING = {"docs", "public", "security", "bench", "house"}
"""Top-level test modules named after a concern that spans the package instead of one of its parts."""

FACES = {
    "hooks": "observe/test_hooks.py",
    "logs": "observe/test_logs.py",
    "terminal": "client/test_terminal.py",
    "pytest_plugin": "testing/test_kit.py",
}
"""Top-level modules that only re-export (0.3's faces, 0.2's shims), and the tests of their code."""


def bare(name: str) -> str:
    return name.removeprefix("_")


def packages() -> dict[str, set[str]]:
    """Each package of typed_elicit (by its bare name) with the bare names of its modules."""
    return {
        bare(path.name): {bare(module.stem) for module in path.glob("*.py") if module.stem != "__init__"}
        for path in sorted(PACKAGE.iterdir())
        if (path / "__init__.py").exists()
    }


def test_every_test_file_is_named_after_a_module_of_the_package_its_directory_mirrors() -> None:
    parts = packages()
    unmatched = []
    for path in sorted(TESTS.glob("*/test_*.py")):
        if path.parent.name == "typing":
            continue
        names = {path.parent.name, *parts.get(path.parent.name, ())}
        if path.parent.name not in parts or not any(
            path.stem == f"test_{name}" or path.stem.startswith(f"test_{name}_") for name in names
        ):
            unmatched.append(str(path.relative_to(TESTS)))
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


def test_every_package_and_every_face_has_its_tests() -> None:
    untested = [name for name in packages() if not list((TESTS / name).glob("test_*.py"))]
    top_level = {bare(path.stem) for path in PACKAGE.glob("*.py") if path.stem != "__init__"}
    assert top_level == set(FACES)
    untested += [name for name, tests in FACES.items() if not (TESTS / tests).is_file()]
    assert untested == []


def test_the_facade_elicit_context_is_at_most_300_lines() -> None:
    lines, _ = inspect.getsourcelines(ElicitContext)
    assert len(lines) <= 300


def test_no_file_of_the_package_is_over_600_lines() -> None:
    long = {
        str(path.relative_to(PACKAGE)): length
        for path in sorted(PACKAGE.rglob("*.py"))
        if (length := len(path.read_text(encoding="utf-8").splitlines())) > 600
    }
    assert long == {}
