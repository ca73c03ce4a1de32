"""Pay an invoice: the accounts to pay from are known only at call time, the card's PIN only on a page.

The model is a page form (`@form(page=True)`: its `pin` is a secret) whose `account` is a
`Choices()` field: `ctx.elicit_page(..., options=..., defaults=...)` offers this user's accounts
and pre-fills the invoice's amount. The page shows exactly those options; an answer naming
any other account is shown again, never taken.

Run it: `python examples/pay_invoice.py`, then connect a client with URL-mode elicitation
to http://127.0.0.1:8000/mcp and call `pay_invoice`.
"""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, Field, SecretStr

from typed_elicit import Accepted, Choices, ElicitContext, elicits, form
from typed_elicit.pages import PageBrand, serve_pages


@form(message="Pay the invoice", page=True)
class Payment(BaseModel):
    account: Annotated[str, Choices(), Field(title="Pay from")]
    amount: Annotated[int, Field(gt=0, title="Amount (EUR)")]
    pin: Annotated[SecretStr, Field(title="Card PIN")]


ACCOUNTS = {"ada": {"chk-1": "Checking ·· 4410", "sav-2": "Savings ·· 9031"}}
"""Each user's accounts, as the bank's API would list them (value -> what the page shows)."""

PAID: list[tuple[str, int]] = []


def build_server(public_url: str) -> MCPServer:
    """The billing server, serving its pages at `public_url` (the origin a browser reaches it at)."""
    server = MCPServer("billing")
    serve_pages(server, public_url=public_url, brand=PageBrand(title="Acme Billing"))

    @server.tool()
    @elicits(timeout=300)
    async def pay_invoice(ctx: ElicitContext, user: str, invoice_amount: int) -> str:
        """Pay an invoice from one of the user's accounts."""
        result = await ctx.elicit_page(
            Payment, options={"account": ACCOUNTS[user]}, defaults={"amount": invoice_amount}
        )
        if not isinstance(result, Accepted):
            return "Nothing was paid."
        PAID.append((result.data.account, result.data.amount))
        return f"Paid {result.data.amount} EUR from {result.data.account}"

    return server


if __name__ == "__main__":
    build_server("http://127.0.0.1:8000").run("streamable-http")
