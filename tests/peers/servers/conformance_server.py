"""The server the official MCP conformance suite tests (`tests/peers/run_conformance.sh`).

It exposes exactly the tools that the suite's elicitation scenarios describe
(`tools-call-elicitation`, `elicitation-sep1034-defaults`, `elicitation-sep1330-enums`;
see `tests/peers/SCENARIOS.md`), written only with typed_elicit models: every wire schema below
comes from the reducer, none is written by hand.

Run over HTTP: `python tests/peers/serve_http.py tests/peers/servers/conformance_server.py`, or
`python tests/peers/servers/conformance_server.py --port 8000`.
"""

import sys
from typing import Annotated, Literal

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, Field

from typed_elicit import Accepted, ElicitContext, ElicitResult, Titles, elicits, form

mcp = MCPServer("typed-elicit-conformance")


@form
class UserResponse(BaseModel):
    """Please provide your information."""

    username: str = Field(description="User's response")
    email: str = Field(description="User's email address")


@form(message="Please review and update the form fields with defaults")
class Sep1034Defaults(BaseModel):
    """A default on every primitive kind (SEP-1034)."""

    name: str = Field(default="John Doe", description="User name")
    age: int = Field(default=30, description="User age")
    score: float = Field(default=95.5, description="User score")
    status: Literal["active", "inactive", "pending"] = Field(default="active", description="User status")
    verified: bool = Field(default=True, description="Verification status")


Choice = Literal["option1", "option2", "option3"]
Value = Literal["value1", "value2", "value3"]


@form(message="Please select options from the enum fields")
class Sep1330Enums(BaseModel):
    """All five enum shapes (SEP-1330), wire names from the aliases."""

    untitled_single: Choice = Field(alias="untitledSingle", description="Untitled single-select")
    titled_single: Annotated[
        Value, Titles(value1="First Option", value2="Second Option", value3="Third Option")
    ] = Field(alias="titledSingle", description="Titled single-select")
    # The suite wants the deprecated `enum` + `enumNames` form here on every revision.
    legacy_enum: Annotated[
        Literal["opt1", "opt2", "opt3"],
        Titles(opt1="Option One", opt2="Option Two", opt3="Option Three", legacy=True),
    ] = Field(alias="legacyEnum", description="Legacy titled enum")
    untitled_multi: list[Choice] = Field(alias="untitledMulti", description="Untitled multi-select")
    titled_multi: Annotated[
        list[Value], Titles(value1="First Choice", value2="Second Choice", value3="Third Choice")
    ] = Field(alias="titledMulti", description="Titled multi-select")


def _action(outcome: ElicitResult[BaseModel]) -> str:
    return "accept" if isinstance(outcome, Accepted) else type(outcome).__name__.lower()


@mcp.tool()
@elicits(UserResponse)
async def test_elicitation(message: str, ctx: ElicitContext) -> str:
    """Ask the user for a username and an email, with the given message."""
    outcome = await ctx.elicit(UserResponse, message)
    content = outcome.data.model_dump(mode="json") if isinstance(outcome, Accepted) else None
    return f"User response: <action: {_action(outcome)}, content: {content}>"


@mcp.tool()
@elicits(Sep1034Defaults)
async def test_elicitation_sep1034_defaults(ctx: ElicitContext) -> str:
    """Ask a form whose every field has a default."""
    outcome = await ctx.elicit(Sep1034Defaults)
    content = outcome.data.model_dump(mode="json") if isinstance(outcome, Accepted) else None
    return f"Elicitation completed: action={_action(outcome)}, content={content}"


@mcp.tool()
@elicits(Sep1330Enums)
async def test_elicitation_sep1330_enums(ctx: ElicitContext) -> str:
    """Ask a form with every enum shape."""
    outcome = await ctx.elicit(Sep1330Enums)
    content = outcome.data.model_dump(mode="json", by_alias=True) if isinstance(outcome, Accepted) else None
    return f"Elicitation completed: action={_action(outcome)}, content={content}"


if __name__ == "__main__":
    port = int(sys.argv[sys.argv.index("--port") + 1]) if "--port" in sys.argv else 8000
    mcp.run("streamable-http", host="127.0.0.1", port=port)
