"""Where the optional parts plug into a call: pages (`serve_pages`), the fallback, app views.

A call never imports them. Each registers, per server, the object a call reaches it
through: the pages register a `PageHost` (`serve`), the fallback a `ModelRoute`
(`route`), the app views an `AppHost` (`show`). A call finds them with `host_for`,
`route_for` and `apps_for`; a server that has none gets `PagesNotServed` or
`FallbackNotInstalled` when a question needs one (a question without an app view is a plain form).

Also here: `Resume`, what the fallback's companion tool hands the call it runs again.
"""

from __future__ import annotations

import contextvars
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal, NoReturn, Protocol

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import ElicitResult as WireResult
from pydantic import BaseModel

from typed_elicit._calls.state import PageRecord, ReplayState
from typed_elicit._forms.record import Reduced
from typed_elicit.errors import AppViewError

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
    ) -> None:
        """Store the page's sealed ticket, bound to the call and its authenticated `principal`.

        A `form` shaped at call time travels in the ticket as it was shaped, for every replica.
        """
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

    async def consumed(self, page: PageRecord) -> None:
        """The call holds the page's answer (push eras): delete what the store keeps of its files."""
        ...

    async def kept(self, page: PageRecord) -> PageAnswer | None:
        """The answer `keep` holds for the page, or None once it is released or expired."""
        ...

    async def close(self, page: PageRecord) -> None:
        """Its call has ended: forget the held answer, and close the page if it was never answered."""
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


MAX_PREVIEW_TEXT: Final = 2000
"""Longest preview text (characters)."""
MAX_PREVIEW_ROWS: Final = 50
"""Most rows a preview table shows."""
MAX_PREVIEW_COLUMNS: Final = 8
"""Most columns a preview table has."""
MAX_PREVIEW_CELL: Final = 200
"""Longest preview cell (characters, once shown as text)."""

Cell = str | int | float | bool | None


@dataclass(frozen=True)
class Preview:
    """What answering will do, shown above the form by the question's app view (one call's data).

    Text, a small table, or both; it travels in the request's `_meta` (never in the
    schema), so a client without app views sees the plain form only. Checked when made.

    Attributes:
        text: A paragraph of plain text (no markup is read: it is shown as text).
        columns: The table's column titles (at most 8).
        rows: The table's rows, each as many cells as there are columns (at most 50 rows).

    Raises:
        AppViewError: If it is empty, too large, or a row does not fit the columns.
    """

    text: str | None = None
    columns: Sequence[str] = ()
    rows: Sequence[Sequence[Cell]] = ()

    def __post_init__(self) -> None:
        """Check the sizes (a preview is the server's, but the host shows it whole)."""
        problem = None
        if self.text is None and not self.columns:
            problem = "it has neither text nor columns"
        elif self.text is not None and len(self.text) > MAX_PREVIEW_TEXT:
            problem = f"its text has {len(self.text)} characters, over {MAX_PREVIEW_TEXT}"
        elif len(self.columns) > MAX_PREVIEW_COLUMNS or len(self.rows) > MAX_PREVIEW_ROWS:
            problem = f"a table has at most {MAX_PREVIEW_COLUMNS} columns and {MAX_PREVIEW_ROWS} rows"
        elif self.rows and not self.columns:
            problem = "it has rows but no columns"
        elif any(len(row) != len(self.columns) for row in self.rows):
            problem = f"every row needs {len(self.columns)} cells, one per column"
        elif any(len(str(c)) > MAX_PREVIEW_CELL for c in [*self.columns, *(c for r in self.rows for c in r)]):
            problem = f"a cell or column title is over {MAX_PREVIEW_CELL} characters"
        if problem is not None:
            raise AppViewError(
                "preview", f"this Preview cannot be shown: {problem}; make it smaller or fix it"
            )

    def wire(self) -> dict[str, Any]:
        """The preview as it travels in `_meta` (JSON)."""
        shown: dict[str, Any] = {}
        if self.text is not None:
            shown["text"] = self.text
        if self.columns:
            shown["columns"] = [str(c) for c in self.columns]
            shown["rows"] = [["" if c is None else str(c) for c in row] for row in self.rows]
        return shown


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
        self, model: type[BaseModel], schema: Mapping[str, Any], preview: Preview | None, key: str
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
