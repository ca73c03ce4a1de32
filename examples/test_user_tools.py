"""Testing your own tool: a scripted user on every protocol era, then generated bad answers.

The `elicit_connect` and `scripted_user` fixtures come from typed_elicit's pytest plugin:
every test that uses them runs once per protocol revision (2025-06-18, 2025-11-25,
2026-07-28). `invalid_answers(Model)` is a Hypothesis strategy of answers that break
the model's wire schema in exactly one way.

Run: `pytest examples/test_user_tools.py`.
"""

from __future__ import annotations

import anyio
import pytest
from hypothesis import given, settings
from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult, TextContent
from pydantic import BaseModel, EmailStr, Field

from typed_elicit import PROTOCOL_VERSIONS, Accepted, ElicitContext, ProtocolVersion, elicits, form
from typed_elicit.testing import ScriptedUser, connect, invalid_answers, send_raw
from typed_elicit.testing.pytest_plugin import Connector

# --- the tool under test (in your project it lives in your package) --------------------------

server = MCPServer("signup-desk")


@form(message="Complete your profile")
class Profile(BaseModel):
    email: EmailStr
    age: int | None = Field(default=None, ge=13, le=130)
    newsletter: bool = False


@server.tool()
@elicits(Profile)
async def register(username: str, ctx: ElicitContext) -> str:
    """Register a new account."""
    match await ctx.elicit(Profile):
        case Accepted(Profile(email=email, newsletter=newsletter)):
            return f"Registered {username} <{email}> (newsletter={newsletter})"
        case _:
            return "Registration cancelled"


# --- the tests ---------------------------------------------------------------------------------


def text_of(result: CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


@pytest.mark.anyio
async def test_a_full_profile_registers_the_user(
    elicit_connect: Connector, scripted_user: ScriptedUser
) -> None:
    scripted_user.accept(email="ada@example.com", age=36)

    with anyio.fail_after(10):
        async with elicit_connect(server) as client:
            result = await client.call_tool("register", {"username": "ada"})

    assert text_of(result) == "Registered ada <ada@example.com> (newsletter=False)"
    (question,) = scripted_user.questions
    assert question.message == "Complete your profile"
    assert question.field_names == ["email", "age", "newsletter"]
    scripted_user.assert_done()


@pytest.mark.anyio
async def test_declining_registers_nobody(elicit_connect: Connector, scripted_user: ScriptedUser) -> None:
    scripted_user.decline()

    with anyio.fail_after(10):
        async with elicit_connect(server) as client:
            result = await client.call_tool("register", {"username": "ada"})

    assert text_of(result) == "Registration cancelled"
    scripted_user.assert_done()


@pytest.mark.parametrize("era", PROTOCOL_VERSIONS)
@settings(max_examples=15, deadline=None)
@given(answer=invalid_answers(Profile))
def test_a_bad_answer_never_registers_anyone(era: ProtocolVersion, answer: dict[str, object]) -> None:
    user = ScriptedUser(send_raw(answer))

    async def call() -> CallToolResult:
        with anyio.fail_after(10):
            async with connect(server, era, elicitation_callback=user) as client:
                return await client.call_tool("register", {"username": "ada"})

    result = anyio.run(call)

    assert result.is_error, f"{answer!r} was accepted: {text_of(result)}"
    assert "Registered" not in text_of(result)
    user.assert_done()
