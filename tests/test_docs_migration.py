"""docs/migration.md: each row's imports work as it says, the table is whole, its grep finds the old names."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

import typed_elicit
import typed_elicit.stores
from tests.test_docs_changelog import CLIENT_MOVED, PAGES_MOVED, SHIMS, new_home
from typed_elicit._core.deprecation import MOVED_IN, REMOVED_IN

ROOT = Path(__file__).resolve().parent.parent
PAGE = (ROOT / "docs" / "migration.md").read_text(encoding="utf-8")
CHANGELOG = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
BEFORE = ROOT / "examples" / "migration_before.py"
AFTER = ROOT / "examples" / "migration_after.py"
ROW = re.compile(r"^\| `([^`]+)` \| `([^`]+)` \| ([\w.]+) \| ([\w.]+) \|$", re.M)


def rows() -> list[tuple[str, str, str, str]]:
    """The table's rows: old import, new import, since, removed in."""
    found = ROW.findall(PAGE)
    assert found, "docs/migration.md has no table of moved names"
    return found


def module_of(statement: str) -> str:
    """The module an import statement reads: `from M import x` and `import M` give M."""
    match = re.fullmatch(r"from ([\w.]+) import \w+|import ([\w.]+)", statement)
    assert match, f"not a one-name import: {statement!r}"
    return match[1] or match[2]


def run_import(statement: str, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, list[str]]:
    """What the statement binds (the module, for `import M`), and the deprecation messages it raised."""
    module = module_of(statement)
    if module in SHIMS:  # a shim warns when it is first imported: import it afresh
        monkeypatch.delitem(sys.modules, module, raising=False)
    namespace: dict[str, Any] = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exec(statement, namespace)  # the page's own import statements
    messages = [str(w.message) for w in caught if issubclass(w.category, DeprecationWarning)]
    if statement.startswith("import "):
        return sys.modules[module], messages
    return namespace[statement.rsplit(" ", 1)[1]], messages


@pytest.mark.parametrize(("old", "new", "since", "removed"), rows(), ids=lambda cell: cell)
def test_each_rows_old_import_warns_naming_the_new_one_and_both_give_the_same_object(
    old: str, new: str, since: str, removed: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    new_value, new_warnings = run_import(new, monkeypatch)
    old_value, old_warnings = run_import(old, monkeypatch)
    assert new_warnings == []
    assert old_warnings, f"{old} raised no DeprecationWarning"
    assert all(module_of(new) in message for message in old_warnings), old_warnings
    if old.startswith("import "):  # a module shim: it re-exports the new module's names
        assert all(getattr(old_value, name) is getattr(new_value, name) for name in old_value.__all__)
    else:
        assert old_value is new_value
    assert since == MOVED_IN
    assert f"\n## [{since}]: " in CHANGELOG
    assert removed == REMOVED_IN


def test_the_table_has_a_row_for_every_name_that_moved_or_was_renamed_and_every_shim() -> None:
    maps = {
        "typed_elicit": typed_elicit.MOVED,
        "typed_elicit.stores": typed_elicit.stores._RENAMED,  # pyright: ignore[reportPrivateUsage]
        "typed_elicit.pages": PAGES_MOVED,
        "typed_elicit.client": CLIENT_MOVED,
    }
    table = {old: new for old, new, _, _ in rows()}
    for old_module, moved in maps.items():
        for name, target in moved.items():
            old = f"from {old_module} import {name}"
            assert old in table, f"docs/migration.md has no row for {old}"
            module, _, new_name = new_home(target, name).rpartition(".")
            assert table[old] == f"from {module} import {new_name}", old
    for old_module, new_module in SHIMS.items():
        shim_rows = [(module_of(old), module_of(new)) for old, new in table.items()]
        assert (old_module, new_module) in shim_rows, old_module


def grep_command() -> str:
    (block,) = [b for b in re.findall(r"^```bash\n(.*?)^```", PAGE, re.S | re.M) if "grep " in b]
    return str(block)


@pytest.mark.skipif(not (shutil.which("grep") and shutil.which("bash")), reason="needs grep and bash")
def test_the_grep_on_the_page_finds_every_old_import_of_the_table_and_no_new_one(tmp_path: Path) -> None:
    old_lines = [old for old, _, _, _ in rows()] + ['pytest_plugins = ["typed_elicit.pytest_plugin"]']
    (tmp_path / "old.py").write_text("\n".join(old_lines) + "\n", encoding="utf-8")
    (tmp_path / "new.py").write_text("\n".join(new for _, new, _, _ in rows()) + "\n", encoding="utf-8")
    shutil.copy(BEFORE, tmp_path / "before.py")
    shutil.copy(AFTER, tmp_path / "after.py")

    done = subprocess.run(
        ["bash", "-c", grep_command()], cwd=tmp_path, capture_output=True, text=True, timeout=30, check=True
    )
    hits = [line.split(":", 2) for line in done.stdout.splitlines()]

    assert sorted(int(number) for name, number, _ in hits if name == "./old.py") == list(
        range(1, len(old_lines) + 1)
    )
    assert {name for name, _, _ in hits} == {"./old.py", "./before.py"}
    before = BEFORE.read_text(encoding="utf-8").splitlines()
    old_names = ("SchemaError, configure", "InProcessClaimStore")
    expected = [i for i, line in enumerate(before, 1) if any(name in line for name in old_names)]
    assert sorted(int(number) for name, number, _ in hits if name == "./before.py") == expected


def run_example(path: Path, *options: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *options, str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=ROOT,
    )


@pytest.mark.slow
def test_the_before_program_warns_four_times_and_stops_under_w_error_and_the_after_program_does_not():
    before, after = run_example(BEFORE), run_example(AFTER, "-W", "error::DeprecationWarning")
    stopped = run_example(BEFORE, "-W", "error::DeprecationWarning")

    assert before.returncode == 0, before.stderr
    assert after.returncode == 0, after.stderr
    assert before.stdout == after.stdout
    assert before.stdout.splitlines() == ["booked 2 seats", "refused at definition: Limits"]
    assert before.stderr.count("DeprecationWarning:") == 4
    assert after.stderr == ""
    assert stopped.returncode != 0
    assert "moved to typed_elicit.errors.InvalidResponse" in stopped.stderr.splitlines()[-1]
