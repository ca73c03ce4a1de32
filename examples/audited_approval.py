"""Approve a refund; every question and answer is audited, and free text is trimmed first."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, Field

from typed_elicit import Accepted, ElicitContext, elicits
from typed_elicit.hooks import AnswerEvent, ElicitHook, QuestionEvent

server = MCPServer("refunds")
AUDIT: list[str] = []


class AuditLog(ElicitHook):
    """Records who was asked what, and what came back (before validation)."""

    async def on_question(self, event: QuestionEvent) -> None:
        AUDIT.append(f"asked {event.function} via {event.via} (attempt {event.attempt}): {event.message}")

    async def on_answer(self, event: AnswerEvent) -> None:
        AUDIT.append(f"answer to {event.question.function}: {event.action} {dict(event.content or {})}")


class StripWhitespace(ElicitHook):
    """Trims every text field, so "  yes, ok " is validated and stored as "yes, ok"."""

    async def on_answer(self, event: AnswerEvent) -> dict[str, Any] | None:
        if event.content is None:
            return None
        return {key: v.strip() if isinstance(v, str) else v for key, v in event.content.items()}


class Refund(BaseModel):
    approve: bool = Field(description="Approve the refund")
    reason: str = Field(min_length=3, max_length=200, description="Reason, for the record")


@server.tool()
@elicits(Refund, hooks=[AuditLog(), StripWhitespace()])
async def refund(order: str, amount: float, ctx: ElicitContext) -> str:
    """Refund an order after a person approves it."""
    match await ctx.elicit(Refund, f"Refund ${amount:.2f} for order {order}?"):
        case Accepted(Refund(approve=True, reason=reason)):
            return f"Refunded {order}: {reason}"
        case _:
            return f"No refund for {order}"


if __name__ == "__main__":
    server.run()
