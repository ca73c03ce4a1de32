"""What a call holds while its push-era question is pending: few frames, no unused containers.

A server with many pending questions holds one suspended call for each, so every frame and
record a pending call keeps is paid once per question (`tests/bench/scale.py` measures it).
"""

from __future__ import annotations

import asyncio
import types
from typing import Any

import anyio
import pytest
from mcp.server.mcpserver import MCPServer
from mcp_types import ElicitRequestFormParams, ElicitResult
from pydantic import BaseModel

from tests.conftest import BOUND
from typed_elicit import ElicitContext, elicits, hooks
from typed_elicit.testing import ScriptedUser, accept

pytestmark = pytest.mark.anyio


class Confirm(BaseModel):
    confirm: bool


def build(**policy: Any) -> MCPServer:
    server = MCPServer("pending")

    @server.tool()
    @elicits(**policy)
    async def ask(ctx: ElicitContext) -> str:
        return repr(await ctx.elicit(Confirm, "Go?"))

    return server


def our_frames() -> list[str]:
    """The typed_elicit frames of the one suspended tool call, outermost first (`file:function`)."""
    chains: list[list[str]] = []
    for task in asyncio.all_tasks():
        names: list[str] = []
        awaited: Any = task.get_coro()
        while isinstance(awaited, types.CoroutineType):
            code = awaited.cr_code
            if "typed_elicit" in code.co_filename:
                names.append(f"{code.co_filename.rsplit('/', 1)[-1]}:{code.co_name}")
            awaited = awaited.cr_await
        if "elicits.py:wrapper" in names:  # the tool call's task (not the client's callback)
            chains.append(names)
    (chain,) = chains
    return chain


async def answered_while_looking(seen: list[list[str]]) -> Any:
    async def reply(params: ElicitRequestFormParams) -> ElicitResult:
        seen.append(our_frames())
        return accept(confirm=True)

    return ScriptedUser(reply)


async def test_an_unobserved_pending_push_question_waits_in_the_asker_frame_alone(connect, push_era):
    seen: list[list[str]] = []
    async with connect(build(), push_era, await answered_while_looking(seen)) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("ask", {})
    assert not result.is_error
    assert seen == [["elicits.py:wrapper", "context.py:elicit", "push.py:ask"]]  # no coroutine of settle


async def test_an_observed_pending_push_question_takes_the_general_path_and_is_reported(connect, push_era):
    heard: list[str] = []

    class Listener(hooks.ElicitHook):
        async def on_question(self, event: hooks.QuestionEvent) -> None:
            heard.append(event.message)

    seen: list[list[str]] = []
    server = build(hooks=[Listener()])
    async with connect(server, push_era, await answered_while_looking(seen)) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("ask", {})
    assert not result.is_error
    assert heard == ["Go?"]
    assert seen[0][-2:] == ["push.py:_ask", "push.py:_send"]
