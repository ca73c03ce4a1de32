"""The `typed-elicit` command: demo, schema, check and call, with their exit codes."""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest
from mcp_types import INVALID_PARAMS, ElicitRequestFormParams, ElicitRequestURLParams, ElicitResult, ErrorData

from tests.client_servers import Traveller
from typed_elicit import PROTOCOL_VERSIONS, ProtocolVersion, reduce_schema
from typed_elicit._cli import (
    EXIT_CONNECTION,
    EXIT_OK,
    EXIT_PROBLEMS,
    EXIT_USAGE,
    CommandLineAnswers,
    main,
    package_version,
)
from typed_elicit.errors import SchemaError

pytestmark = pytest.mark.slow  # most tests run the command in a subprocess or a terminal

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "typed_elicit._cli"]
WIZARD = f"{sys.executable} examples/deployment_wizard.py"
INTEROP = f"{sys.executable} tests/peers/servers/interop_server.py"

GOOD_FORMS = """
from pydantic import BaseModel
from typed_elicit import form

@form
class Fine(BaseModel):
    name: str
"""

BAD_ON_OLD_CLIENTS = """
from typing import Literal
from pydantic import BaseModel, Field
from typed_elicit import form

@form
class Topics(BaseModel):
    topics: list[Literal["a", "b"]] = Field(default_factory=list)
"""

BAD_AT_IMPORT = """
from pydantic import BaseModel
from typed_elicit import form

@form
class Nested(BaseModel):
    inner: dict[str, int]
    also: list[dict[str, int]]

@form
class Login(BaseModel):
    password: str
"""


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = main(list(argv), out=out)
    return code, out.getvalue()


# --- help and usage ------------------------------------------------------------------------


@pytest.mark.parametrize("command", [[], ["demo"], ["schema"], ["check"], ["call"]])
def test_every_subcommand_has_help_that_documents_the_exit_codes(command: list[str]) -> None:
    done = subprocess.run([*CLI, *command, "--help"], capture_output=True, text=True, timeout=60, check=False)

    assert done.returncode == EXIT_OK
    assert "usage: typed-elicit" in done.stdout
    assert "3    the server could not be reached" in done.stdout


def test_version_prints_the_installed_package_version() -> None:
    done = subprocess.run([*CLI, "--version"], capture_output=True, text=True, timeout=60, check=False)

    assert done.returncode == EXIT_OK
    assert done.stdout == f"typed-elicit {importlib.metadata.version('typed-elicit')}\n"


def test_version_says_so_when_the_package_is_importable_but_not_installed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def not_installed(name: str) -> str:
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", not_installed)

    assert package_version() == "(version unknown: typed-elicit is not installed, only importable)"


@pytest.mark.parametrize("command", ["demo", "call"])
def test_the_help_of_demo_and_call_documents_the_answer_syntax_for_every_kind(command: str) -> None:
    done = subprocess.run([*CLI, command, "--help"], capture_output=True, text=True, timeout=60, check=False)

    assert done.returncode == EXIT_OK
    assert '--answer extras=wifi,bag  or  --answer \'extras=["wifi","bag"]\'' in done.stdout
    assert "--answer cpu_cores=4  --answer auto_scale=true" in done.stdout
    assert "takes the option's value, not its title" in done.stdout


def test_a_missing_subcommand_is_a_usage_error() -> None:
    done = subprocess.run(CLI, capture_output=True, text=True, timeout=60, check=False)

    assert done.returncode == EXIT_USAGE
    assert "required: COMMAND" in done.stderr


# --- schema --------------------------------------------------------------------------------


@pytest.mark.parametrize("version", PROTOCOL_VERSIONS)
def test_schema_prints_the_wire_schema_of_a_model(version: ProtocolVersion) -> None:
    code, out = run("schema", "tests.client_servers:Traveller", "--protocol", version)

    assert code == EXIT_OK
    assert json.loads(out) == reduce_schema(Traveller, protocol_version=version)


def test_schema_can_include_the_dialect() -> None:
    code, out = run("schema", "tests.client_servers:Traveller", "--dialect")

    assert code == EXIT_OK
    assert json.loads(out)["$schema"].startswith("https://json-schema.org/")


def test_schema_accepts_a_file_path(tmp_path: Path) -> None:
    (tmp_path / "forms.py").write_text(GOOD_FORMS)

    code, out = run("schema", f"{tmp_path}/forms.py:Fine")

    assert code == EXIT_OK
    assert json.loads(out)["required"] == ["name"]


def test_schema_of_a_model_that_cannot_be_sent_on_a_revision_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "topics.py").write_text(BAD_ON_OLD_CLIENTS)

    code, _ = run("schema", f"{tmp_path}/topics.py:Topics", "--protocol", "2025-06-18")

    assert code == EXIT_PROBLEMS
    assert "multi-select" in capsys.readouterr().err


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


# --- check ---------------------------------------------------------------------------------


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


# --- demo ----------------------------------------------------------------------------------


def test_the_readme_demo_command_runs_off_a_terminal_with_a_scripted_user() -> None:
    done = subprocess.run(
        [*CLI, "demo"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
    )

    assert done.returncode == EXIT_OK, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("demo: deployment_wizard.py (server 'deployment-wizard'), protocol 2026-07-28")
    assert "<- deployment-wizard asks: Select deployment environment" in lines
    assert '-> accept {"environment": "staging"}' in lines
    assert lines[-1] == "<= Deployed demo to staging (1 cores, 1GB, auto_scale=False)"


@pytest.mark.parametrize("version", PROTOCOL_VERSIONS)
def test_the_demo_runs_on_every_era(version: ProtocolVersion) -> None:
    code, out = run(
        "demo", "--scripted", "--protocol", version, "--arg", "app_name=shop", "--answer", "cpu_cores=2"
    )

    assert code == EXIT_OK
    assert out.splitlines()[-1] == "<= Deployed shop to staging (2 cores, 1GB, auto_scale=False)"


def test_the_demo_runs_any_example_by_name() -> None:
    code, out = run("demo", "pizza_order", "--scripted")

    assert code == EXIT_OK
    assert "<- pizzeria asks:" in out


def test_the_demo_never_picks_the_fallback_companion_tool() -> None:
    code, out = run("demo", "fallback_wizard", "--scripted")

    assert code == EXIT_OK
    assert '=> call plan_trip {"traveller": "demo"}' in out.splitlines()
    assert "   city: City (text, at least 1 character, required)" in out.splitlines()
    assert "send_elicitation_result" not in out
    assert out.splitlines()[-1] == "<= demo: 2 nights in demo, by train."


def test_the_demo_names_the_other_tools_it_did_not_pick(tmp_path: Path) -> None:
    example = tmp_path / "two_tools.py"
    example.write_text(
        "from mcp.server.mcpserver import MCPServer\n"
        "from typed_elicit import install_fallback\n"
        "server = MCPServer('two')\n"
        "install_fallback(server)\n"
        "@server.tool()\n"
        "def first() -> str:\n"
        "    return 'one'\n"
        "@server.tool()\n"
        "def second() -> str:\n"
        "    return 'two'\n"
    )

    code, out = run("demo", str(example), "--scripted")

    assert code == EXIT_OK
    assert "(the server also has: second; pick one with --tool NAME)" in out.splitlines()
    assert out.splitlines()[-2:] == ["=> call first {}", "<= one"]


def test_the_demo_calls_the_companion_tool_only_when_asked_to(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run("demo", "fallback_wizard", "--scripted", "--tool", "send_elicitation_result")

    assert code == EXIT_PROBLEMS
    assert "=> call send_elicitation_result" in out
    assert "InvalidFallbackToken" in out
    capsys.readouterr()


def test_a_demo_server_with_only_the_companion_tool_says_to_name_a_tool(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    example = tmp_path / "only_fallback.py"
    example.write_text(
        "from mcp.server.mcpserver import MCPServer\n"
        "from typed_elicit import install_fallback\n"
        "server = MCPServer('empty')\n"
        "install_fallback(server)\n"
    )

    code, _ = run("demo", str(example), "--scripted")

    assert code == EXIT_USAGE
    assert (
        "the server has only 'send_elicitation_result', the fallback's companion tool; "
        "name a tool with --tool NAME" in capsys.readouterr().err
    )


def test_an_unknown_example_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _ = run("demo", "no_such_example", "--scripted")

    assert code == EXIT_USAGE
    assert "no example 'no_such_example'" in capsys.readouterr().err


def test_the_demo_answers_in_the_terminal_when_run_on_one() -> None:
    child = pexpect.spawn(
        CLI[0],
        [*CLI[1:], "demo"],
        cwd=str(ROOT),
        env=_pty_env(),
        encoding="utf-8",
        timeout=30,
        dimensions=(50, 200),
    )

    child.expect(r"you answer")
    _answer_wizard(child, environment="2", cpu="8", memory="16")
    child.expect(r"<= Deployed demo to production \(8 cores, 16GB, auto_scale=False\)")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == EXIT_OK


# --- call ----------------------------------------------------------------------------------


def _pty_env() -> dict[str, str]:
    """The terminal's environment, in English whatever the machine's language (the prompts follow it)."""
    quiet = {k: v for k, v in os.environ.items() if k not in ("LANGUAGE", "LC_ALL", "LC_MESSAGES")}
    return {**quiet, "LANG": "C.UTF-8", "PROMPT_TOOLKIT_NO_CPR": "1", "TERM": "xterm"}


def _answer_wizard(
    child: pexpect.spawn, *, environment: str, cpu: str, memory: str, who: str = "deployment-wizard"
) -> None:
    child.expect(rf"{who} asks:")
    child.expect(r"Select deployment environment")
    child.expect(r"Answer\?")
    child.sendline("")
    child.expect(r"1\) staging")
    child.expect(r"2\) production")
    child.expect(r"environment:")
    child.sendline(environment)
    child.expect(r"Configure resources for")
    child.expect(r"Answer\?")
    child.sendline("y")
    child.expect(r"cpu_cores:")
    child.sendline("0")
    child.expect(r"Enter 1 or more; try again")
    child.sendline(cpu)
    child.expect(r"memory_gb:")
    child.sendline(memory)
    child.expect(r"auto_scale \[n\]:")
    child.sendline("")


@pytest.mark.parametrize("version", ["auto", *PROTOCOL_VERSIONS])
def test_call_answers_a_multi_step_wizard_over_stdio_through_a_pty(version: str) -> None:
    child = pexpect.spawn(
        CLI[0],
        [*CLI[1:], "call", WIZARD, "deploy", "--arg", "app_name=web", "--protocol", version],
        cwd=str(ROOT),
        env=_pty_env(),
        encoding="utf-8",
        timeout=30,
        dimensions=(50, 200),
    )

    child.expect(r"connected: protocol (\S+)\r\n")
    negotiated = child.match.group(1)
    # Every era goes through the testing kit's era_target; 2026-07-28 discovers the server's name.
    _answer_wizard(child, environment="production", cpu="4", memory="8", who="deployment-wizard")
    child.expect(r"-> accept \{\"cpu_cores\": 4, \"memory_gb\": 8, \"auto_scale\": false\}")
    child.expect(r"<= Deployed web to production \(4 cores, 8GB, auto_scale=False\)")
    child.expect(pexpect.EOF)
    child.close()

    assert child.exitstatus == EXIT_OK
    assert negotiated == ("2026-07-28" if version == "auto" else version)


def test_call_off_a_terminal_answers_from_the_given_values(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    answers = ["--answer", "environment=staging", "--answer", "cpu_cores=2", "--answer", "memory_gb=4"]

    code, out = run("call", WIZARD, "deploy", "--arg", "app_name=web", *answers)

    assert code == EXIT_OK
    assert out.splitlines()[0] == "connected: protocol 2026-07-28"
    assert "   cpu_cores (whole number, at least 1, at most 64, required)" in out.splitlines()
    assert out.splitlines()[-1] == "<= Deployed web to staging (2 cores, 4GB, auto_scale=False)"


def test_call_off_a_terminal_declines_when_a_required_answer_is_missing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(ROOT)

    code, out = run("call", WIZARD, "deploy", "--arg", "app_name=web", "--scripted")

    assert code == EXIT_OK
    assert "-> decline" in out.splitlines()
    assert out.splitlines()[-1] == "<= Deployment cancelled"


def test_call_refuses_to_make_up_a_real_servers_missing_arguments(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(ROOT)

    code, out = run("call", WIZARD, "deploy", "--scripted", "--answer", "environment=staging")

    assert code == EXIT_USAGE
    assert "=> call" not in out
    assert (
        "typed-elicit call: the tool 'deploy' needs argument(s) that were not given: app_name (text); "
        "pass --arg app_name=VALUE" in capsys.readouterr().err
    )


ALL_KINDS_ANSWERS = [
    "--answer", "text=12345",
    "--answer", "email=ada@example.com",
    "--answer", "homepage=https://ada.example/",
    "--answer", "birthday=1815-12-10",
    "--answer", "meeting=2026-01-02T03:04:05Z",
    "--answer", "priority=2",
]  # fmt: skip


@pytest.mark.parametrize(
    ("toppings", "days", "expected"),
    [
        ("cheese,olives", '["tue","wed"]', {"toppings": ["cheese", "olives"], "days": ["tue", "wed"]}),
        ('["ham"]', "mon, wed", {"toppings": ["ham"], "days": ["mon", "wed"]}),
        ("olives", "", {"toppings": ["olives"], "days": []}),
    ],
)
def test_answer_takes_a_multi_select_as_commas_or_a_json_array_and_text_as_typed(
    monkeypatch: pytest.MonkeyPatch, toppings: str, days: str, expected: dict[str, list[str]]
) -> None:
    monkeypatch.chdir(ROOT)
    picks = ["--answer", f"toppings={toppings}", "--answer", f"days={days}"]

    code, out = run("call", INTEROP, "all_kinds", "--scripted", *ALL_KINDS_ANSWERS, *picks)

    assert code == EXIT_OK, out
    assert f"-> accept {json.dumps(expected)}" in out.splitlines()
    result = json.loads(out.split("\n<= ", 1)[1])
    assert result["choices"] == expected
    assert result["kinds"]["text"] == "12345"


def test_a_multi_select_answer_that_is_not_an_option_declines_and_says_why(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(ROOT)

    code, out = run(
        "call",
        INTEROP,
        "all_kinds",
        "--scripted",
        *ALL_KINDS_ANSWERS,
        "--answer",
        "toppings=cheese,pineapple",
    )

    assert code == EXIT_OK
    assert "-> decline" in out.splitlines()
    assert "toppings" in out.split("-> decline", 1)[1]
    assert json.loads(out.split("\n<= ", 1)[1]) == {"status": "declined", "step": 2}


def test_answers_to_an_unusable_form_or_a_url_are_refused_as_the_responder_refuses_them() -> None:
    answers = CommandLineAnswers({"a": "1"}, invent=False)
    hostile = ElicitRequestFormParams(
        message="Hi", requested_schema={"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}}
    )

    refused = answers.respond(hostile)
    declined = answers.respond(ElicitRequestURLParams(message="Pay", url="https://pay.example/?t=1"))

    assert isinstance(refused, ErrorData)
    assert refused.code == INVALID_PARAMS
    assert isinstance(declined, ElicitResult)
    assert declined.action == "decline"
    assert answers.values == {}


def test_a_given_answer_that_does_not_fit_declines(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)

    code, out = run(
        "call",
        WIZARD,
        "deploy",
        "--arg",
        "app_name=web",
        "--answer",
        "environment=staging",
        "--answer",
        "cpu_cores=0",
    )

    assert code == EXIT_OK
    assert out.splitlines()[-1] == "<= Deployment cancelled"


def test_a_tool_error_exits_1(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    expenses = f"{sys.executable} examples/expense_approval.py"

    code, out = run("call", expenses, "submit_expense", "--arg", "description=taxi", "--arg", "amount=lots")

    assert code == EXIT_PROBLEMS
    assert "<= error: Error executing tool submit_expense" in out
    assert "amount\n  Input should be a valid number" in out


@pytest.mark.parametrize(
    ("argv", "code", "message"),
    [
        (["call", WIZARD, "nope"], EXIT_USAGE, "no tool 'nope'; the server has: deploy"),
        (["call", WIZARD, "deploy", "--arg", "oops"], EXIT_USAGE, "--arg takes key=value"),
        (["call", "no-such-command-xyz", "t"], EXIT_CONNECTION, "No such file or directory"),
        (["call", "", "t"], EXIT_USAGE, "SERVER is empty"),
        (["call", "http://127.0.0.1:9/mcp", "t"], EXIT_CONNECTION, "the server failed"),
    ],
)
def test_call_failures_have_clear_messages_and_documented_exit_codes(
    argv: list[str],
    code: int,
    message: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(ROOT)

    assert run(*argv)[0] == code
    assert message in capsys.readouterr().err


def test_answering_without_asking_works_without_prompt_toolkit_installed() -> None:
    blocked = (
        "import sys; sys.modules['prompt_toolkit'] = None; "
        "from typed_elicit._cli import main; sys.exit(main(['demo', '--scripted']))"
    )

    done = subprocess.run(
        [sys.executable, "-c", blocked], capture_output=True, text=True, timeout=60, check=False, cwd=ROOT
    )

    assert done.returncode == EXIT_OK, done.stderr
    assert "<- deployment-wizard asks: Select deployment environment" in done.stdout


def test_asking_in_the_terminal_without_prompt_toolkit_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "prompt_toolkit" else real_find_spec(name, *a),
    )

    assert run("demo", "--interactive")[0] == EXIT_USAGE
    assert "pip install 'typed-elicit[cli]'" in capsys.readouterr().err

    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    code, out = run("demo")
    assert code == EXIT_OK
    assert "a scripted user answers" in out
    assert "answering without asking" in capsys.readouterr().err


# --- what a person reads: server text made safe, kinds in words (issue 18, items 7 and 15) ----

SPOOFING_SERVER = """
from typing import Annotated, Literal
from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, Field
from typed_elicit import ElicitContext, Titles, elicits

server = MCPServer("bank")

class Pay(BaseModel):
    to: Annotated[
        Literal["acme\\u202d", "evil"], Titles({"acme\\u202d": "Acme \\u202bLtd", "evil": "Evil"})
    ] = Field(title="Payee \\u202egnp.exe", description="Who \\u2066gets\\u2069 it")

@server.tool(name="pay\\u2067")
@elicits(Pay)
async def pay(ctx: ElicitContext) -> str:
    await ctx.elicit(Pay, message="Send \\u202e001$\\u202c now\\x1b[2J")
    return "paid \\u202e\\x1b[31m 10 \\u2069"
"""
BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"


@pytest.mark.parametrize("version", PROTOCOL_VERSIONS)
def test_the_transcript_shows_the_servers_bidi_controls_and_escapes_escaped(
    tmp_path: Path, version: ProtocolVersion
) -> None:
    (tmp_path / "spoof.py").write_text(SPOOFING_SERVER)

    code, out = run("demo", f"{tmp_path}/spoof.py", "--scripted", "--protocol", version)

    assert code == EXIT_OK, out
    lines = out.splitlines()
    assert "=> call pay\\u2067 {}" in lines
    assert any(line.endswith(" asks: Send \\u202e001$\\u202c now?[2J") for line in lines)
    assert "   to: Payee \\u202egnp.exe (one of: acme\\u202d, evil, required)" in lines
    assert lines[-1] == "<= paid \\u202e?[31m 10 \\u2069"
    assert not any(char in out for char in BIDI + "\x1b")


EVERY_KIND = """
from datetime import date, datetime
from typing import Literal
from mcp.server.mcpserver import MCPServer
from pydantic import AnyUrl, BaseModel, EmailStr, Field
from typed_elicit import ElicitContext, elicits

server = MCPServer("kinds")

class Everything(BaseModel):
    text: str = Field(max_length=5)
    count: int = Field(ge=1)
    ratio: float
    ok: bool = False
    mail: EmailStr
    site: AnyUrl
    day: date
    at: datetime
    pick: Literal["a", "b"]
    many: list[Literal["x", "y"]] = Field(default_factory=list, max_length=2)

@server.tool()
@elicits(Everything)
async def ask(ctx: ElicitContext) -> str:
    await ctx.elicit(Everything)
    return "done"
"""


def test_the_transcript_names_each_kind_of_field_in_words_not_wire_names(tmp_path: Path) -> None:
    (tmp_path / "kinds.py").write_text(EVERY_KIND)

    code, out = run("demo", f"{tmp_path}/kinds.py", "--scripted")

    assert code == EXIT_OK, out
    fields = [line for line in out.splitlines() if line.startswith("   ")]
    assert fields == [
        "   text (text, at most 5 characters, required)",
        "   count (whole number, at least 1, required)",
        "   ratio (number, required)",
        "   ok (yes/no, default false, optional)",
        "   mail (email, required)",
        "   site (URL, required)",
        "   day (date, required)",
        "   at (date and time, required)",
        "   pick (one of: a, b, required)",
        "   many (several of: x, y, at most 2 items, optional)",
    ]
    for wire_name in ("multi_choice", "choice", "integer", "boolean", "string", "uri", "date-time"):
        assert wire_name not in " ".join(fields)


def test_a_missing_tool_argument_is_named_with_its_kind_in_words(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "args.py").write_text(
        "from mcp.server.mcpserver import MCPServer\n"
        "server = MCPServer('args')\n"
        "@server.tool()\n"
        "def t(n: int, tags: list[str], flag: bool, name: str) -> str:\n"
        "    return 'x'\n"
        "server.run()\n"
    )

    code, _ = run("call", f"{sys.executable} {tmp_path}/args.py", "t", "--scripted")

    assert code == EXIT_USAGE
    assert (
        "needs argument(s) that were not given: n (whole number), tags (list, as JSON), "
        "flag (true or false), name (text)" in capsys.readouterr().err
    )


def test_a_decline_from_call_names_the_answer_flag_not_the_python_argument(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(ROOT)

    code, out = run("call", WIZARD, "deploy", "--arg", "app_name=web", "--answer", "environment=staging")

    assert code == EXIT_OK
    assert (
        "   because no value for required field(s) cpu_cores, memory_gb; "
        "pass --answer cpu_cores=VALUE --answer memory_gb=VALUE" in out.splitlines()
    )
    assert "values" not in out.split("because", 1)[1]


# --- schema: Choices() fields, page forms, no traceback (issue 18, item 10) -----------------


def test_schema_of_a_model_with_choices_prints_them_as_given_per_call(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)

    code, out = run("schema", "examples/pick_file.py:PickFile")

    assert code == EXIT_OK
    schema = json.loads(out)
    assert schema["properties"]["path"] == {"type": "string", "description": "One of the files that match"}
    assert schema["required"] == ["path"]
    note = capsys.readouterr().err
    assert "PickFile.path is a Choices() field: its options are given per call" in note
    assert "--option path=VALUE,VALUE" in note


@pytest.mark.parametrize(
    ("option", "expected"),
    [
        ("path=a.txt,b.txt", {"enum": ["a.txt", "b.txt"]}),
        ("path=a=Al,b=Bo", {"oneOf": [{"const": "a", "title": "Al"}, {"const": "b", "title": "Bo"}]}),
        ('path=["a,1.txt"]', {"enum": ["a,1.txt"]}),
        ('path={"a=1": "A"}', {"oneOf": [{"const": "a=1", "title": "A"}]}),
    ],
)  # fmt: skip
def test_schema_takes_the_options_of_a_choices_field(
    option: str, expected: dict[str, object], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)

    code, out = run("schema", "examples/pick_file.py:PickFile", "--option", option)

    assert code == EXIT_OK
    assert json.loads(out)["properties"]["path"] == {
        "type": "string",
        "description": "One of the files that match",
        **expected,
    }


def test_schema_takes_the_options_of_a_multi_select_and_refuses_it_where_the_revision_cannot(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(ROOT)

    code, out = run("schema", "examples/split_bill.py:Split", "--option", "friends=ann,bo")
    old, _ = run("schema", "examples/split_bill.py:Split", "--protocol", "2025-06-18")

    assert code == EXIT_OK
    friends = json.loads(out)["properties"]["friends"]
    assert friends["items"] == {"type": "string", "enum": ["ann", "bo"]}
    assert (friends["minItems"], friends["maxItems"]) == (1, 3)
    assert old == EXIT_PROBLEMS
    assert "Split.friends: multi-select fields need protocol 2025-11-25" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("pth=a", "Split.pth: is no field of Split"),
        ("share=a", "Split.share: is not a Choices() field"),
        ("friends=", "Split.friends: offers no options"),
        ("friends=a=A,b", "--option friends: give every option a title (VALUE=TITLE) or none"),
        ("friends", "--option takes FIELD=VALUE,VALUE,..."),
        ('friends=["a", 1]', "--option friends: expected a JSON list of strings"),
        (
            "friends=[a",
            "--option friends: expected a JSON list of strings or a JSON object of string to string; "
            "this is not valid JSON",
        ),
    ],
)
def test_schema_options_that_do_not_fit_are_usage_errors_that_say_why(
    option: str, message: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(ROOT)

    code, out = run("schema", "examples/split_bill.py:Split", "--option", option)

    assert code == EXIT_USAGE
    assert out == ""
    assert message in capsys.readouterr().err


def test_schema_of_a_page_form_prints_its_page_form_with_the_secret_fields_marked(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(ROOT)

    code, out = run("schema", "examples/link_bank.py:BankLogin", "--dialect")

    assert code == EXIT_OK
    schema = json.loads(out)
    assert schema["$schema"].startswith("https://json-schema.org/")
    assert list(schema["properties"]) == ["username", "password", "otp"]
    assert schema["properties"]["password"]["writeOnly"] is True
    assert schema["properties"]["otp"]["writeOnly"] is True
    assert "writeOnly" not in schema["properties"]["username"]
    note = capsys.readouterr().err
    assert "BankLogin is a page form (@form(page=True))" in note
    assert "secret fields (password inputs, never echoed): password, otp" in note


def test_schema_options_for_a_page_forms_plain_field_are_a_usage_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(ROOT)

    code, out = run("schema", "examples/link_bank.py:BankLogin", "--option", "username=a")

    assert (code, out) == (EXIT_USAGE, "")
    assert "BankLogin.username: is not a Choices() field" in capsys.readouterr().err


def test_schema_of_a_page_form_with_choices_shows_them_per_call_or_as_given(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(ROOT)

    code, out = run("schema", "examples/pay_invoice.py:Payment")
    bare, note = json.loads(out), capsys.readouterr().err
    given_code, given = run("schema", "examples/pay_invoice.py:Payment", "--option", "account=chk=Checking")

    assert (code, given_code) == (EXIT_OK, EXIT_OK)
    assert "enum" not in bare["properties"]["account"]
    assert "oneOf" not in bare["properties"]["account"]
    assert bare["properties"]["pin"]["writeOnly"] is True
    assert "Payment.account is a Choices() field: its options are given per call (ctx.elicit_page(" in note
    assert json.loads(given)["properties"]["account"]["oneOf"] == [{"const": "chk", "title": "Checking"}]


NOT_ELICITABLE = {
    "choices_on_an_int": (
        "from typing import Annotated\nfrom typed_elicit import Choices\n"
        "class M(BaseModel):\n    n: Annotated[int, Choices()]\n",
        "Choices() marks a str field",
    ),
    "no_fields": ("class M(BaseModel):\n    pass\n", "a model without fields asks nothing"),
    "a_secret": ("class M(BaseModel):\n    password: str\n", "the name suggests a secret"),
    "nested": ("class Inner(BaseModel):\n    x: int\nclass M(BaseModel):\n    inner: Inner\n", "nested"),
    "unresolved": ("class M(BaseModel):\n    x: 'Later'\n", "cannot be resolved"),
    "choices_selecting_more_than_any_question_may_offer": (
        "from typing import Annotated\nfrom pydantic import Field\nfrom typed_elicit import Choices\n"
        "class M(BaseModel):\n    n: Annotated[list[str], Choices(), Field(min_length=5000)]\n",
        "5000",
    ),
    "choices_marker_not_called": (
        "from typing import Annotated\nfrom typed_elicit import Choices\n"
        "class M(BaseModel):\n    n: Annotated[str, Choices]\n",
        "Choices is a marker to instantiate",
    ),
}


@pytest.mark.parametrize("case", NOT_ELICITABLE)
@pytest.mark.parametrize("with_options", [False, True])
def test_schema_of_a_model_that_cannot_be_elicited_prints_the_schema_error_without_a_traceback(
    case: str, with_options: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source, problem = NOT_ELICITABLE[case]
    (tmp_path / f"{case}.py").write_text(f"from pydantic import BaseModel\n{source}")
    options = ["--option", "n=a"] if with_options else []

    code, out = run("schema", f"{tmp_path}/{case}.py:M", *options)

    err = capsys.readouterr().err
    assert code in (EXIT_PROBLEMS, EXIT_USAGE)
    assert out == ""
    assert problem in err
    assert "Traceback" not in err


# --- check: models of factory-built servers, and of every example (issue 18, item 12) -------

FACTORY_SERVER = """
from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel
from typed_elicit import ElicitContext, elicits

class Confirm(BaseModel):
    ok: bool

class Loose(BaseModel):
    blob: bytes

def build_server() -> MCPServer:
    server = MCPServer("factory")

    @server.tool()
    @elicits(Confirm)
    async def confirm(ctx: ElicitContext) -> str:
        return "ok"

    @server.tool()
    @elicits
    async def upload(ctx: ElicitContext) -> str:
        await ctx.elicit(Loose)
        return "ok"

    return server
"""


def test_check_finds_the_models_of_tools_registered_inside_a_factory_function(tmp_path: Path) -> None:
    (tmp_path / "factory.py").write_text(FACTORY_SERVER)

    code, out = run("check", f"{tmp_path}/factory.py")

    assert code == EXIT_PROBLEMS
    assert ":Loose [2025-06-18, 2025-11-25, 2026-07-28]: Loose.blob: bytes cannot be elicited" in out
    assert out.splitlines()[-1] == "checked 2 form model(s) on 2025-06-18, 2025-11-25, 2026-07-28: 1 problem"


def test_check_finds_form_classes_that_no_module_attribute_names(tmp_path: Path) -> None:
    (tmp_path / "nested.py").write_text(
        "from pydantic import BaseModel\n"
        "from typed_elicit import form\n"
        "class Forms:\n"
        "    @form\n"
        "    class Inner(BaseModel):\n"
        "        name: str\n"
    )

    code, out = run("check", f"{tmp_path}/nested.py")

    assert code == EXIT_OK
    assert out == "checked 1 form model(s) on 2025-06-18, 2025-11-25, 2026-07-28: 0 problems\n"


def test_check_says_so_when_a_model_is_defined_inside_the_factory_where_it_cannot_see_it(
    tmp_path: Path,
) -> None:
    (tmp_path / "local.py").write_text(
        "from mcp.server.mcpserver import MCPServer\n"
        "from pydantic import BaseModel\n"
        "from typed_elicit import ElicitContext, elicits\n"
        "def build_server() -> MCPServer:\n"
        "    server = MCPServer('local')\n"
        "    class Hidden(BaseModel):\n"
        "        ok: bool\n"
        "    @server.tool()\n"
        "    @elicits(Hidden)\n"
        "    async def t(ctx: ElicitContext) -> str:\n"
        "        return 'ok'\n"
        "    return server\n"
    )

    code, out = run("check", f"{tmp_path}/local.py")

    assert code == EXIT_PROBLEMS
    assert (
        f"{tmp_path}/local.py:9: @elicits(...) names Hidden, a class defined inside a function, "
        "which check cannot import; define the model at module level" in out
    )


def test_check_of_a_module_without_any_form_model_exits_non_zero_and_says_what_it_looked_for(
    tmp_path: Path,
) -> None:
    (tmp_path / "empty.py").write_text(
        "from mcp.server.mcpserver import MCPServer\nserver = MCPServer('x')\n"
    )

    code, out = run("check", f"{tmp_path}/empty.py")

    assert code == EXIT_PROBLEMS
    assert f"{tmp_path}/empty.py: no form model found: no @form class" in out
    assert "no model named in @elicits(...)" in out
    assert out.splitlines()[-1].endswith(": 1 problem")


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


@pytest.mark.parametrize("example", sorted(path.name for path in (ROOT / "examples").glob("*.py")))
def test_every_example_is_checkable(example: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    extra, expected_code, expected = EXAMPLE_CHECKS.get(example, ([], EXIT_OK, ""))

    code, out = run("check", f"examples/{example}", *extra)

    assert code == expected_code, out
    assert expected in out
    if expected_code == EXIT_OK:
        assert int(out.splitlines()[-1].split("checked ", 1)[1].split(" ", 1)[0]) > 0


# --- demo: servers built by a factory (issue 18, item 17) ------------------------------------


def test_the_demo_runs_a_server_built_by_a_factory_found_by_its_name(monkeypatch: pytest.MonkeyPatch) -> None:
    # examples/replicated_transfer.py's build_server() uses TYPED_ELICIT_STORE: the tests' Redis database.
    monkeypatch.chdir(ROOT)

    code, out = run("demo", "replicated_transfer", "--scripted", "--answer", "amount=7")

    assert code == EXIT_OK, out
    lines = out.splitlines()
    assert lines[0].startswith("demo: replicated_transfer.py (server 'transfers', from build_server())")
    assert lines[-1] == "<= sent 7"


def test_the_demo_passes_factory_arguments_and_a_page_question_is_declined_by_the_scripted_user(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(ROOT)

    url = "public_url=http://127.0.0.1:8000"

    code, out = run("demo", "link_bank", "--scripted", "--factory-arg", url, "--protocol", "2025-11-25")

    assert code == EXIT_OK, out
    assert "   URL: http://127.0.0.1:8000/elicit-pages/" in "\n".join(out.splitlines())
    assert out.splitlines()[-1] == "<= The account was not linked."


def test_a_factory_that_needs_arguments_says_how_to_pass_them(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(ROOT)

    code, _ = run("demo", "link_bank", "--scripted")

    assert code == EXIT_USAGE
    assert (
        "build_server() needs argument(s) that were not given: public_url; "
        "pass --factory-arg public_url=VALUE" in capsys.readouterr().err
    )


NAMED = """
from mcp.server.mcpserver import MCPServer

def other_name(greeting: str = "hi", times: int = 1) -> MCPServer:
    server = MCPServer(greeting * times)

    @server.tool()
    def hello() -> str:
        return server.name

    return server

async def async_factory() -> MCPServer:
    return other_name("async ")

def not_a_factory() -> int:
    return 1

def broken() -> MCPServer:
    raise RuntimeError("no database")

app = MCPServer("app")
"""


@pytest.mark.parametrize(
    ("target", "extra", "result"),
    [
        ("named.py:other_name", [], "<= hi"),
        ("named.py:other_name", ["--factory-arg", "greeting=yo", "--factory-arg", "times=2"], "<= yoyo"),
        ("named.py:async_factory", [], "<= async "),
    ],
)
def test_the_demo_runs_a_factory_named_on_the_command_line(
    target: str, extra: list[str], result: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "named.py").write_text(NAMED)
    monkeypatch.chdir(tmp_path)

    code, out = run("demo", target, "--scripted", *extra)

    assert code == EXIT_OK, out
    assert out.splitlines()[-1] == result


@pytest.mark.parametrize(
    ("target", "extra", "message"),
    [
        (
            "named.py",
            [],
            "named.py has no MCPServer named `server` and no factory function build_server(), "
            "make_server() or create_server(); name the server or its factory: "
            "typed-elicit demo named.py:NAME",
        ),
        ("named.py:nothing", [], "named.py has no `nothing`"),
        ("named.py:not_a_factory", [], "not_a_factory() returned int, not an MCPServer"),
        ("named.py:broken", [], "broken() failed: RuntimeError: no database"),
        ("named.py:other_name", ["--factory-arg", "colour=red"], "other_name() takes no argument colour"),
        ("named.py:app", ["--factory-arg", "a=b"], "--factory-arg is for a factory; app is an MCPServer"),
    ],
)
def test_a_demo_target_without_a_usable_server_says_what_was_looked_for(
    target: str,
    extra: list[str],
    message: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    (tmp_path / "named.py").write_text(NAMED)
    monkeypatch.chdir(tmp_path)

    code, _ = run("demo", target, "--scripted", *extra)

    assert code == EXIT_USAGE
    assert message in capsys.readouterr().err


def test_the_demo_runs_a_module_level_server_named_on_the_command_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "named.py").write_text(NAMED + "\n@app.tool()\ndef ping() -> str:\n    return 'pong'\n")
    monkeypatch.chdir(tmp_path)

    code, out = run("demo", "named.py:app", "--scripted")

    assert code == EXIT_OK, out
    assert out.splitlines()[-1] == "<= pong"
