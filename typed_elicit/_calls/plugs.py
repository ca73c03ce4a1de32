"""Where the optional parts plug into a call: pages (`serve_pages`) and the fallback (`install_fallback`).

A call never imports them. Each registers, per server, the object a call reaches it
through: the pages register a `PageHost` (`serve`), the fallback a `ModelRoute`
(`route`). A call finds them with `host_for` and `route_for`; a server that has none
gets `PagesNotServed` or `FallbackNotInstalled` when a question needs one.

Also here: `Resume`, what the fallback's companion tool hands the call it runs again.
"""

from __future__ import annotations

import contextvars
import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, NoReturn, Protocol, cast

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import ElicitResult as WireResult
from pydantic import BaseModel

from typed_elicit._calls.state import PageRecord, ReplayState
from typed_elicit._forms.record import Reduced

PageAction = Literal["accept", "decline", "cancel"]


@dataclass(frozen=True)
class PageAnswer:
    """What the user did on a page: the action and, for `accept`, the checked wire content."""

    action: PageAction
    content: dict[str, Any] = field(default_factory=dict[str, Any])


@dataclass(frozen=True)
class PageShape:
    """How a page question is shaped at call time: what its sealed ticket carries to every replica.

    The page server shapes the model again from these (`shaped(..., page=True)`) and shows,
    and checks answers against, the same form the call pinned.

    Attributes:
        options: Per `Choices()` field name, its options: values, or value -> title.
        defaults: Per field name, its default as a wire value (JSON).
    """

    options: dict[str, list[str] | dict[str, str]] | None
    defaults: dict[str, Any] | None

    @classmethod
    def of(cls, record: Reduced, keys: Mapping[str, str], options: Mapping[str, Any] | None) -> PageShape:
        """The shape of a question shaped with `options`, whose record is `record`.

        Args:
            record: The shaped record (its `fill` holds the defaults as wire values).
            keys: The model's python field names -> wire names.
            options: The options as given (already checked by the shaping).
        """
        offered: dict[str, list[str] | dict[str, str]] | None = None
        if options is not None:
            offered = {}
            for name, offer in options.items():
                offered[name] = (
                    dict(cast("Mapping[str, str]", offer)) if isinstance(offer, Mapping) else list(offer)
                )
        names = {key: name for name, key in keys.items()}
        filled = {names[key]: value for key, value in record.fill.items()} or None
        return cls(offered, filled)


class PageHost(Protocol):
    """The pages of one server, as a call reaches them (`typed_elicit.pages` serves them).

    Every method that touches the store may raise `StoreUnavailable`.
    """

    @property
    def poll_seconds(self) -> float:
        """On 2026-07-28, how long one round waits for a page's answer."""
        ...

    def mint(self, function: str, request: str, timeout: float) -> PageRecord:
        """A new page for a question of `function` in `request`, expiring with `timeout`."""
        ...

    def url(self, page: PageRecord) -> str:
        """The page's public URL."""
        ...

    async def open(
        self,
        page: PageRecord,
        model: type[BaseModel],
        message: str,
        function: str,
        principal: str | None,
        shape: PageShape | None = None,
    ) -> None:
        """Store the page's sealed ticket, bound to the call, its authenticated `principal` and `shape`."""
        ...

    async def answer(self, page: PageRecord, wait: float | None) -> PageAnswer | None:
        """The page's answer: at once (`wait=None`), or as soon as it comes within `wait` seconds."""
        ...

    async def take(self, page: PageRecord) -> bool:
        """Claim the page's answer for this call's round; False if a round took it already."""
        ...

    async def keep(self, page: PageRecord, answer: PageAnswer, until: float) -> None:
        """Hold a taken answer for the rest of its call (at most until `until`), sealed."""
        ...

    async def kept(self, page: PageRecord) -> PageAnswer | None:
        """The answer `keep` holds for the page, or None once it is released or expired."""
        ...

    async def release(self, page: PageRecord) -> None:
        """Forget the held answer (when its call ends)."""
        ...


class ModelRoute(Protocol):
    """How a question reaches the user through the model (`install_fallback`)."""

    @property
    def tool(self) -> str:
        """The companion tool's name."""
        ...

    def hand_over(
        self,
        sdk: Context[Any, Any],
        tool: str,
        arguments: dict[str, Any],
        state: ReplayState,
        message: str,
        schema: dict[str, Any],
    ) -> NoReturn:
        """End the call with a result that asks the model to put the question to the user.

        Raises:
            FallbackRequired: Always (the internal signal `@elicits` turns into the result).
        """
        ...


@dataclass(frozen=True)
class Resume:
    """A call resumed by the companion tool: the original call and the answer it brings."""

    tool: str
    arguments: dict[str, Any]
    state: ReplayState
    response: WireResult


resuming: contextvars.ContextVar[Resume | None] = contextvars.ContextVar("typed_elicit_resume", default=None)
"""Set by the companion tool while it runs the original tool again; read by `@elicits`."""

_hosts: weakref.WeakKeyDictionary[MCPServer, PageHost] = weakref.WeakKeyDictionary()
_routes: weakref.WeakKeyDictionary[MCPServer, ModelRoute] = weakref.WeakKeyDictionary()


def serve(server: MCPServer, host: PageHost) -> None:
    """Make `host` the page host of `server` (`serve_pages` checks it is the first)."""
    _hosts[server] = host


def host_for(server: MCPServer) -> PageHost | None:
    """The page host of `server`, or None when it serves no pages."""
    return _hosts.get(server)


def route(server: MCPServer, model_route: ModelRoute) -> None:
    """Make `model_route` the fallback of `server` (`install_fallback` checks it is the first)."""
    _routes[server] = model_route


def route_for(server: MCPServer) -> ModelRoute | None:
    """The fallback of `server`, or None when `install_fallback` was not called."""
    return _routes.get(server)
