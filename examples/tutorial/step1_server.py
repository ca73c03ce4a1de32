"""Tutorial, step 1: a server whose tool asks the user one question."""

from typing import Literal

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, Field

from typed_elicit import Accepted, Declined, ElicitContext, elicits, form

server = MCPServer("coffee-shop")


@form(message="How do you take your coffee?")
class Order(BaseModel):
    size: Literal["small", "medium", "large"]
    sugar: int = Field(default=0, ge=0, le=3, description="Spoons of sugar")
    oat_milk: bool = False


@server.tool()
@elicits(Order)
async def order_coffee(name: str, ctx: ElicitContext) -> str:
    """Order a coffee, asking the user how they take it."""
    match await ctx.elicit(Order):
        case Accepted(order):
            milk = " with oat milk" if order.oat_milk else ""
            return f"A {order.size} coffee for {name}, {order.sugar} sugar{milk}"
        case Declined():
            return f"No coffee for {name}"
        case _:
            return "Order cancelled"


if __name__ == "__main__":
    server.run()
