"""A client whose tool timeout restarts on progress keeps waiting while a person thinks (push eras).

The client here emulates the TypeScript SDK's `callTool(..., {timeout, resetTimeoutOnProgress})`
(the Python SDK's own client pauses its timer while it answers a question instead, so it
would not show the problem): the call is abandoned after `timeout` seconds without a
`notifications/progress`, and each notification restarts that timer. Time is virtual
(`tests/virtual_time.py`): the person's 5 s take no real time.
"""

from __future__ import annotations

import asyncio
from typing import Any

import anyio
import pytest
from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult, TextContent
from pydantic import BaseModel

from tests.conftest import BOUND, PUSH_ERAS, Connect, task_count
from tests.virtual_time import VirtualTimeLoop
from typed_elicit import ElicitContext, elicits
from typed_elicit._observe.heartbeat import TASK_NAME
from typed_elicit.testing import ScriptedUser, accept

pytestmark = pytest.mark.anyio

CLIENT_TIMEOUT = 2.0
THINKING = 5.0


@pytest.fixture
def anyio_backend() -> tuple[str, dict[str, Any]]:
    return "asyncio", {"loop_factory": VirtualTimeLoop}


class Age(BaseModel):
    """Your age."""

    age: int


def server_with(heartbeat: float | None) -> MCPServer:
    server = MCPServer("slow")

    @server.tool()
    @elicits(heartbeat=heartbeat)
    async def ask_age(ctx: ElicitContext) -> str:
        return repr(await ctx.elicit(Age))

    return server


def heartbeat_tasks() -> list[asyncio.Task[Any]]:
    return [t for t in asyncio.all_tasks() if t.get_name() == TASK_NAME]


class ImpatientClient:
    """Calls a tool with a timeout that restarts on every progress notification."""

    def __init__(self, client: Any, timeout: float) -> None:
        self.client = client
        self.timeout = timeout
        self.progress: list[float] = []

    async def call_tool(self, name: str) -> CallToolResult:
        with anyio.CancelScope(deadline=anyio.current_time() + self.timeout) as scope:

            async def on_progress(progress: float, total: float | None, message: str | None) -> None:
                self.progress.append(progress)
                scope.deadline = anyio.current_time() + self.timeout

            result: CallToolResult = await self.client.call_tool(name, {}, progress_callback=on_progress)
            return result
        raise TimeoutError(f"no progress within {self.timeout:g} s: the client gave up")


async def thinking(params: Any) -> Any:
    started = anyio.current_time()
    await anyio.sleep(THINKING)
    assert anyio.current_time() - started >= THINKING
    thinking.beating.append(len(heartbeat_tasks()))  # type: ignore[attr-defined]
    return accept(age=41)


@pytest.mark.parametrize("era", PUSH_ERAS)
async def test_heartbeats_keep_a_two_second_client_waiting_five_seconds_for_a_person(
    era: str, connect: Connect
) -> None:
    thinking.beating = []  # type: ignore[attr-defined]
    async with connect(server_with(0.5), era, ScriptedUser(thinking)) as client:
        before = task_count()
        impatient = ImpatientClient(client, CLIENT_TIMEOUT)
        with anyio.fail_after(BOUND * 10):
            result = await impatient.call_tool("ask_age")
            while task_count() > before:  # the server's request handling winds down
                await anyio.lowlevel.checkpoint()
        assert heartbeat_tasks() == []
        assert task_count() == before
    assert isinstance(result.content[0], TextContent)
    assert "age=41" in result.content[0].text
    assert thinking.beating == [1]  # type: ignore[attr-defined]
    assert impatient.progress == [float(n) for n in range(1, len(impatient.progress) + 1)]
    assert len(impatient.progress) >= THINKING / 0.5 - 1


@pytest.mark.parametrize("era", PUSH_ERAS)
async def test_without_heartbeats_the_same_client_gives_up(era: str, connect: Connect) -> None:
    thinking.beating = []  # type: ignore[attr-defined]
    async with connect(server_with(None), era, ScriptedUser(thinking)) as client:
        impatient = ImpatientClient(client, CLIENT_TIMEOUT)
        with anyio.fail_after(BOUND * 10), pytest.raises(TimeoutError, match="gave up"):
            await impatient.call_tool("ask_age")
    assert impatient.progress == []


@pytest.mark.slow
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
@pytest.mark.parametrize("era", PUSH_ERAS)
async def test_over_streamable_http_the_heartbeats_reach_the_waiting_call(era: str, connect: Connect) -> None:
    """Real time and a real HTTP server: scaled down (0.3 s timeout, 0.1 s heartbeat).

    The person answers once the client has seen five heartbeats, past the client's timeout.
    """
    from tests.conftest import serve_http

    seen: list[ImpatientClient] = []

    async def thinks_for_five_heartbeats(params: Any) -> Any:
        while len(seen[0].progress) < 5:
            await anyio.sleep(0.01)  # (a condition polled: the heartbeats reach the client)
        return accept(age=7)

    user = ScriptedUser(thinks_for_five_heartbeats)
    async with serve_http(server_with(0.1)) as url, connect(url, era, user) as client:
        seen.append(ImpatientClient(client, 0.3))
        started = anyio.current_time()
        with anyio.fail_after(BOUND):
            result = await seen[0].call_tool("ask_age")
        took = anyio.current_time() - started
    assert isinstance(result.content[0], TextContent)
    assert "age=7" in result.content[0].text
    assert took > 0.3  # the call outlived the client's timeout: the heartbeats kept it waiting
