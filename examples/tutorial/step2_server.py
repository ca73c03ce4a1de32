"""Tutorial, step 2: a second question that depends on the first answer, and a re-ask."""

from typing import Annotated, Literal

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, Field

from typed_elicit import Accepted, Declined, ElicitContext, Titles, elicits, form

server = MCPServer("coffee-shop")
PRICES = {"small": 250, "medium": 320, "large": 380}
"""Cents per cup."""


@form(message="How do you take your coffee?")
class Order(BaseModel):
    size: Annotated[
        Literal["small", "medium", "large"],
        Titles(small="Small (8 oz)", medium="Medium (12 oz)", large="Large (16 oz)"),
    ]
    sugar: int = Field(default=0, ge=0, le=3, description="Spoons of sugar")
    oat_milk: bool = False


@form(message="Anything to eat with it?")
class Pastry(BaseModel):
    pastry: Literal["croissant", "muffin", "none"] = "none"
    table: str = Field(pattern=r"^[A-H][1-9]$", description="Your table, e.g. B4")


@server.tool()
@elicits(Order, Pastry, retries=1)
async def order_coffee(name: str, ctx: ElicitContext) -> str:
    """Order a coffee, then something to eat, and say where to bring it."""
    match await ctx.elicit(Order):
        case Accepted(order):
            pass
        case Declined():
            return f"No coffee for {name}"
        case _:
            return "Order cancelled"
    price = PRICES[order.size] + (40 if order.oat_milk else 0)
    match await ctx.elicit(Pastry, message=f"A {order.size} coffee is ${price / 100:.2f}. Anything to eat?"):
        case Accepted(Pastry(pastry="none", table=table)):
            return f"A {order.size} coffee for {name}, to table {table}"
        case Accepted(Pastry(pastry=pastry, table=table)):
            return f"A {order.size} coffee and a {pastry} for {name}, to table {table}"
        case _:
            return f"A {order.size} coffee for {name}, at the counter"


if __name__ == "__main__":
    server.run()
