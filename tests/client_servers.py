"""Small servers for the client-side tests: one typed, one that sends raw schemas."""

from __future__ import annotations

from typing import Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import ElicitRequest, ElicitRequestFormParams, ElicitRequestURLParams, InputRequiredResult
from pydantic import BaseModel, Field

from typed_elicit import Accepted, Cancelled, Declined, form
from typed_elicit._calls.context import ElicitContext
from typed_elicit._calls.elicits import elicits


@form(message="Who is travelling?")
class Traveller(BaseModel):
    name: str = Field(min_length=1, title="Full name")
    seats: int = Field(default=1, ge=1, le=9)
    meal: Literal["veg", "any"] = "any"
    newsletter: bool = False


typed = MCPServer("travel-desk")


@typed.tool()
@elicits
async def book(ctx: ElicitContext) -> str:
    """Book a trip after asking who travels."""
    match await ctx.elicit(Traveller):
        case Accepted(Traveller(name=name, seats=seats, meal=meal, newsletter=news)):
            return f"booked {seats} for {name}, meal {meal}, newsletter {news}"
        case Declined():
            return "declined"
        case Cancelled():
            return "cancelled"


HOSTILE: dict[str, Any] = {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}}

raw = MCPServer("raw-asker")


@raw.tool()
async def ask_push(ctx: Context, mode: str = "form") -> str:
    """Send one hostile form (or a URL request) on a push era and report what came back."""
    try:
        if mode == "url":
            result = await ctx.session.elicit_url(
                "Sign in", "https://auth.example/login", "el-1", related_request_id=ctx.request_id
            )
        else:
            result = await ctx.session.elicit_form("hostile", HOSTILE, related_request_id=ctx.request_id)
    except MCPError as exc:
        return f"error {exc.code}: {exc.message}"
    return f"{result.action} {result.content}"


@raw.tool()
async def ask_rounds(ctx: Context, mode: str = "form") -> str | InputRequiredResult:
    """The same on 2026-07-28, as an InputRequiredResult."""
    if ctx.input_responses:
        return f"answered {ctx.input_responses['q'].model_dump(exclude_none=True)}"
    params: ElicitRequestFormParams | ElicitRequestURLParams = (
        ElicitRequestURLParams(message="Sign in", url="https://auth.example/login")
        if mode == "url"
        else ElicitRequestFormParams(message="hostile", requested_schema=HOSTILE)
    )
    return InputRequiredResult(input_requests={"q": ElicitRequest(params=params)}, request_state="round-1")
