"""Connect a code-hosting account without the API key ever passing through the client.

Form mode must not collect passwords, API keys or tokens, so the tool asks only the
harmless part with a form (which access to grant) and sends the user to a page of
ours with URL mode for the sign-in itself. The page runs the provider's OAuth flow;
its callback (`/oauth/callback` below) records the account. The client and the model
only ever see the URL and the user's consent to open it.

The state token in the URL is minted inside `ctx.once`: on protocol 2026-07-28 the
tool runs again after every answer, and it must look for the sign-in the user
actually opened, not a freshly minted one (a changed URL would also be a
`ReplayMismatch`). Once the sign-in is done, `ctx.complete_url` tells a 2025-11-25
client so; on other eras it does nothing. A client without URL mode (protocol
2025-06-18, or no `elicitation.url` capability) gets a plain answer instead.
"""

from __future__ import annotations

import secrets
import uuid
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlencode

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, Field
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from typed_elicit import Accepted, Cancelled, Consented, Declined, ElicitContext, elicits
from typed_elicit.errors import ElicitationUnsupported

server = MCPServer("accounts")

AUTH_PAGE = "https://auth.example.com/connect"
"""Our own page that starts the provider's OAuth flow (served elsewhere)."""


@dataclass
class Flow:
    """One sign-in in progress, keyed by its state token."""

    service: str
    account: str | None = None


FLOWS: dict[str, Flow] = {}
"""Sign-ins in progress, in memory; several replicas need a shared store (e.g. Redis)."""


def start_flow(service: str) -> dict[str, str]:
    """Mint the state token that ties the page's callback to this call."""
    state = secrets.token_urlsafe(24)
    FLOWS[state] = Flow(service)
    return {"state": state, "elicitation_id": str(uuid.uuid4())}


def finish_flow(state: str, account: str) -> bool:
    """Record the account the provider confirmed; False for an unknown or used state."""
    flow = FLOWS.get(state)
    if flow is None or flow.account is not None:
        return False
    flow.account = account
    return True


def end_flow(state: str) -> str | None:
    """Forget a sign-in; returns the account if it finished."""
    flow = FLOWS.pop(state, None)
    return flow.account if flow is not None else None


async def exchange_code(service: str, code: str) -> str:
    """Trade the provider's one-time code for a token and store it; returns the account name.

    Stubbed: a real server calls the provider's token endpoint here.
    """
    return f"{service}-user"


async def oauth_callback(request: Request) -> Response:
    """Where the provider redirects after sign-in: record the account for the waiting call."""
    state, code = request.query_params.get("state", ""), request.query_params.get("code", "")
    flow = FLOWS.get(state)
    if flow is None or not code:
        return PlainTextResponse("Unknown sign-in.", status_code=400)
    finish_flow(state, await exchange_code(flow.service, code))
    return PlainTextResponse("Connected; you can close this tab.")


server.custom_route("/oauth/callback", methods=["GET"])(oauth_callback)


class Access(BaseModel):
    """Which access should we have to your account?"""

    access: Literal["read", "read-write"] = "read"


class SignedIn(BaseModel):
    done: bool = Field(title="I have finished signing in")


@server.tool()
@elicits(Access, SignedIn, timeout=300)
async def connect_account(service: Literal["github", "gitlab"], ctx: ElicitContext) -> str:
    """Connect the user's account on a code-hosting service."""
    match await ctx.elicit(Access):
        case Accepted(Access(access=access)):
            pass
        case _:
            return f"{service} was not connected"
    flow = await ctx.once("flow", lambda: start_flow(service))
    url = f"{AUTH_PAGE}?{urlencode({'service': service, 'access': access, 'state': flow['state']})}"
    message = f"Sign in to {service} on our page to grant {access} access."
    try:
        answer = await ctx.elicit_url(url, message, elicitation_id=flow["elicitation_id"])
    except ElicitationUnsupported:
        end_flow(flow["state"])
        return f"This client cannot open sign-in pages; connect {service} in the web app instead"
    match answer:
        case Consented():
            pass
        case Declined():
            end_flow(flow["state"])
            return f"{service} was not connected"
        case Cancelled():
            end_flow(flow["state"])
            return "Connection cancelled"
    confirmed = await ctx.elicit(SignedIn, f"Finish signing in to {service} on the page, then confirm.")
    account = end_flow(flow["state"])
    match confirmed:
        case Accepted(SignedIn(done=True)) if account is not None:
            await ctx.complete_url(flow["elicitation_id"])
            return f"Connected {service} account {account} with {access} access"
        case Accepted(SignedIn(done=True)):
            return f"The sign-in to {service} has not finished; please try again"
        case _:
            return "Connection cancelled"


if __name__ == "__main__":
    server.run()
