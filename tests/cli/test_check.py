"""`typed-elicit check`: every form a module declares or names, checked on every revision, exit codes too."""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import sys
from pathlib import Path

import pytest

from tests.cli.running import BAD_AT_IMPORT, BAD_ON_OLD_CLIENTS, GOOD_FORMS, ROOT, run
from typed_elicit._cli import (
    EXIT_OK,
    EXIT_PROBLEMS,
)
from typed_elicit.errors import SchemaError

pytestmark = pytest.mark.slow  # most tests run the command in a subprocess or a terminal


def test_check_passes_clean_modules(tmp_path: Path) -> None:
    (tmp_path / "good.py").write_text(GOOD_FORMS)

    code, out = run("check", f"{tmp_path}/good.py")

    assert code == EXIT_OK
    assert "checked 1 form model(s) on 2025-06-18, 2025-11-25, 2026-07-28: 0 problems" in out


def test_check_passes_a_page_form_with_secrets_and_still_reports_its_other_problems(tmp_path: Path) -> None:
    (tmp_path / "login.py").write_text(
        "from pydantic import BaseModel, SecretStr\n"
        "from typed_elicit import form\n"
        "@form(page=True)\n"
        "class Login(BaseModel):\n"
        "    password: SecretStr\n"
        "    otp: str\n"
        "@form(page=True)\n"
        "class Nested(BaseModel):\n"
        "    login: Login\n"
        "    pair: tuple[int, int]\n"
    )

    code, out = run("check", f"{tmp_path}/login.py")

    assert code == EXIT_PROBLEMS
    assert "Nested.pair: tuple[int, int] cannot be asked on a page" in out
    assert "Nested.login" not in out
    assert "Login.password" not in out
    assert "2 form model(s)" in out


def test_check_lists_every_schema_error_of_every_module_and_exits_1(tmp_path: Path) -> None:
    for name, text in {
        "good.py": GOOD_FORMS,
        "old.py": BAD_ON_OLD_CLIENTS,
        "broken.py": BAD_AT_IMPORT,
    }.items():
        (tmp_path / name).write_text(text)

    code, out = run("check", *(f"{tmp_path}/{name}" for name in ("good.py", "old.py", "broken.py")))

    lines = out.splitlines()
    assert code == EXIT_PROBLEMS
    assert any("Topics [2025-06-18]: Topics.topics: multi-select" in line for line in lines)
    # A bad model does not stop its module's import inside the check: Login, after Nested, is read too.
    every = "[2025-06-18, 2025-11-25, 2026-07-28]"
    assert any(
        f":Nested {every}: Nested.inner: dict[str, int] cannot be elicited (no free-form "
        "objects on the wire); declare one field per key (a page can ask for key/value rows" in line
        for line in lines
    )
    assert any(f":Nested {every}: Nested.also: " in line for line in lines)
    assert any(f":Login {every}: Login.password: the name suggests a secret" in line for line in lines)
    assert lines[-1] == "checked 4 form model(s) on 2025-06-18, 2025-11-25, 2026-07-28: 4 problems"


def test_check_leaves_forms_raising_at_import_outside_the_check(tmp_path: Path) -> None:
    (tmp_path / "broken.py").write_text(BAD_AT_IMPORT)
    sys.path.insert(0, str(tmp_path))
    try:
        with pytest.raises(SchemaError, match="Nested cannot be elicited"):
            importlib.import_module("broken")
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("broken", None)


def test_check_lists_every_bad_form_of_a_module_once_the_first_is_fixed(tmp_path: Path) -> None:
    fixed = BAD_AT_IMPORT.replace("inner: dict[str, int]", "inner: int").replace(
        "also: list[dict[str, int]]", ""
    )
    (tmp_path / "fixed.py").write_text(fixed)

    code, out = run("check", f"{tmp_path}/fixed.py")

    assert code == EXIT_PROBLEMS
    assert ":Login [2025-06-18, 2025-11-25, 2026-07-28]: Login.password: the name suggests a secret" in out
    assert out.splitlines()[-1].endswith(": 1 problem")


def test_check_reports_a_bad_model_listed_in_elicits_at_import(tmp_path: Path) -> None:
    (tmp_path / "tool.py").write_text(
        "from pydantic import BaseModel\n"
        "from typed_elicit import ElicitContext, elicits\n"
        "class Loose(BaseModel):\n"
        "    blob: bytes\n"
        "@elicits(Loose)\n"
        "async def tool(ctx: ElicitContext) -> None: ...\n"
    )

    code, out = run("check", f"{tmp_path}/tool.py")

    assert code == EXIT_PROBLEMS
    assert ":Loose [2025-06-18, 2025-11-25, 2026-07-28]: Loose.blob: bytes cannot be elicited" in out


def test_check_can_be_limited_to_some_revisions(tmp_path: Path) -> None:
    (tmp_path / "old.py").write_text(BAD_ON_OLD_CLIENTS)

    code, out = run("check", f"{tmp_path}/old.py", "--protocol", "2025-11-25", "--protocol", "2026-07-28")

    assert code == EXIT_OK
    assert out.endswith("on 2025-11-25, 2026-07-28: 0 problems\n")


@pytest.mark.parametrize("example", sorted(path.name for path in (ROOT / "examples").glob("*.py")))
def test_every_example_is_checkable(example: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    extra, expected_code, expected = EXAMPLE_CHECKS.get(example, ([], EXIT_OK, ""))

    code, out = run("check", f"examples/{example}", *extra)

    assert code == expected_code, out
    assert expected in out
    if expected_code == EXIT_OK:
        assert int(out.splitlines()[-1].split("checked ", 1)[1].split(" ", 1)[0]) > 0


EXAMPLE_CHECKS: dict[str, tuple[list[str], int, str]] = {
    # The client examples ask nothing: check says so and exits 1.
    "ci_responder.py": ([], EXIT_PROBLEMS, "no form model found"),
    "client_handler.py": ([], EXIT_PROBLEMS, "no form model found"),
    "complete_page_client.py": ([], EXIT_PROBLEMS, "no form model found"),
    "pinned_client.py": ([], EXIT_PROBLEMS, "no form model found"),
    # Its only tool ends the call with a URL (-32042) and asks no form.
    "drive_link.py": ([], EXIT_PROBLEMS, "no form model found"),
    # Shows that 2025-06-18 has no multi-select.
    "declaring_models.py": (
        [],
        EXIT_PROBLEMS,
        "Registration [2025-06-18]: Registration.topics: multi-select fields need protocol 2025-11-25",
    ),
    # A multi-select shaped per call: for clients of 2025-11-25 and later.
    "split_bill.py": (["--protocol", "2025-11-25", "--protocol", "2026-07-28"], EXIT_OK, "1 form model(s)"),
}
