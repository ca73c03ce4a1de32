"""The same tool over streamable HTTP on loopback, on every era."""

from __future__ import annotations

import anyio
import pytest
from mcp.server.mcpserver import MCPServer
from mcp_types import ElicitResult, TextContent
from pydantic import BaseModel

from tests.conftest import BOUND, serve_http
from typed_elicit import Accepted, Declined
from typed_elicit._calls.context import ElicitContext
from typed_elicit._calls.elicits import elicits
from typed_elicit.testing import ScriptedUser, accept, decline, send_raw

pytestmark = pytest.mark.anyio


class Environment(BaseModel):
    name: str


class Size(BaseModel):
    cpus: int


ANSWERED_IN = 60.0
"""The question timeout of the tests whose user answers at once: generous, so that a busy machine,
which may take longer than 0.2 s (the timeout these tests had) between a question and its answer
over HTTP, never turns an answer into a timeout. The timeout test passes its own short one: it
fires however slow the machine, as no answer ever comes."""


def build_server(timeout: float = ANSWERED_IN) -> MCPServer:
    """A fresh server per test: an HTTP session manager runs only once."""
    server = MCPServer("http-wizard")

    @server.tool()
    @elicits(timeout=timeout)
    async def wizard(app: str, ctx: ElicitContext) -> str:
        match await ctx.elicit(Environment, "Where to?"):
            case Accepted(Environment(name=env)):
                pass
            case _:
                return "stopped"
        match await ctx.elicit(Size, f"How big in {env}?"):
            case Accepted(Size(cpus=cpus)):
                return f"{app}@{env}x{cpus}"
            case Declined():
                return f"{app}@{env} default size"
            case _:
                return "stopped"

    return server


async def test_two_dependent_questions_work_over_http(connect, era):
    scripted = ScriptedUser(accept(name="prod"), accept(cpus=4))
    async with serve_http(build_server()) as url, connect(url, era, scripted) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("wizard", {"app": "web"})
    assert isinstance(result.content[0], TextContent)
    assert result.content[0].text == "web@prodx4"
    assert [q.message for q in scripted.questions] == ["Where to?", "How big in prod?"]


async def test_decline_and_errors_travel_over_http(connect, era):
    async with serve_http(build_server()) as url:
        async with connect(url, era, ScriptedUser(send_raw({"name": "dev"}), decline())) as client:
            with anyio.fail_after(BOUND):
                declined = await client.call_tool("wizard", {"app": "api"})
        async with connect(url, era, ScriptedUser(send_raw({"name": 7}))) as client:
            with anyio.fail_after(BOUND):
                invalid = await client.call_tool("wizard", {"app": "api"})
    assert isinstance(declined.content[0], TextContent)
    assert declined.content[0].text == "api@dev default size"
    assert invalid.is_error
    assert isinstance(invalid.content[0], TextContent)
    assert "InvalidResponse" in invalid.content[0].text


async def test_push_timeout_over_http_cancels_the_question(connect, push_era):
    asked, stopped = anyio.Event(), anyio.Event()

    async def never(params: object) -> ElicitResult:
        asked.set()
        try:
            await anyio.Event().wait()
        finally:
            stopped.set()
        raise AssertionError("unreachable")

    async with (
        serve_http(build_server(timeout=0.2)) as url,
        connect(url, push_era, ScriptedUser(never)) as client,
    ):
        with anyio.fail_after(BOUND):
            result = await client.call_tool("wizard", {"app": "web"})
            await stopped.wait()
    assert result.is_error
    assert isinstance(result.content[0], TextContent)
    assert "ElicitationTimeout: no answer to Environment within 0.2 s" in result.content[0].text


async def test_stateless_http_cannot_ask_on_push_eras_but_can_on_2026_07_28(connect, era):
    scripted = ScriptedUser(accept(name="prod"), accept(cpus=2))
    async with serve_http(build_server(), stateless_http=True) as url, connect(url, era, scripted) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("wizard", {"app": "web"})
    assert isinstance(result.content[0], TextContent)
    if era == "2026-07-28":
        assert result.content[0].text == "web@prodx2"
    else:
        assert result.is_error
        assert "cannot carry server-to-client requests" in result.content[0].text
