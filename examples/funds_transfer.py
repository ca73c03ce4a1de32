"""A two-step funds transfer: confirm the details, then enter a one-time code.

What makes it safe to copy:

- The code is sent inside `ctx.once`, so on protocol 2026-07-28, where the tool
  runs again for every answer, the text message goes out exactly once per call
  and every round compares against the same code (kept in the sealed request state).
- Each round takes one answer (single-use rounds, on by default): a client that
  resends one sealed state with another code is refused (JSON-RPC error -32602),
  so a code gets one try per call, and each new call sends a new code.
- The code question times out after 120 s however often the client refreshes it,
  and the whole call after 10 minutes (`call_timeout`).
- A malformed code (not six digits) is asked again once (`retries=1`); a wrong
  code cancels the transfer.
- The transfer runs after the last question, once: a resent final round is
  refused. Its id, minted in `ctx.once` before the last question, is also the
  bank's idempotency key, so even a server configured without single-use rounds
  (or replicas without a shared store) cannot move the money twice.
"""

from __future__ import annotations

import hmac
import secrets
from typing import Annotated

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, Field

from typed_elicit import Accepted, ElicitContext, elicits

server = MCPServer("bank")

OUTBOX: list[str] = []
"""Stands in for an SMS gateway: every code "sent to the phone" lands here."""

TRANSFERS: dict[str, tuple[str, str, float]] = {}
"""Stands in for the bank: transfers by idempotency key."""


def bank_transfer(idempotency_key: str, from_account: str, to_account: str, amount: float) -> None:
    """Move the money, unless a transfer with this key was made already."""
    TRANSFERS.setdefault(idempotency_key, (from_account, to_account, amount))


class TransferConfirmation(BaseModel):
    confirmed: bool


class Verification(BaseModel):
    code: str = Field(min_length=6, max_length=6, pattern=r"^[0-9]{6}$", description="The code we sent")


async def send_code() -> str:
    code = f"{secrets.randbelow(10**6):06d}"
    OUTBOX.append(code)
    return code


@server.tool()
@elicits(TransferConfirmation, Verification, call_timeout=600)
async def transfer_funds(
    from_account: str,
    to_account: str,
    amount: Annotated[float, Field(gt=0, le=10_000, description="Dollars, at most 10,000")],
    ctx: ElicitContext,
) -> str:
    """Transfer funds between accounts after confirmation and a one-time code."""
    transfer_id = await ctx.once("transfer-id", lambda: secrets.token_urlsafe(16))
    question = f"Transfer ${amount:.2f} from {from_account} to {to_account}?"
    match await ctx.elicit(TransferConfirmation, question):
        case Accepted(TransferConfirmation(confirmed=True)):
            pass
        case _:
            return "Transfer cancelled"
    expected = await ctx.once("send-code", send_code)
    match await ctx.elicit(Verification, "Please verify this transfer", timeout=120, retries=1):
        case Accepted(Verification(code=code)) if hmac.compare_digest(code, expected):
            bank_transfer(transfer_id, from_account, to_account, amount)
            return f"Transferred ${amount:.2f} from {from_account} to {to_account}"
        case Accepted():
            return "Invalid verification code; transfer cancelled"
        case _:
            return "Verification not completed; transfer cancelled"


if __name__ == "__main__":
    server.run()
