"""Large expenses need a manager's approval before they are processed."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, Field

from typed_elicit import Accepted, Cancelled, Declined, ElicitContext, elicits

server = MCPServer("expense-processor")

APPROVAL_THRESHOLD = 100.0


class Approval(BaseModel):
    approved: bool = Field(description="Approve this expense")
    note: str | None = Field(default=None, max_length=200, description="Optional note for the record")


@server.tool()
@elicits(Approval)
async def submit_expense(description: str, amount: float, ctx: ElicitContext) -> str:
    """Process an expense report; amounts above the threshold need approval."""
    if amount <= APPROVAL_THRESHOLD:
        return f"Processed {description} (${amount:.2f}), no approval needed"
    message = f"Expense of ${amount:.2f} for {description!r} requires manager approval."
    match await ctx.elicit(Approval, message):
        case Accepted(Approval(approved=True, note=note)):
            return f"Processed {description} (${amount:.2f}), approved" + (f": {note}" if note else "")
        case Cancelled():
            return f"{description} is waiting for approval"
        case Accepted() | Declined():
            return f"Rejected {description}"


if __name__ == "__main__":
    server.run()
