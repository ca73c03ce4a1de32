"""Link a bank account: the password and the one-time code go to a page of ours, never to the client.

Form mode must not collect passwords or one-time codes, so the model is a page form
(`@form(page=True)`) and the tool asks with `ctx.elicit_page`: the client only sees a
URL-mode question (a link and the user's consent to open it); the user fills the form on
the server's own page (`serve_pages`), which validates it with the same model and shows
errors next to their fields. The tool gets a `BankLogin` with its `SecretStr` intact.

Run it: `python examples/link_bank.py`, then connect a client with URL-mode elicitation
to http://127.0.0.1:8000/mcp and call `link_bank`.
"""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, Field, SecretStr

from typed_elicit import Accepted, Cancelled, Declined, ElicitContext, elicits, form
from typed_elicit.pages import PageBrand, serve_pages


@form(message="Connect your bank account", page=True)
class BankLogin(BaseModel):
    username: str = Field(title="Username", description="The name you sign in to online banking with")
    password: SecretStr = Field(title="Password")
    otp: Annotated[
        str,
        Field(pattern=r"^\d{6}$", title="One-time code", description="The 6 digits your bank's app shows"),
    ]


LINKED: dict[str, int] = {}
"""Linked accounts: username -> length of the password the bank checked (a stand-in for the bank's API)."""


def connect_bank(username: str, password: SecretStr, otp: str) -> None:
    """Sign in to the bank with the user's credentials (here: only record that it happened)."""
    LINKED[username] = len(password.get_secret_value())


def build_server(public_url: str) -> MCPServer:
    """The bank server, serving its pages at `public_url` (the origin a browser reaches it at)."""
    server = MCPServer("bank")
    serve_pages(server, public_url=public_url, brand=PageBrand(title="Acme Bank"))

    @server.tool()
    @elicits(BankLogin, timeout=300)
    async def link_bank(ctx: ElicitContext) -> str:
        """Link the user's bank account."""
        match await ctx.elicit_page(BankLogin):
            case Accepted(login):
                connect_bank(login.username, login.password, login.otp)
                return f"Linked the account of {login.username} (one-time code accepted)"
            case Declined() | Cancelled():
                return "The account was not linked."

    return server


if __name__ == "__main__":
    build_server("http://127.0.0.1:8000").run("streamable-http")
