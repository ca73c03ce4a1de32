"""A question about a model declaring an app view, on a server that serves none (issue 27, item 10)."""

from __future__ import annotations

import io
import logging
from pathlib import Path

import anyio
import pytest
from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel

from tests.conftest import BOUND
from typed_elicit import ElicitContext, elicits, form
from typed_elicit._cli import main
from typed_elicit.testing import ScriptedUser, accept, connect

pytestmark = pytest.mark.anyio


@form(app=True)
class Ship(BaseModel):
    city: str


async def test_a_declared_app_view_no_server_serves_is_said_once_and_the_form_still_asked(
    caplog: pytest.LogCaptureFixture,
) -> None:
    server = MCPServer("unserved")

    @server.tool()
    @elicits
    async def ship(ctx: ElicitContext) -> str:
        return type(await ctx.elicit(Ship)).__name__

    caplog.set_level(logging.WARNING, logger="typed_elicit")
    user = ScriptedUser(accept(city="Oslo"), accept(city="Rome"))
    async with connect(server, "2025-11-25", elicitation_callback=user) as client:
        with anyio.fail_after(BOUND):
            first = await client.call_tool("ship", {})
            second = await client.call_tool("ship", {})
    assert first.content[0].text == second.content[0].text == "Accepted"  # type: ignore[union-attr]
    told = [r.getMessage() for r in caplog.records if "declares an app view" in r.getMessage()]
    assert len(told) == 1
    assert "serve_apps(server)" in told[0]
    assert "Oslo" not in told[0]


def test_check_reports_a_model_declaring_an_app_view_when_no_server_serves_one(tmp_path: Path) -> None:
    (tmp_path / "unserved_views.py").write_text(
        "from mcp.server.mcpserver import MCPServer\n"
        "from pydantic import BaseModel\n"
        "from typed_elicit import form\n"
        "server = MCPServer('shop')\n"
        "@form(app=True)\n"
        "class Basket(BaseModel):\n"
        "    item: str\n"
    )
    out = io.StringIO()
    code = main(["check", str(tmp_path / "unserved_views.py")], out=out)
    assert code == 1
    assert (
        "Basket: it declares an app view (@form(app=...)), but no server here ('shop') serves"
        in out.getvalue()
    )


def test_check_says_nothing_of_app_views_when_a_server_serves_them(tmp_path: Path) -> None:
    (tmp_path / "served_views.py").write_text(
        "from mcp.server.mcpserver import MCPServer\n"
        "from pydantic import BaseModel\n"
        "from typed_elicit import form\n"
        "from typed_elicit.apps import serve_apps\n"
        "server = MCPServer('shop')\n"
        "@form(app=True)\n"
        "class Cart(BaseModel):\n"
        "    item: str\n"
        "serve_apps(server)\n"
    )
    out = io.StringIO()
    assert main(["check", str(tmp_path / "served_views.py")], out=out) == 0, out.getvalue()
