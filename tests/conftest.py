"""Shared fixtures: the three protocol eras, scripted users, in-memory and loopback-HTTP clients."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import anyio
import mcp.client.session as client_session
import pytest
import uvicorn
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp_types import INTERNAL_ERROR, ElicitRequestFormParams, ElicitRequestURLParams, ElicitResult, ErrorData

ERAS = ("2025-06-18", "2025-11-25", "2026-07-28")
PUSH_ERAS = ERAS[:2]
BOUND = 10.0
"""Seconds any single wait in a test may take before it fails (never reached when green)."""


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(params=ERAS)
def era(request: pytest.FixtureRequest) -> str:
    """Each protocol era in turn."""
    return str(request.param)


@pytest.fixture(params=PUSH_ERAS)
def push_era(request: pytest.FixtureRequest) -> str:
    """Each era where the server asks mid-call (elicitation/create)."""
    return str(request.param)


Reply = ElicitResult | ErrorData | Callable[[ElicitRequestFormParams], Awaitable[ElicitResult | ErrorData]]


def accept(**content: Any) -> ElicitResult:
    return ElicitResult(action="accept", content=content)


def decline() -> ElicitResult:
    return ElicitResult(action="decline")


def cancel() -> ElicitResult:
    return ElicitResult(action="cancel")


@dataclass
class ScriptedUser:
    """An elicitation callback that answers from a script, in order, and records what it was asked."""

    replies: list[Reply]
    asked: list[ElicitRequestFormParams] = field(default_factory=lambda: [])

    async def __call__(
        self, context: Any, params: ElicitRequestFormParams | ElicitRequestURLParams
    ) -> ElicitResult | ErrorData:
        assert isinstance(params, ElicitRequestFormParams)
        self.asked.append(params)
        if not self.replies:
            return ErrorData(code=INTERNAL_ERROR, message=f"script exhausted at question: {params.message}")
        reply = self.replies.pop(0)
        if callable(reply):
            return await reply(params)
        return reply


def user(*replies: Reply) -> ScriptedUser:
    return ScriptedUser(list(replies))


Connect = Callable[..., Any]


@pytest.fixture
def connect(monkeypatch: pytest.MonkeyPatch) -> Connect:
    """`async with connect(server_or_url, era, user) as client:` on the requested era.

    2025-11-25 is `mode="legacy"`, 2026-07-28 is `mode="auto"`. The SDK has no public
    option for 2025-06-18, so that era patches the version the client's `initialize`
    offers (the server then negotiates 2025-06-18, as an older client would).
    """

    @asynccontextmanager
    async def open_client(
        target: MCPServer | str, era: str, callback: ScriptedUser | None = None, **options: Any
    ) -> AsyncIterator[Client]:
        if era == "2025-06-18":
            monkeypatch.setattr(client_session, "LATEST_HANDSHAKE_VERSION", "2025-06-18")
        mode = "auto" if era == "2026-07-28" else "legacy"
        async with Client(target, mode=mode, elicitation_callback=callback, **options) as client:
            assert client.protocol_version == era
            yield client

    return open_client


def task_count() -> int:
    """How many asyncio tasks exist right now (to show nothing leaks)."""
    return len(asyncio.all_tasks())


class _Uvicorn(uvicorn.Server):
    """A uvicorn server that reports when it is ready, so tests wait on an event, not a sleep."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.ready = anyio.Event()

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        self.ready.set()


@asynccontextmanager
async def serve_http(server: MCPServer, **app_options: Any) -> AsyncIterator[str]:
    """Serve `server` over streamable HTTP on a random loopback port; yields the endpoint URL.

    `app_options` go to `streamable_http_app` (e.g. `stateless_http=True`).
    """
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        http = _Uvicorn(
            uvicorn.Config(
                server.streamable_http_app(**app_options),
                log_level="warning",
                lifespan="on",
                timeout_graceful_shutdown=2,
            )
        )
        async with anyio.create_task_group() as tg:
            tg.start_soon(http.serve, [sock])
            with anyio.fail_after(BOUND):
                await http.ready.wait()
            try:
                yield f"http://127.0.0.1:{port}/mcp"
            finally:
                http.should_exit = True
