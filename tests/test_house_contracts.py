"""Each import-linter contract of the house fails on a probe: a copy of the package with one bad import.

A contract that cannot fail protects nothing. Each probe copies the package and `pyproject.toml` to a
temporary directory, adds one import the contract forbids, and runs `lint-imports` there: that
contract must be reported broken (a probe may break another contract too: an import between two
optional parts also crosses their layer).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: pytest's own dependency
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"

PROBES = {
    "Layers:": ("_core/clock.py", "import typed_elicit._calls.call"),
    "The optional parts do not know each other": ("pages/_config.py", "import typed_elicit.apps"),
    "Declaring forms, observing and storing do not know each other": (
        "stores/_memory.py",
        "import typed_elicit._forms.reduce",
    ),
    "Nothing inside the package imports its faces back": ("_calls/call.py", "import typed_elicit.hooks"),
    "No import cycles": ("_calls/signals.py", "import typed_elicit._calls.elicits"),
    "Only the modules docs/architecture.md names ask which era": (
        "_calls/build.py",
        "import typed_elicit._core.eras",
    ),
}
"""Per contract (the start of its name): the module that gets the probe import, and the import."""


def contract_names() -> list[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return [contract["name"] for contract in config["tool"]["importlinter"]["contracts"]]


def test_every_contract_has_a_probe() -> None:
    names = contract_names()
    assert len(names) == len(PROBES)
    for start in PROBES:
        assert sum(name.startswith(start) for name in names) == 1, start


@pytest.mark.slow
@pytest.mark.parametrize("contract", list(PROBES))
def test_the_contract_is_reported_broken_when_a_probe_breaks_it(contract: str, tmp_path: Path) -> None:
    shutil.copytree(
        ROOT / "typed_elicit", tmp_path / "typed_elicit", ignore=shutil.ignore_patterns("__pycache__")
    )
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    module, probe = PROBES[contract]
    target = tmp_path / "typed_elicit" / module
    target.write_text(target.read_text(encoding="utf-8") + f"\n{probe}  # probe\n", encoding="utf-8")
    done = subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"],
        cwd=tmp_path,
        env={"PYTHONPATH": str(tmp_path), "PATH": str(LINT_IMPORTS.parent)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    report = " ".join(done.stdout.split())  # lint-imports wraps long contract names
    assert done.returncode != 0, report
    (name,) = [name for name in contract_names() if name.startswith(contract)]
    assert f"{' '.join(name.split())} BROKEN" in report, report
    assert "0 broken" not in report
