"""A question shown by the server's own MCP App where the host can, a plain form elsewhere.

Draft: app views follow SEP-3118 and ext-apps PR 733 (see docs/howto/app_views.md).
Run it: `python examples/app_views.py` (stdio).
"""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, Field

from typed_elicit import Accepted, Choices, ElicitContext, elicits, form
from typed_elicit.apps import AppView, Preview, serve_apps

WAREHOUSES = {f"w{n:02d}": f"Warehouse {n:02d}" for n in range(1, 41)}


@form(app=AppView(title="Acme shipping", css={"--accent": "#0b7a75"}))
class Shipment(BaseModel):
    """Where should the order ship from?"""

    warehouse: Annotated[str, Choices()]  # 40 options, offered per call: a searchable picker
    speed: Literal["standard", "express"] = "standard"
    notes: str = Field(default="", max_length=200, description="For the driver")


server = MCPServer("acme")


@server.tool()
@elicits(Shipment)
async def ship(ctx: ElicitContext, order: str) -> str:
    """Ship an order."""
    items: list[list[str | int]] = [["Tent", 1], ["Lamp", 2]]
    preview = Preview(text=f"Order {order} is ready.", columns=["Item", "Qty"], rows=items)
    result = await ctx.elicit(Shipment, options={"warehouse": WAREHOUSES}, app=preview)
    if isinstance(result, Accepted):
        return f"{order} ships {result.data.speed} from {WAREHOUSES[result.data.warehouse]}"
    return f"{order} not shipped"


serve_apps(server)  # once, after the models: one fixed ui:// view per model, elicitation advertised

if __name__ == "__main__":
    server.run()
