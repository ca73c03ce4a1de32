"""`typed-elicit demo`: an example or a user's server run in memory, answered by a script or a person."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pexpect
import pytest

from tests.cli.running import CLI, ROOT, answer_wizard, pty_env, run
from typed_elicit import PROTOCOL_VERSIONS, ProtocolVersion
from typed_elicit._cli import (
    EXIT_OK,
    EXIT_PROBLEMS,
    EXIT_USAGE,
)

pytestmark = pytest.mark.slow  # most tests run the command in a subprocess or a terminal


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
        env=pty_env(),
        encoding="utf-8",
        timeout=30,
        dimensions=(50, 200),
    )

    child.expect(r"you answer")
    answer_wizard(child, environment="2", cpu="8", memory="16")
    child.expect(r"<= Deployed demo to production \(8 cores, 16GB, auto_scale=False\)")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == EXIT_OK


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
        "build_server() cannot be called with the --factory-arg values given (missing a required "
        "argument: 'public_url'); it takes: public_url" in capsys.readouterr().err
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
        ("named.py:other_name", ["--factory-arg", "colour=red"], "unexpected keyword argument 'colour'"),
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
