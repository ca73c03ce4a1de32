"""A real MCP Apps host for the tests: the official host bridge in headless Chromium, driven from Python.

`serve_host()` serves the host page (tests/apps/host/host.html + the bundled bridge) and the
sandbox proxy (host/sandbox.html) on two loopback ports, i.e. two origins, as ext-apps 2.0.4's
double-iframe layout requires. `ChromiumAppHost` is an app renderer (`AppRequest -> ElicitResult`)
for the client half: for each app-rendered question it opens the host page in a fresh browser
context, hands it the resource HTML, the resource `_meta` and the server's `elicitation/create`
params, lets a scripted person act inside the app frame, and returns the `ElicitResult` the
host produced after its own check. When the host falls back (the app did not start, did not
declare `appCapabilities.elicitation`, or answered outside the schema), it raises the
fallback error, so the client half shows the plain form instead.
"""

from __future__ import annotations

import json
import socket
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import uvicorn
from mcp.client import ClientRequestContext
from mcp.server.apps import APP_MIME_TYPE
from starlette.applications import Starlette
from starlette.responses import FileResponse, Response
from starlette.routing import Route

from tests.apps.under_test import AppCannotRender, AppRequest
from tests.conftest import _Uvicorn

HOST_DIR = Path(__file__).resolve().parent / "host"
BUNDLE = HOST_DIR / "dist" / "host.js"
FILES = {
    "/host.html": ("host.html", "text/html; charset=utf-8"),
    "/dist/host.js": ("dist/host.js", "text/javascript; charset=utf-8"),
    "/sandbox.html": ("sandbox.html", "text/html; charset=utf-8"),
    "/sandbox.js": ("sandbox.js", "text/javascript; charset=utf-8"),
}
STEP_BOUND = 20.0
"""Seconds one step in the browser may take (the page opening, the app answering)."""

ACTION_BOUND = 8.0
"""Seconds one Playwright action (a click, a fill, a wait for an element) may take."""

Person = Callable[["AppView"], Awaitable[None]]
"""What a person does with one app view: fill, submit, decline, cancel (Playwright in the app frame)."""


@dataclass(frozen=True)
class HostOrigins:
    """Where the host page and its sandbox proxy are served (two origins)."""

    host: str
    sandbox: str

    @property
    def page(self) -> str:
        return f"{self.host}/host.html"

    @property
    def proxy(self) -> str:
        return f"{self.sandbox}/sandbox.html?host={self.host}"


def _static_app() -> Starlette:
    def serve(path: str, media_type: str) -> Callable[[Any], Awaitable[FileResponse]]:
        async def endpoint(_request: Any) -> FileResponse:
            return FileResponse(HOST_DIR / path, media_type=media_type, headers={"cache-control": "no-store"})

        return endpoint

    async def no_icon(_request: Any) -> Response:
        return Response(status_code=204)

    routes = [Route(url, serve(path, media)) for url, (path, media) in FILES.items()]
    return Starlette(routes=[*routes, Route("/favicon.ico", no_icon)])


@asynccontextmanager
async def serve_host() -> AsyncIterator[HostOrigins]:
    """Serve the host page and the sandbox proxy on two free loopback ports; yields their origins."""
    with socket.socket() as first, socket.socket() as second:
        first.bind(("127.0.0.1", 0))
        second.bind(("127.0.0.1", 0))
        origins = HostOrigins(
            f"http://127.0.0.1:{first.getsockname()[1]}", f"http://127.0.0.1:{second.getsockname()[1]}"
        )
        http = _Uvicorn(uvicorn.Config(_static_app(), log_level="warning", lifespan="off"))
        async with anyio.create_task_group() as group:
            group.start_soon(http.serve, [first, second])
            with anyio.fail_after(10):
                await http.ready.wait()
            try:
                yield origins
            finally:
                http.should_exit = True


@dataclass
class AppView:
    """One app view open in the host page, as a person's script sees it."""

    page: Any
    """The Playwright page of the host."""
    request: AppRequest

    @property
    def app(self) -> Any:
        """A frame locator for the app itself (inside the sandbox proxy's inner iframe)."""
        return self.page.frame_locator("#app-frame").frame_locator("iframe")

    async def settled(self) -> None:
        """Wait until the host has applied the view's last size change and the app frame has painted it."""
        await self.page.wait_for_function(
            "() => { const f = document.getElementById('app-frame');"
            " return f && f.style.height === window.typedElicitHost.frameHeight; }"
        )
        inner = self.page.frame_locator("#app-frame").frame_locator("iframe").locator("body")
        await inner.evaluate(
            "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"
        )


class HostStuck(AssertionError):
    """The person or the host did not finish one view in time: the host's trace and console say where."""

    def __init__(self, what: str, trace: list[dict[str, Any]], console: list[str]) -> None:
        super().__init__(f"{what}\nhost trace: {json.dumps(trace)}\nconsole: {json.dumps(console[-20:])}")


@dataclass
class Rendered:
    """What one app-rendered question did in the host: the params it got, the host's trace and verdict."""

    request: AppRequest
    outcome: str
    result: dict[str, Any] | None
    reason: str | None
    trace: list[dict[str, Any]]
    console: list[str]


@dataclass
class ChromiumAppHost:
    """An app renderer that shows each question in the test host page in Chromium and lets `persons` answer.

    `persons` is a list (each call takes the next) or a mapping from a view's resource URI to
    its person (for questions asked at once, whose order is not fixed); `shots` names
    screenshots to take before the person acts (`{call index or resource URI: path}`).
    """

    browser: Any
    origins: HostOrigins
    persons: list[Person] | dict[str, Person]
    server_name: str = "the server"
    shots: dict[int | str, Path] = field(default_factory=dict)
    view_html: str | None = None
    """When set, the host renders this HTML, not the resource's (a hostile app, for the host's check)."""
    rendered: list[Rendered] = field(default_factory=list)
    started: int = 0

    async def __call__(self, request: AppRequest) -> types.ElicitResult:
        """Render `request` in the host and return the host's `ElicitResult`.

        Raises:
            AppCannotRender: The host fell back to its native form (the reason is in `rendered`).
        """
        index = self.started
        self.started += 1
        key: int | str = request.resource_uri if isinstance(self.persons, dict) else index
        person = self.persons[request.resource_uri] if isinstance(self.persons, dict) else self.persons[index]
        context = await self.browser.new_context(viewport={"width": 720, "height": 720})
        console: list[str] = []
        try:
            page = await context.new_page()
            page.set_default_timeout(ACTION_BOUND * 1000)  # a stuck locator says which one, before STEP_BOUND
            page.on("console", lambda message: console.append(f"{message.type}: {message.text}"))
            page.on("pageerror", lambda error: console.append(f"pageerror: {error}"))
            with anyio.fail_after(STEP_BOUND):
                await page.goto(self.origins.page)
                await page.wait_for_function("() => window.typedElicitHost !== undefined")
                job = {
                    "resourceUri": request.resource_uri,
                    "html": self.view_html if self.view_html is not None else request.html,
                    "resourceMeta": request.resource_meta,
                    "params": request.params.model_dump(by_alias=True, exclude_none=True, mode="json"),
                    "sandboxUrl": self.origins.proxy,
                    "serverName": self.server_name,
                }
                await page.evaluate("(job) => { window.__run = window.typedElicitHost.elicit(job); }", job)
            view = AppView(page, request)
            try:
                with anyio.fail_after(STEP_BOUND):
                    if key in self.shots:
                        await view.app.locator("button").first.wait_for()
                        await view.settled()
                        await page.screenshot(path=str(self.shots[key]))
                    await person(view)
                    verdict = await page.evaluate("() => window.__run")
            except Exception as exc:
                trace: list[dict[str, Any]] = []
                with anyio.move_on_after(5):
                    trace = await page.evaluate("() => window.typedElicitHost.trace")
                stuck = HostStuck(f"{type(exc).__name__}: {exc}", trace, console)
                print(stuck, file=sys.stderr)  # a client half may report only the error's type
                raise stuck from exc
        finally:
            with anyio.fail_after(10):
                await context.close()
        rendered = Rendered(
            request,
            verdict["outcome"],
            verdict.get("result"),
            verdict.get("reason"),
            verdict["trace"],
            console,
        )
        self.rendered.append(rendered)
        if rendered.outcome != "result":
            raise AppCannotRender(request.resource_uri, rendered.reason or "the host fell back to its form")
        return types.ElicitResult.model_validate(rendered.result)


async def read_app_request(
    context: ClientRequestContext, params: types.ElicitRequestFormParams
) -> AppRequest:
    """What a host reads for an app-rendered question: the named `ui://` resource, from the same server."""
    ui = (params.meta or {}).get("ui")
    uri = ui.get("resourceUri") if isinstance(ui, dict) else None
    assert isinstance(uri, str), "the question names no app"
    content = (await context.session.read_resource(uri)).contents[0]
    assert isinstance(content, types.TextResourceContents)
    assert content.mime_type == APP_MIME_TYPE
    version = str(context.session.protocol_version or "")
    return AppRequest(uri, content.text, dict(content.meta or {}), params, version)


def trace_events(rendered: Rendered) -> list[str]:
    """The host's trace as event names, in order (for asserting the bridge conversation)."""
    return [entry["event"] for entry in rendered.trace]


def dumps(value: Any) -> str:
    """Compact JSON, for comparing what the host saw with what the server sent."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))
