"""Ask several independent questions at once: one round on 2026-07-28, concurrent requests before."""

from typing import Literal

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, Field

from typed_elicit import Accepted, ElicitContext, elicits, form

server = MCPServer("trip-planner")


@form(message="Which flight?")
class Flight(BaseModel):
    seat: Literal["window", "aisle"] = "aisle"
    bags: int = Field(default=0, ge=0, le=3)


@form(message="Which hotel room?")
class Room(BaseModel):
    nights: int = Field(ge=1, le=14)
    breakfast: bool = False


@server.tool()
@elicits(Flight, Room)
async def plan_trip(city: str, ctx: ElicitContext) -> str:
    """Book a flight and a room: neither question depends on the other, so ask both together."""
    flight, room = await ctx.elicit_all(Flight, Room, retries=1)
    parts: list[str] = []
    if isinstance(flight, Accepted):  # flight: ElicitResult[Flight]
        parts.append(f"a {flight.data.seat} seat with {flight.data.bags} bag(s)")
    if isinstance(room, Accepted):  # room: ElicitResult[Room]
        parts.append(f"{room.data.nights} night(s) in {city}")
    return "Booked " + " and ".join(parts) if parts else "Nothing booked"
