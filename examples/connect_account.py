"""Connect a code-hosting account without the API key ever passing through the client.

Form mode must not collect passwords, API keys or tokens, so the tool sends the user
to a page of ours with URL mode. The page runs the provider's OAuth flow and its
callback (`/oauth/callback` below) hands the result to the waiting tool; the client
and the model only ever see a URL and the user's consent to open it.

The state token in the URL is minted inside `ctx.once`: on protocol 2026-07-28 the
tool runs again once the user has answered, and it must wait for the flow the user
actually opened, not a freshly minted one (a changed URL would also be a
`ReplayMismatch`). `ctx.complete_url` tells a 2025-11-25 client that the page is
done; on other eras it does nothing. A client without URL mode (protocol 2025-06-18,
or no `elicitation.url` capability) gets a plain answer instead.
"""

from __future__ import annotations

import secrets
import uuid
from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import urlencode

import anyio
from mcp.server.mcpserver import MCPServer
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from typed_elicit import Cancelled, Consented, Declined, ElicitationUnsupported, ElicitContext, elicits

server = MCPServer("accounts")

AUTH_PAGE = "https://auth.example.com/connect"
"""Our own page that starts the provider's OAuth flow (served elsewhere)."""


@dataclass
class Flow:
    """One sign-in in progress, keyed by its state token."""

    service: str
    finished: anyio.Event = field(default_factory=anyio.Event)
    account: str | None = None


FLOWS: dict[str, Flow] = {}
"""Sign-ins in progress, in memory; several replicas need a shared store with pub/sub (e.g. Redis)."""


def start_flow(service: str) -> dict[str, str]:
    """Mint the state token that ties the page's callback to this call."""
    state = secrets.token_urlsafe(24)
    FLOWS[state] = Flow(service)
    return {"state": state, "elicitation_id": str(uuid.uuid4())}


def finish_flow(state: str, account: str) -> bool:
    """Record the account the provider confirmed; False for an unknown or used state."""
    flow = FLOWS.get(state)
    if flow is None or flow.finished.is_set():
        return False
    flow.account = account
    flow.finished.set()
    return True


async def exchange_code(service: str, code: str) -> str:
    """Trade the provider's one-time code for a token and store it; returns the account name.

    Stubbed: a real server calls the provider's token endpoint here.
    """
    return f"{service}-user"


async def oauth_callback(request: Request) -> Response:
    """Where the provider redirects after sign-in: finish the flow and wake the waiting tool."""
    state, code = request.query_params.get("state", ""), request.query_params.get("code", "")
    flow = FLOWS.get(state)
    if flow is None or not code:
        return PlainTextResponse("Unknown sign-in.", status_code=400)
    finish_flow(state, await exchange_code(flow.service, code))
    return PlainTextResponse("Connected; you can close this tab.")


server.custom_route("/oauth/callback", methods=["GET"])(oauth_callback)


@server.tool()
@elicits(timeout=120)
async def connect_account(service: Literal["github", "gitlab"], ctx: ElicitContext) -> str:
    """Connect the user's account on a code-hosting service."""
    flow = await ctx.once("flow", lambda: start_flow(service))
    url = f"{AUTH_PAGE}?{urlencode({'service': service, 'state': flow['state']})}"
    message = f"Sign in to {service} on our page to connect your account."
    try:
        answer = await ctx.elicit_url(url, message, elicitation_id=flow["elicitation_id"])
    except ElicitationUnsupported:
        FLOWS.pop(flow["state"], None)
        return f"This client cannot open sign-in pages; connect {service} in the web app instead"
    match answer:
        case Consented():
            pass
        case Declined():
            return f"{service} was not connected"
        case Cancelled():
            return "Connection cancelled"
    pending = FLOWS[flow["state"]]
    with anyio.move_on_after(600):
        await pending.finished.wait()
    if pending.account is None:
        return f"Sign-in to {service} did not finish in time; please try again"
    await ctx.complete_url(flow["elicitation_id"])
    return f"Connected {service} account {pending.account}"


if __name__ == "__main__":
    server.run()
