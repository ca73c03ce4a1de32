"""What a module's source names: the models of tools a factory registers, found without running it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.running import run
from typed_elicit._cli import (
    EXIT_OK,
    EXIT_PROBLEMS,
)

pytestmark = pytest.mark.slow  # most tests run the command in a subprocess or a terminal


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
