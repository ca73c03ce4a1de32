"""The server under test in the real-host proof: typed_elicit's own app views (`typed_elicit.apps`).

One question, `Offsite`, with every field kind the host checks (text with a length, a choice, a
bounded integer, a flag), declared with `@form(app=True)`, asked with `await ctx.elicit(Offsite)`
in a tool that allows one re-ask after an invalid answer (`@elicits(Offsite, retries=1)`), its
view served by `serve_apps`.
"""

from __future__ import annotations

from typing import Literal

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, Field

from typed_elicit import Accepted, Cancelled, Declined, ElicitContext, elicits, form
from typed_elicit.apps import serve_apps

RESOURCE_URI = "ui://typed-elicit/tests.apps.real_server.Offsite"
"""The view's fixed `ui://` resource (typed_elicit.apps names it after the model)."""


@form(message="Book the team offsite", app=True)
class Offsite(BaseModel):
    organiser: str = Field(min_length=2, max_length=40, title="Organiser", description="Who runs the day")
    city: Literal["lisbon", "porto", "faro"] = Field(title="City")
    seats: int = Field(default=4, ge=1, le=12, title="Seats", description="Between 1 and 12")
    vegetarian: bool = Field(default=False, title="Vegetarian menu")


def build_server(origin: str) -> MCPServer:
    """A server with one tool, `book_offsite`, asking `Offsite` in its app view where the client shows one."""
    server = MCPServer("offsite-desk")

    @server.tool()
    @elicits(Offsite, retries=1)
    async def book_offsite(ctx: ElicitContext) -> str:
        """Book the team offsite after asking the organiser."""
        match await ctx.elicit(Offsite):
            case Accepted(Offsite(organiser=organiser, city=city, seats=seats, vegetarian=vegetarian)):
                menu = ", vegetarian" if vegetarian else ""
                return f"Booked {seats} seats in {city} for {organiser}{menu}"
            case Declined():
                return "declined"
            case Cancelled():
                return "cancelled"

    served = serve_apps(server, models=[Offsite])
    assert served == {Offsite: RESOURCE_URI}, served
    return server
