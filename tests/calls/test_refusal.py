"""The one refusal path: the same policy and reason give the same outcome on every asker.

A client that cannot be asked meets `refusal.refuse` whichever asker the call chose: the
push asker (2025-06-18, 2025-11-25), the replay asker (2026-07-28) and the unreachable asker
(a protocol before elicitation, 2025-03-26). Each row of `ROWS` is a question kind and a
policy with the one outcome every asker must give; the reason is each connection's own
(`reach`), and the message names it.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any, cast

import anyio
import pytest
from mcp import Client
from mcp.client._memory import InMemoryTransport
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import MISSING_REQUIRED_CLIENT_CAPABILITY, TextContent
from pydantic import BaseModel

from tests.conftest import BOUND
from typed_elicit import Accepted, Cancelled, Declined, ElicitContext, elicits, install_fallback
from typed_elicit.client import PinnedHandshake
from typed_elicit.fallback._companion import META_KEY
from typed_elicit.testing import connect

if TYPE_CHECKING:
    from typed_elicit._calls.policy import OnUnsupported, UrlOnUnsupported

pytestmark = pytest.mark.anyio


class Room(BaseModel):
    """Which room?"""

    floor: int = 2
    wing: str = "east"


class Guest(BaseModel):
    """Who stays?"""

    name: str
    nights: int = 1


def build() -> MCPServer:
    server = MCPServer("refusals")
    install_fallback(server)

    @server.tool(name="form")
    @elicits
    async def ask_form(ctx: ElicitContext, model: str, policy: str) -> str:
        chosen = {"Room": Room, "Guest": Guest}[model]
        return describe(await ctx.elicit(chosen, on_unsupported=cast("OnUnsupported", policy)))

    @server.tool(name="url")
    @elicits
    async def ask_url(ctx: ElicitContext, policy: str) -> str:
        url, answer = "https://pay.example.com/", cast("UrlOnUnsupported", policy)
        return describe(await ctx.elicit_url(url, "Pay?", on_unsupported=answer))

    return server


def describe(result: object) -> str:
    match result:
        case Accepted(data):
            return f"Accepted {data!r}"
        case Declined() | Cancelled():
            return type(result).__name__
        case _:
            return f"Consented {result!r}"


def unreachable(server: MCPServer) -> Client:
    """A client that offers 2025-03-26, a protocol before elicitation."""
    return Client(PinnedHandshake(InMemoryTransport(server), "2025-03-26"), mode="legacy")


NO_CAPABILITY = "the client did not declare the elicitation capability"

ASKERS: dict[str, tuple[Callable[[MCPServer], AbstractAsyncContextManager[Any]], dict[str, str]]] = {
    "push 2025-06-18": (
        lambda s: connect(s, "2025-06-18"),
        {"form": NO_CAPABILITY, "url": "the negotiated protocol 2025-06-18 has no URL mode"},
    ),
    "push 2025-11-25": (lambda s: connect(s, "2025-11-25"), {"form": NO_CAPABILITY, "url": NO_CAPABILITY}),
    "replay 2026-07-28": (lambda s: connect(s, "2026-07-28"), {"form": NO_CAPABILITY, "url": NO_CAPABILITY}),
    "unreachable 2025-03-26": (
        unreachable,
        dict.fromkeys(("form", "url"), "the negotiated protocol 2025-03-26 has no elicitation"),
    ),
}
"""Each asker, reached by a connection whose client cannot be asked, and the reason `reach` gives per kind."""

ROWS = [
    ("form", "Room", "raise", ("unsupported", "cannot ask for Room")),
    ("form", "Room", "decline", ("result", "Declined")),
    ("form", "Room", "defaults", ("result", "Accepted Room(floor=2, wing='east')")),
    ("form", "Guest", "defaults", ("unsupported", "has none for name")),
    ("form", "Room", "fallback", ("to the model", "Which room?")),
    ("url", "", "raise", ("unsupported", "cannot send the user to a URL")),
    ("url", "", "decline", ("result", "Declined")),
]
"""(question kind, model, policy, the outcome every asker gives)."""


async def outcome(client: Client, kind: str, model: str, policy: str) -> tuple[str, str]:
    """What the call came to (a result, the question handed to the model, or unsupported), and its text."""
    arguments = {"policy": policy} | ({"model": model} if kind == "form" else {})
    try:
        with anyio.fail_after(BOUND):
            result = await client.call_tool(kind, arguments)
    except MCPError as error:  # 2026-07-28: a missing capability is a JSON-RPC error
        return missing_capability(error)
    assert isinstance(result.content[0], TextContent)
    text = result.content[0].text
    if result.meta and META_KEY in result.meta:
        return "to the model", text
    if result.is_error:
        assert "ElicitationUnsupported" in text
        return "unsupported", text
    return "result", text


def missing_capability(error: MCPError) -> tuple[str, str]:
    assert error.code == MISSING_REQUIRED_CLIENT_CAPABILITY
    return "unsupported", error.message


@pytest.mark.parametrize(("kind", "model", "policy", "expected"), ROWS)
async def test_the_same_policy_and_reason_give_the_same_outcome_on_every_asker(
    kind: str, model: str, policy: str, expected: tuple[str, str]
) -> None:
    server = build()
    seen: dict[str, str] = {}
    for name, (connection, reasons) in ASKERS.items():
        async with connection(server) as client:
            what, text = await outcome(client, kind, model, policy)
        assert (what, expected[1] in text) == (expected[0], True), (name, text)
        if what == "unsupported":
            assert reasons[kind] in text, (name, text)
        seen[name] = what
    assert set(seen.values()) == {expected[0]}
