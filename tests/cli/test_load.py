"""Loading the user's code for a command: a module or a file, its submodules, and what fails to import."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.running import BAD_ON_OLD_CLIENTS, GOOD_FORMS, run
from typed_elicit._cli import (
    EXIT_OK,
    EXIT_PROBLEMS,
    EXIT_USAGE,
)

pytestmark = pytest.mark.slow  # most tests run the command in a subprocess or a terminal


def test_schema_accepts_a_file_path(tmp_path: Path) -> None:
    (tmp_path / "forms.py").write_text(GOOD_FORMS)

    code, out = run("schema", f"{tmp_path}/forms.py:Fine")

    assert code == EXIT_OK
    assert json.loads(out)["required"] == ["name"]


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("no_such_module_xyz:Model", "no module named 'no_such_module_xyz'"),
        ("tests.client_servers:Nothing", "is not a pydantic model"),
        ("tests.client_servers", "expected MODULE:Model"),
        ("missing/file.py:Model", "no such file"),
    ],
)
def test_schema_reports_bad_targets_as_usage_errors(
    target: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _ = run("schema", target)

    assert code == EXIT_USAGE
    assert message in capsys.readouterr().err


def test_a_module_that_fails_to_import_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "broken_syntax.py").write_text("def (:\n")
    (tmp_path / "needs_missing.py").write_text("import no_such_dependency_xyz\n")
    monkeypatch.chdir(tmp_path)

    assert run("check", "broken_syntax.py")[0] == EXIT_USAGE
    assert "cannot import broken_syntax.py: SyntaxError" in capsys.readouterr().err
    assert run("check", "needs_missing")[0] == EXIT_USAGE
    assert "cannot import needs_missing: No module named 'no_such_dependency_xyz'" in capsys.readouterr().err


def test_check_walks_the_submodules_of_a_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "formpkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "old.py").write_text(BAD_ON_OLD_CLIENTS)
    monkeypatch.chdir(tmp_path)

    code, out = run("check", "formpkg")

    assert code == EXIT_PROBLEMS
    assert "formpkg.sub.old:Topics [2025-06-18]" in out
