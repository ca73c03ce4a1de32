"""Where the optional parts plug into a call: pages (`serve_pages`), the fallback, app views.

A call never imports them. Each registers, per server, the object a call reaches it
through: the pages register a `PageHost` (`serve`), the fallback a `ModelRoute`
(`route`), the app views an `AppHost` (`show`) and take an `AppPreview`. A call finds them with `host_for`,
`route_for` and `apps_for`; a server that has none gets `PagesNotServed` or
`FallbackNotInstalled` when a question needs one (a question without an app view is a plain form).

Also here: `Resume`, what the fallback's companion tool hands the call it runs again.
"""

from __future__ import annotations

import contextvars
import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, NoReturn, Protocol

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
        form: Reduced,
        *,
        locale: str | None = None,
    ) -> None:
        """Store the page's sealed ticket, bound to the call and its authenticated `principal`.

        A `form` shaped at call time travels in the ticket as it was shaped, for every replica,
        and so does the `locale` the call asked the page to speak.
        """
        ...

    async def answer(self, page: PageRecord, wait: float | None) -> PageAnswer | None:
        """The page's answer: at once (`wait=None`), or as soon as it comes within `wait` seconds."""
        ...

    async def take(self, page: PageRecord) -> bool:
        """Claim the page's answer for this call's round; False if a round took it already."""
        ...

    async def keep(self, page: PageRecord, answer: PageAnswer, until: float) -> None:
        """Hold a taken answer, sealed, for its call's later rounds (at most until `until`).

        Called only when a round that took the answer ends while the call goes on.
        """
        ...

    async def kept(self, page: PageRecord) -> PageAnswer | None:
        """The answer `keep` holds for the page, or None once it is released or expired."""
        ...

    async def close(self, page: PageRecord, *, answered: bool, held: bool = False) -> None:
        """Its call has ended: forget the `held` answer, and close the page unless the call got its answer."""
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


class AppPreview(Protocol):
    """What answering will do, shown by a question's app view: `typed_elicit.apps.Preview`."""

    def wire(self) -> dict[str, Any]:
        """The preview as it travels in the request's `_meta` (JSON)."""
        ...


class AppHost(Protocol):
    """The app views of one server, as a call reaches them (`typed_elicit.apps` serves them)."""

    @property
    def advertised(self) -> bool:
        """Whether the server advertises `elicitation` in its MCP Apps capability (SEP-3118)."""
        ...

    def uri(self, model: type[BaseModel]) -> str | None:
        """The `ui://` resource of `model`'s app view, or None when the server serves it none."""
        ...

    def meta(
        self, model: type[BaseModel], schema: Mapping[str, Any], preview: AppPreview | None, key: str
    ) -> dict[str, Any]:
        """The request `_meta` showing question `key` as `model`'s app view (which `uri` found served)."""
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
_apps: weakref.WeakKeyDictionary[MCPServer, AppHost] = weakref.WeakKeyDictionary()


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


def show(server: MCPServer, apps: AppHost) -> None:
    """Make `apps` the app views of `server` (`serve_apps` checks it is the first)."""
    _apps[server] = apps


def apps_for(server: MCPServer) -> AppHost | None:
    """The app views of `server`, or None when it serves none."""
    return _apps.get(server) if _apps else None
