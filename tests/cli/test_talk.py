"""`typed-elicit call`: a real server's tool called, its questions answered from values or in a terminal."""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest
from mcp_types import INVALID_PARAMS, ElicitRequestFormParams, ElicitRequestURLParams, ElicitResult, ErrorData

from tests.cli.running import CLI, INTEROP, ROOT, WIZARD, answer_wizard, pty_env, run
from typed_elicit import PROTOCOL_VERSIONS, ProtocolVersion
from typed_elicit._cli import (
    EXIT_CONNECTION,
    EXIT_OK,
    EXIT_PROBLEMS,
    EXIT_USAGE,
    CommandLineAnswers,
)

pytestmark = pytest.mark.slow  # most tests run the command in a subprocess or a terminal


# --- call ----------------------------------------------------------------------------------


@pytest.mark.parametrize("version", ["auto", *PROTOCOL_VERSIONS])
def test_call_answers_a_multi_step_wizard_over_stdio_through_a_pty(version: str) -> None:
    child = pexpect.spawn(
        CLI[0],
        [*CLI[1:], "call", WIZARD, "deploy", "--arg", "app_name=web", "--protocol", version],
        cwd=str(ROOT),
        env=pty_env(),
        encoding="utf-8",
        timeout=30,
        dimensions=(50, 200),
    )

    child.expect(r"connected: protocol (\S+)\r\n")
    negotiated = child.match.group(1)
    # Every era goes through the testing kit's era_target; 2026-07-28 discovers the server's name.
    answer_wizard(child, environment="production", cpu="4", memory="8", who="deployment-wizard")
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
