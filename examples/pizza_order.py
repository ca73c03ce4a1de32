"""Order a pizza; ask for toppings only if the customer wants any."""

from __future__ import annotations

from typing import Literal

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, Field

from typed_elicit import Accepted, Declined, ElicitContext, elicits

server = MCPServer("pizzeria")


class Customise(BaseModel):
    want_toppings: bool = Field(description="Add extra toppings?")


class Toppings(BaseModel):
    toppings: str = Field(default="mushrooms", min_length=1, description="Toppings (comma-separated)")
    crust: Literal["thin", "regular", "deep"] = "regular"


@server.tool()
@elicits(Customise, Toppings)
async def order_pizza(size: str, ctx: ElicitContext) -> str:
    """Order a pizza of the given size."""
    match await ctx.elicit(Customise, f"Ordering a {size} pizza. Customize?"):
        case Accepted(Customise(want_toppings=False)) | Declined():
            return f"{size} plain pizza"
        case Accepted():
            pass
        case _:
            return "Order cancelled"
    match await ctx.elicit(Toppings, "Which toppings?"):
        case Accepted(Toppings(toppings=toppings, crust=crust)):
            return f"{size} {crust}-crust pizza with {toppings}"
        case _:
            return f"{size} plain pizza"


if __name__ == "__main__":
    server.run()
