"""A client that fails a question (a JSON-RPC error, a malformed result) ends the call with a typed error."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from mcp.server.mcpserver import MCPServer
from mcp.server.session import ServerSession
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INTERNAL_ERROR,
    ElicitRequestFormParams,
    ElicitRequestURLParams,
    ElicitResult,
    ErrorData,
    TextContent,
)
from pydantic import BaseModel

from tests.conftest import BOUND
from typed_elicit import ElicitContext, TypedElicitError, elicits
from typed_elicit.errors import ClientError, InvalidResponse

pytestmark = pytest.mark.anyio


class Confirm(BaseModel):
    confirm: bool


server = MCPServer("client-errors")


@server.tool()
@elicits
async def ask(ctx: ElicitContext) -> str:
    return repr(await ctx.elicit(Confirm, "Go?"))


@server.tool()
@elicits
async def visit(ctx: ElicitContext) -> str:
    return repr(await ctx.elicit_url("https://id.example.com/authorize?t=secret", "Sign in."))


@server.tool()
@elicits
async def recovers(ctx: ElicitContext) -> str:
    try:
        await ctx.elicit(Confirm, "Go?")
    except ClientError as exc:
        cause = exc.__cause__
        return f"{exc.code}|{exc.client_message}|{type(cause).__name__}|{isinstance(exc, TypedElicitError)}"
    return "answered"


@server.tool()
@elicits
async def malformed(ctx: ElicitContext, retries: int = 0) -> str:
    try:
        await ctx.elicit(Confirm, "Go?", retries=retries)
    except InvalidResponse as exc:
        return str(exc)
    return "answered"


def crashing(message: str = "user interface crashed") -> Any:
    async def callback(context: Any, params: ElicitRequestFormParams | ElicitRequestURLParams) -> ErrorData:
        return ErrorData(code=INTERNAL_ERROR, message=message)

    return callback


async def call(client: Any, name: str, arguments: dict[str, Any] | None = None) -> tuple[bool, str]:
    with anyio.fail_after(BOUND):
        result = await client.call_tool(name, arguments or {})
    assert isinstance(result.content[0], TextContent)
    return bool(result.is_error), result.content[0].text


async def test_an_error_reply_to_a_form_question_is_a_tool_error_naming_the_question_and_the_cause(
    connect, push_era
):
    async with connect(server, push_era, crashing()) as client:
        is_error, text = await call(client, "ask")
    assert is_error
    assert "ClientError: the client answered the question for Confirm with an error" in text
    assert "code -32603: 'user interface crashed'" in text
    assert "This is the client's failure" in text


async def test_an_error_reply_to_a_url_question_names_the_url_mode_question(connect):
    async with connect(server, "2025-11-25", crashing()) as client:
        is_error, text = await call(client, "visit")
    assert is_error
    assert "ClientError: the client answered the URL-mode question with an error" in text
    assert "user interface crashed" in text


async def test_a_tool_can_catch_the_client_error_with_its_code_message_and_sdk_cause(connect, push_era):
    async with connect(server, push_era, crashing("no screen")) as client:
        assert await call(client, "recovers") == (False, f"{INTERNAL_ERROR}|no screen|MCPError|True")


async def test_a_malformed_client_result_is_invalid_response_advising_to_fix_the_client(
    connect, push_era, monkeypatch
):
    # The SDK's client refuses to send a malformed result, so the server's reading of one is faked.
    async def garbled(
        self: ServerSession, request: Any, result_type: type[ElicitResult], **options: Any
    ) -> Any:
        return result_type.model_validate({"action": "maybe"})

    monkeypatch.setattr(ServerSession, "send_request", garbled)
    async with connect(server, push_era, crashing()) as client:
        is_error, text = await call(client, "malformed", {"retries": 3})
    assert not is_error
    assert "(result): the client's elicitation result is malformed" in text
    assert "This is the client's failure, not the user's answer, and is never asked again" in text
    assert "Pass retries=N" not in text


def test_client_error_keeps_its_code_and_message_and_is_a_typed_error():
    error = ClientError("the question for Confirm", -32000, "busy")
    assert (error.code, error.client_message) == (-32000, "busy")
    assert isinstance(error, TypedElicitError)
    assert not isinstance(error, MCPError)
    assert "the client answered the question for Confirm with an error" in str(error)
    assert "catch ClientError to carry on without the answer, or retry the call" in str(error)
