"""Ship an order: a page with groups, rows, a choice, an optional part and a file.

The elicitation wire carries a flat form only, but a page answer travels over HTTP: a page
form (`@form(page=True)`) may hold nested models (fieldsets), lists of rows (added and removed
by buttons, no script), an optional group (`X | None = None`, a box that adds it), a
discriminated union (a choice that selects which fields to fill), `dict[str, X]` (key/value
rows) and files (`UploadedFile`, with `FileLimits`). `ctx.elicit_page` returns the whole
model, validated, the file's bytes included.

Run it: `python examples/ship_order.py`, then connect a client with URL-mode elicitation
to http://127.0.0.1:8000/mcp and call `ship_order`.
"""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, Field

from typed_elicit import Accepted, ElicitContext, elicits, form
from typed_elicit.pages import FileLimits, PageBrand, UploadedFile, serve_pages


class Address(BaseModel):
    street: str = Field(title="Street and number")
    city: str = Field(title="City")
    postcode: Annotated[str, Field(pattern=r"^\d{5}$", title="Postcode")]


class Line(BaseModel):
    product: str = Field(title="Product")
    quantity: Annotated[int, Field(ge=1, le=99, title="Quantity")] = 1


class Courier(BaseModel):
    """Courier"""

    kind: Literal["courier"]
    slot: Literal["morning", "afternoon"] = Field("morning", title="Delivery slot")


class Pickup(BaseModel):
    """Pick-up point"""

    kind: Literal["pickup"]
    point: str = Field(title="Pick-up point code")


@form(page=True, message="Where and what should we ship?")
class Shipment(BaseModel):
    recipient: str = Field(title="Recipient")
    address: Address = Field(title="Delivery address")
    lines: list[Line] = Field(default_factory=list[Line], min_length=1, max_length=20, title="Items")
    gift_note: Address | None = Field(None, title="Send the invoice elsewhere")
    delivery: Annotated[Courier | Pickup, Field(discriminator="kind", title="Delivery")]
    customs: Annotated[
        UploadedFile,
        FileLimits(max_bytes=1_000_000, media_types=("application/pdf", "image/png")),
        Field(title="Customs form", description="A PDF or PNG of the signed form"),
    ]


SHIPPED: list[Shipment] = []
"""Shipments handed to the warehouse (a stand-in for its API)."""


def build_server(public_url: str) -> MCPServer:
    """The shop's server, serving its pages at `public_url` (the origin a browser reaches it at)."""
    server = MCPServer("shop")
    serve_pages(server, public_url=public_url, brand=PageBrand(title="Acme Shop"))

    @server.tool()
    @elicits(timeout=600)
    async def ship_order(ctx: ElicitContext) -> str:
        """Ship an order to the user."""
        result = await ctx.elicit_page(Shipment)
        if not isinstance(result, Accepted):
            return "Nothing was shipped."
        shipment = result.data
        SHIPPED.append(shipment)
        items = ", ".join(f"{line.quantity} x {line.product}" for line in shipment.lines)
        return (
            f"Shipping {items} to {shipment.recipient}, {shipment.address.city} by {shipment.delivery.kind}; "
            f"customs form {shipment.customs.name} ({shipment.customs.size} bytes)"
        )

    return server


if __name__ == "__main__":
    build_server("http://127.0.0.1:8000").run("streamable-http")
