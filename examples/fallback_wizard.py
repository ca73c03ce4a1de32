"""Plan a trip in two questions; clients without elicitation get them through the model."""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, Field

from typed_elicit import Accepted, ElicitContext, Titles, elicits, form, install_fallback

server = MCPServer("trip-planner")
install_fallback(server)  # registers the companion tool `send_elicitation_result`


class Destination(BaseModel):
    """Where would you like to go?"""

    city: str = Field(min_length=1, title="City")
    nights: int = Field(default=2, ge=1, le=30, title="Nights")


@form(message="How would you like to travel?")
class Travel(BaseModel):
    mode: Annotated[Literal["train", "plane"], Titles(train="Train", plane="Plane")]


@server.tool()
@elicits(Destination, Travel, on_unsupported="fallback")
async def plan_trip(traveller: str, ctx: ElicitContext) -> str:
    """Plan a trip for a traveller."""
    match await ctx.elicit(Destination):
        case Accepted(Destination(city=city, nights=nights)):
            pass
        case _:
            return f"No trip planned for {traveller}."
    match await ctx.elicit(Travel, f"How would you like to travel to {city}?"):
        case Accepted(Travel(mode=mode)):
            return f"{traveller}: {nights} nights in {city}, by {mode}."
        case _:
            return f"{traveller}: {nights} nights in {city}, travel not booked."


if __name__ == "__main__":
    server.run()
