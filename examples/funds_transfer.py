"""A two-step funds transfer: confirm the details, then enter a one-time code.

The code is sent inside `ctx.once`, so on protocol 2026-07-28, where the tool
runs again for every answer, the text message still goes out exactly once and
every round compares against the same code (kept in the sealed request state).

The transfer itself runs after the last question, so a client that resends the
final round runs it again. The transfer id, minted in `ctx.once` before the last
question, is the same in every such run and the bank ignores a repeated one.
"""

from __future__ import annotations

import hmac
import secrets

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
@elicits(TransferConfirmation, Verification)
async def transfer_funds(from_account: str, to_account: str, amount: float, ctx: ElicitContext) -> str:
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
