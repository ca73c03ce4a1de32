"""The server under test in the real-host proof: typed_elicit's own app views (`typed_elicit.apps`).

One question, `Offsite`, with every field kind the host checks (text with a length, a choice, a
bounded integer, a flag), declared with `@form(app=True)`, asked with `await ctx.elicit(Offsite)`
in a tool that allows one re-ask after an invalid answer (`@elicits(Offsite, retries=1)`), its
view served by `serve_apps`.
"""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, Field

from typed_elicit import Accepted, Cancelled, Choices, Declined, ElicitContext, elicits, form
from typed_elicit.apps import AppView, Preview, serve_apps

RESOURCE_URI = "ui://typed-elicit/tests.apps.real_server.Offsite"
"""The view's fixed `ui://` resource (typed_elicit.apps names it after the model)."""
PICK_URI = "ui://typed-elicit/tests.apps.real_server.Pick"
WAREHOUSES = {f"w{i:02d}": f"Warehouse {i:02d}" for i in range(1, 41)}
"""Forty call-time choices: over the view's `search_over`, so it shows a search box."""


@form(message="Book the team offsite", app=True)
class Offsite(BaseModel):
    organiser: str = Field(min_length=2, max_length=40, title="Organiser", description="Who runs the day")
    city: Literal["lisbon", "porto", "faro"] = Field(title="City")
    seats: int = Field(default=4, ge=1, le=12, title="Seats", description="Between 1 and 12")
    vegetarian: bool = Field(default=False, title="Vegetarian menu")


@form(message="Ship the order from which warehouse?", app=AppView(search_over=5, title="Shipping"))
class Pick(BaseModel):
    warehouse: Annotated[str, Choices()] = Field(title="Warehouse")


ORDER = Preview(
    text="Ships the order below; the warehouse is charged for the lorry.",
    columns=["Item", "Qty"],
    rows=[["Tent", "2"], ["Stove", "1"]],
)


def build_server(origin: str) -> MCPServer:
    """`book_offsite` asks `Offsite`; `ship_order`, `Pick` with a preview; `plan_trip`, both at once."""
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

    @server.tool()
    @elicits(Pick)
    async def ship_order(ctx: ElicitContext) -> str:
        """Ship an order from a warehouse chosen from this call's list, with a preview of the order."""
        match await ctx.elicit(Pick, options={"warehouse": WAREHOUSES}, app=ORDER):
            case Accepted(Pick(warehouse=warehouse)):
                return f"Shipping from {WAREHOUSES[warehouse]}"
            case _:
                return "not shipped"

    @server.tool()
    @elicits(Offsite, Pick)
    async def plan_trip(ctx: ElicitContext) -> str:
        """Ask both questions at once (one app view each)."""
        offsite, pick = await ctx.elicit_all(Offsite, Pick, options={Pick: {"warehouse": WAREHOUSES}})
        match offsite, pick:
            case Accepted(Offsite(organiser=organiser)), Accepted(Pick(warehouse=warehouse)):
                return f"{organiser} plans, supplies from {WAREHOUSES[warehouse]}"
            case _:
                return "not planned"

    served = serve_apps(server, models=[Offsite, Pick])
    assert served == {Offsite: RESOURCE_URI, Pick: PICK_URI}, served
    return server
