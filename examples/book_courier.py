"""Book a courier: a page with a group and rows whose carrier list is known only at call time.

The model is a page form with groups (`@form(page=True)`: a nested `pickup` address and a list
of `parcels`) whose own `carrier` field is a `Choices()` field. `ctx.elicit_page(...,
options=..., defaults=...)` offers the carriers that serve this user's country and pre-fills
their usual one; the page shows exactly those carriers, and an answer naming any other is shown
again, never taken. Options and defaults go to the model's own fields: the group and the rows
take their defaults from the class.

Run it: `python examples/book_courier.py`, then connect a client with URL-mode elicitation
to http://127.0.0.1:8000/mcp and call `book_courier`.
"""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, Field

from typed_elicit import Accepted, Choices, ElicitContext, elicits, form
from typed_elicit.pages import PageBrand, serve_pages


class Address(BaseModel):
    street: str = Field(title="Street and number")
    city: str = Field(title="City")


class Parcel(BaseModel):
    weight_kg: Annotated[float, Field(gt=0, le=30, title="Weight (kg)")]
    fragile: bool = Field(False, title="Fragile")


@form(page=True, message="Book a courier")
class Booking(BaseModel):
    carrier: Annotated[str, Choices(), Field(title="Carrier")]
    pickup: Address = Field(title="Pick up at")
    parcels: list[Parcel] = Field(default_factory=list[Parcel], min_length=1, max_length=10, title="Parcels")


CARRIERS = {
    "de": {"dhl": "DHL Paket", "hermes": "Hermes", "ups": "UPS Standard"},
    "fr": {"colissimo": "Colissimo", "ups": "UPS Standard"},
}
"""The carriers that serve each country (value -> what the page shows)."""

USUAL = {"ada": "ups"}
"""Each user's usual carrier."""


def build_server(public_url: str) -> MCPServer:
    """The courier server, serving its pages at `public_url` (the origin a browser reaches it at)."""
    server = MCPServer("courier")
    serve_pages(server, public_url=public_url, brand=PageBrand(title="Acme Courier"))

    @server.tool()
    @elicits(timeout=600)
    async def book_courier(ctx: ElicitContext, user: str, country: str) -> str:
        """Book a courier to pick up the user's parcels."""
        usual = {"carrier": USUAL[user]} if USUAL.get(user) in CARRIERS[country] else None
        result = await ctx.elicit_page(Booking, options={"carrier": CARRIERS[country]}, defaults=usual)
        if not isinstance(result, Accepted):
            return "Nothing was booked."
        booking = result.data
        weight = sum(parcel.weight_kg for parcel in booking.parcels)
        return (
            f"{booking.carrier} picks up {len(booking.parcels)} parcel(s), {weight:g} kg, "
            f"at {booking.pickup.street}, {booking.pickup.city}"
        )

    return server


if __name__ == "__main__":
    build_server("http://127.0.0.1:8000").run("streamable-http")
