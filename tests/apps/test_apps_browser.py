"""Issue 23's proof in a real host: app-rendered questions through the official MCP Apps host bridge.

A real uvicorn MCP server (streamable HTTP) runs a tool that asks a form question; a real
`mcp.Client` answers it through the client half's `elicitation_handler(form=..., app=...)`,
whose app renderer is `ChromiumAppHost`: headless Chromium opens the test host page
(tests/apps/host/), which renders the server's `ui://` resource with ext-apps 2.0.4's
`AppBridge` through a sandbox proxy on a second origin, forwards the `elicitation/create` to the
app as the draft says (SEP-3118 / ext-apps PR 733), checks the app's `ElicitResult` against the
`requestedSchema` itself, and returns it. A scripted person fills, submits, declines, cancels
inside the app frame; one invalid try is caught by the app's own check; a forged out-of-range
answer that gets past the host is refused by the server's re-validation (it asks again); a
hostile view's answer outside the schema is refused by the host, which shows the plain form. A
long call-time list is searched in the app under the tool's preview; two questions asked at
once get one app instance each. A client without the app capability gets the plain form. On
2025-11-25 (push) and 2026-07-28 (rounds). The server is tests/apps/real_server.py
(typed_elicit.apps). `UPDATE_SCREENSHOTS=1` writes docs/img/app-view*.png.

Needs `chromium`, the `playwright` package (dev extra) and `npm`: the test runs
`tests/apps/host/install.sh` itself (pinned `npm ci` + an esbuild bundle; a no-op when done).
Without them the test is skipped, except under CI (`CI=true`), where it fails saying what to install.
"""

from __future__ import annotations

import os
import shutil
import socket
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
import uvicorn
from mcp.client import ClientRequestContext
from mcp.server.mcpserver import MCPServer

from tests.apps.host_renderer import (
    BUNDLE,
    HOST_DIR,
    AppView,
    ChromiumAppHost,
    read_app_request,
    serve_host,
    trace_events,
)
from tests.apps.real_server import PICK_URI, WAREHOUSES
from tests.apps.under_test import (
    APP_CLIENT_EXTENSIONS,
    RESOURCE_URI,
    build_server,
    elicitation_handler,
)
from tests.axe import playwright_or_skip
from tests.conftest import _Uvicorn
from typed_elicit import Accepted, Cancelled, Declined
from typed_elicit._wire.draft import PIN
from typed_elicit.client import FormRequest
from typed_elicit.testing import connect

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
DOCS_IMG = Path(__file__).resolve().parents[2] / "docs" / "img"
BROWSER_BOUND = 60.0
"""Seconds one whole call (every view of it) may take before the test fails."""
ERAS = ["2025-11-25", "2026-07-28"]
INSTALL = HOST_DIR / "install.sh"

pytestmark = [pytest.mark.anyio, pytest.mark.browser, pytest.mark.slow]


def _browser_or_skip() -> Any:
    return playwright_or_skip(
        "the app host test",
        INSTALL,
        BUNDLE,
        "npm, to install the test host (apt-get install -y npm; tests/apps/host/install.sh)",
    )


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    """One event loop for the module, so one browser serves every run (each gets its own context)."""
    return "asyncio"


@pytest.fixture(scope="module")
async def browser() -> AsyncIterator[Any]:
    async_playwright = _browser_or_skip()
    async with async_playwright() as playwright:
        chromium = await playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            yield chromium
        finally:
            await chromium.close()


@asynccontextmanager
async def serving(build: Callable[[str], MCPServer]) -> AsyncIterator[str]:
    """Serve the server `build(origin)` makes on a loopback port; yields its MCP URL."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        origin = f"http://127.0.0.1:{sock.getsockname()[1]}"
        http = _Uvicorn(
            uvicorn.Config(build(origin).streamable_http_app(), log_level="warning", lifespan="on")
        )
        async with anyio.create_task_group() as group:
            group.start_soon(http.serve, [sock])
            with anyio.fail_after(10):
                await http.ready.wait()
            try:
                yield f"{origin}/mcp"
            finally:
                http.should_exit = True


async def no_form(request: FormRequest) -> Any:
    raise AssertionError("an app-capable client shows the app, not the plain form")


async def call(
    era: str,
    browser: Any,
    persons: list[Any] | dict[str, Any],
    *,
    tool: str = "book_offsite",
    form: Any = no_form,
    shots: dict[int | str, Path] | None = None,
) -> tuple[types.CallToolResult, ChromiumAppHost]:
    """Call the tool once with an app-capable client whose renderer is the Chromium host."""
    async with serve_host() as origins, serving(build_server) as endpoint:
        host = ChromiumAppHost(browser, origins, persons, server_name="offsite-desk", shots=shots or {})
        handler = elicitation_handler(form, app=host)
        async with connect(
            endpoint, era, elicitation_callback=handler, extensions=APP_CLIENT_EXTENSIONS
        ) as client:
            with anyio.fail_after(BROWSER_BOUND):
                result = await client.call_tool(tool, {})
    return result, host


def text(result: types.CallToolResult) -> str:
    assert isinstance(result.content[0], types.TextContent), result
    return result.content[0].text


async def fill(view: AppView, organiser: str, city: str, seats: str) -> None:
    await view.app.get_by_label("Organiser").fill(organiser)
    await view.app.get_by_label("City").select_option(city)
    await view.app.get_by_label("Seats").fill(seats)


async def submit(view: AppView) -> None:
    await view.app.get_by_role("button", name="Submit").click()


@pytest.mark.parametrize("era", ERAS)
async def test_a_person_fills_the_app_in_a_real_host_and_the_tool_gets_the_typed_answer(
    era: str, browser: Any, tmp_path: Path
):
    seen: dict[str, Any] = {}

    async def person(view: AppView) -> None:
        seen["pin"] = await view.page.evaluate("() => window.typedElicitHost.DRAFT_PIN")
        main = view.page.main_frame
        proxy = next(frame for frame in view.page.frames if frame.parent_frame == main)
        app = next(frame for frame in view.page.frames if frame.parent_frame == proxy)
        seen["origins"] = [await frame.evaluate("() => window.origin") for frame in (main, proxy, app)]
        seen["sandbox"] = await proxy.evaluate("() => document.querySelector('iframe').sandbox.value")
        await fill(view, "Ada", "porto", "40")  # out of range: the app's own check catches it
        await view.app.get_by_label("Vegetarian menu").check()
        await submit(view)
        invalid = view.app.locator('[aria-invalid="true"]')
        await invalid.first.wait_for()
        seen["invalid"] = await invalid.evaluate_all("(fields) => fields.map((f) => f.name)")
        seen["errors"] = " ".join(await view.app.locator("[role=alert], .error").all_inner_texts())
        await view.settled()
        await view.page.screenshot(path=str(tmp_path / "app-view-error.png"))
        await view.app.get_by_label("Seats").fill("6")
        await submit(view)

    result, host = await call(era, browser, [person], shots={0: tmp_path / "app-view.png"})

    assert text(result) == "Booked 6 seats in porto for Ada, vegetarian"
    assert seen["pin"] == PIN  # the host follows the same draft as the server side
    host_origin, proxy_origin, app_origin = seen["origins"]
    assert host_origin != proxy_origin  # the sandbox proxy on a second origin, as 2.0.4 requires
    assert app_origin == "null"  # the app itself on an opaque origin: no allow-same-origin
    assert "allow-same-origin" not in seen["sandbox"]
    [rendered] = host.rendered
    assert rendered.outcome == "result"
    assert rendered.request.resource_uri == RESOURCE_URI
    assert rendered.request.protocol_version == era
    assert (rendered.request.params.meta or {})["ui"] == {"resourceUri": RESOURCE_URI}
    assert seen["invalid"] == ["seats"]  # the app's own check, before anything leaves the app
    assert "12" in seen["errors"]  # said in plain words, in the app
    events = trace_events(rendered)
    # The bridge conversation, in the draft's order: proxy, ui/initialize (with the app's elicitation
    # capability), initialized, size changes, elicitation/create, ONE result (the invalid try never
    # left the app), teardown answered.
    assert events[:3] == ["sandbox-proxy-ready", "ui/initialize", "initialized"]
    assert rendered.trace[1]["appCapabilities"] == {"elicitation": {}}
    assert events.count("elicitation/create") == 1
    assert events.count("elicit-result") == 1
    assert "size-changed" in events
    assert any("Sending message" in line and "host-context-changed" in line for line in rendered.console)
    assert events[-1] == "teardown-answered"
    assert not {"tools/call", "open-link", "message"} & set(events)  # the app never retries or leaves
    # No error in the host page, the proxy or the app (a CSP violation, a failed load, an exception).
    assert [line for line in rendered.console if line.startswith(("error", "pageerror"))] == []
    if os.environ.get("UPDATE_SCREENSHOTS") and era == "2026-07-28":
        for name in ("app-view.png", "app-view-error.png"):
            shutil.copyfile(tmp_path / name, DOCS_IMG / name)


async def pick_warehouse(view: AppView, search: str, value: str, shot: Path | None = None) -> None:
    await view.app.get_by_role("searchbox").fill(search)
    if shot is not None:
        await view.settled()
        await view.page.screenshot(path=str(shot))
    await view.app.get_by_label("Warehouse").select_option(value)
    await submit(view)


@pytest.mark.parametrize("era", ERAS)
async def test_a_long_call_time_list_is_searched_in_the_app_and_the_preview_says_what_will_happen(
    era: str, browser: Any, tmp_path: Path
):
    seen: dict[str, Any] = {}

    async def person(view: AppView) -> None:
        await view.app.locator("#te-preview p").first.wait_for()  # drawn when the question arrives
        seen["preview"] = await view.app.locator("#te-preview").inner_text()
        await view.app.get_by_role("searchbox").fill("Warehouse 17")
        seen["visible"] = await view.app.locator("option:not([hidden])").all_inner_texts()
        await pick_warehouse(view, "Warehouse 17", "w17", tmp_path / "app-view-picker.png")

    result, host = await call(era, browser, [person], tool="ship_order")

    assert text(result) == "Shipping from Warehouse 17"
    [rendered] = host.rendered
    assert rendered.request.resource_uri == PICK_URI
    meta = rendered.request.params.meta or {}
    assert meta["io.github.typed-elicit/view"]["preview"]["rows"] == [["Tent", "2"], ["Stove", "1"]]
    assert "Ships the order below" in seen["preview"]
    assert "Tent" in seen["preview"]
    assert seen["visible"] == [
        "Warehouse 17"
    ]  # 40 choices, one left after the search (a list box has no "Choose..." row)
    assert len(rendered.request.params.requested_schema["properties"]["warehouse"]["oneOf"]) == len(
        WAREHOUSES
    )
    if os.environ.get("UPDATE_SCREENSHOTS") and era == "2026-07-28":
        shutil.copyfile(tmp_path / "app-view-picker.png", DOCS_IMG / "app-view-picker.png")


@pytest.mark.parametrize("era", ERAS)
async def test_questions_asked_at_once_get_one_app_view_each(era: str, browser: Any):
    async def organiser(view: AppView) -> None:
        await fill(view, "Ada", "lisbon", "5")
        await submit(view)

    async def supplies(view: AppView) -> None:
        await pick_warehouse(view, "03", "w03")

    persons = {RESOURCE_URI: organiser, PICK_URI: supplies}
    result, host = await call(era, browser, persons, tool="plan_trip")

    assert text(result) == "Ada plans, supplies from Warehouse 03"
    assert sorted(r.request.resource_uri for r in host.rendered) == sorted(persons)
    for rendered in host.rendered:  # a fresh app instance per request: its own handshake, one question
        assert trace_events(rendered).count("ui/initialize") == 1
        assert trace_events(rendered).count("elicitation/create") == 1


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("button", ["Decline", "Cancel"])
async def test_decline_and_cancel_in_the_app_reach_the_tool_as_they_are(era: str, button: str, browser: Any):
    async def person(view: AppView) -> None:
        await view.app.get_by_label("Organiser").fill("Ada")
        await view.app.get_by_role("button", name=button).click()

    result, host = await call(era, browser, [person])

    assert text(result) == {"Decline": "declined", "Cancel": "cancelled"}[button]
    assert host.rendered[0].result == {"action": button.lower()}  # no content travels with it


@pytest.mark.parametrize("era", ERAS)
async def test_a_forged_out_of_range_answer_past_the_host_is_refused_by_the_server_which_asks_again(
    era: str, browser: Any
):
    async def person(view: AppView) -> None:
        await fill(view, "Ada", "faro", "3")
        await submit(view)

    async with serve_host() as origins, serving(build_server) as endpoint:
        host = ChromiumAppHost(browser, origins, [person, person], server_name="offsite-desk")
        asked: list[types.ElicitRequestFormParams] = []

        async def lying_client(
            context: ClientRequestContext, params: types.ElicitRequestParams
        ) -> types.ElicitResult:
            # A client that renders the app, then forges the answer the host returned: the server
            # must not trust it.
            assert isinstance(params, types.ElicitRequestFormParams)
            asked.append(params)
            result = await host(await read_app_request(context, params))
            if len(asked) == 1:
                return types.ElicitResult(action="accept", content={**(result.content or {}), "seats": 99})
            return result

        async with connect(
            endpoint, era, elicitation_callback=lying_client, extensions=APP_CLIENT_EXTENSIONS
        ) as client:
            with anyio.fail_after(BROWSER_BOUND):
                result = await client.call_tool("book_offsite", {})

    assert text(result) == "Booked 3 seats in faro for Ada"
    assert len(asked) == 2  # refused once, asked again, in the app again
    assert "could not be used" in asked[1].message
    assert "seats" in asked[1].message
    assert "99" not in asked[1].message  # the refusal never quotes the answer
    assert (asked[1].meta or {})["ui"] == {"resourceUri": RESOURCE_URI}


@pytest.mark.parametrize("era", ERAS)
async def test_the_host_refuses_an_app_answer_outside_the_schema_and_shows_its_plain_form_instead(
    era: str, browser: Any
):
    forms: list[FormRequest] = []

    async def form(request: FormRequest) -> Accepted[Any] | Declined | Cancelled:
        forms.append(request)
        return request.accept({"organiser": "Grace", "city": "faro", "seats": 2})

    async def nobody(view: AppView) -> None:
        return None  # the hostile app answers by itself

    hostile = (Path(__file__).parent / "hostile_view.html").read_text()
    async with serve_host() as origins, serving(build_server) as endpoint:
        host = ChromiumAppHost(browser, origins, [nobody], server_name="offsite-desk", view_html=hostile)
        handler = elicitation_handler(form, app=host)
        async with connect(
            endpoint, era, elicitation_callback=handler, extensions=APP_CLIENT_EXTENSIONS
        ) as client:
            with anyio.fail_after(BROWSER_BOUND):
                result = await client.call_tool("book_offsite", {})

    assert text(result) == "Booked 2 seats in faro for Grace"  # the plain form's answer, not the app's
    [rendered] = host.rendered
    assert rendered.outcome == "fallback"
    assert rendered.reason is not None
    assert "seats: above maximum" in rendered.reason
    assert "smuggled: not a field of the form" in rendered.reason
    assert "99" not in rendered.reason  # the host names fields and rules, never values
    assert trace_events(rendered)[-2:] == ["teardown-answered", "refused"]
    assert len(forms) == 1


TAGS = {
    "type": "object",
    "properties": {
        "tags": {"type": "array", "items": {"enum": ["a", "b", "c"]}, "minItems": 1, "maxItems": 2}
    },
}
"""A multi-select form (Offsite has none), for the host's check of lists."""
CHECKS: dict[str, tuple[dict[str, Any], list[str], dict[str, Any] | None]] = {
    "a valid answer": (
        {"action": "accept", "content": {"organiser": "Ada", "city": "porto", "seats": 3}},
        [],
        None,
    ),
    "decline": ({"action": "decline"}, [], None),
    "an unknown action": ({"action": "maybe"}, ["action: not accept, decline or cancel"], None),
    "cancel with content": (
        {"action": "cancel", "content": {}},
        ["content: only accept carries content"],
        None,
    ),
    "a missing required field": (
        {"action": "accept", "content": {"city": "porto"}},
        ["organiser: required"],
        None,
    ),
    "a wrong type": (
        {"action": "accept", "content": {"organiser": 7, "city": "porto", "vegetarian": "yes"}},
        ["organiser: not a string", "vegetarian: not a boolean"],
        None,
    ),
    "too short, not a choice, not whole": (
        {"action": "accept", "content": {"organiser": "A", "city": "rome", "seats": 2.5}},
        ["organiser: shorter than minLength", "city: not one of the choices", "seats: not an integer"],
        None,
    ),
    "below the minimum": (
        {"action": "accept", "content": {"organiser": "Ada", "city": "faro", "seats": 0}},
        ["seats: below minimum"],
        None,
    ),
    "a fine multi-select": ({"action": "accept", "content": {"tags": ["a", "c"]}}, [], TAGS),
    "a multi-select out of bounds": (
        {"action": "accept", "content": {"tags": ["a", "a", "d"]}},
        ["tags: a choice is repeated", "tags: not one of the choices", "tags: more than maxItems"],
        TAGS,
    ),
}
"""What the host's own check (tests/apps/host/src/check.js) says of an app's answer to `Offsite`."""


async def test_the_hosts_own_check_names_each_field_and_rule_an_answer_breaks(browser: Any):
    async def nobody(view: AppView) -> None:
        return None

    async with serve_host() as origins, serving(build_server) as endpoint:
        schema: dict[str, Any] = {}

        async def capture(context: ClientRequestContext, params: types.ElicitRequestParams) -> Any:
            assert isinstance(params, types.ElicitRequestFormParams)
            schema.update(params.requested_schema)
            return types.ElicitResult(action="decline")

        async with connect(endpoint, "2026-07-28", elicitation_callback=capture) as client:
            with anyio.fail_after(BROWSER_BOUND):
                await client.call_tool("book_offsite", {})
        page = await browser.new_page()
        try:
            with anyio.fail_after(BROWSER_BOUND):
                await page.goto(origins.page)
                await page.wait_for_function("() => window.typedElicitHost !== undefined")
                said = {
                    case: await page.evaluate(
                        "([result, schema]) => window.typedElicitHost.checkElicitResult(result, schema)",
                        [result, own or schema],
                    )
                    for case, (result, _, own) in CHECKS.items()
                }
        finally:
            await page.close()

    assert said == {case: problems for case, (_, problems, _) in CHECKS.items()}


@pytest.mark.parametrize("era", ERAS)
async def test_a_client_without_the_app_capability_gets_the_plain_form(era: str):
    seen: list[FormRequest] = []

    async def form(request: FormRequest) -> Accepted[Any] | Declined | Cancelled:
        seen.append(request)
        return request.accept({"organiser": "Grace", "city": "lisbon"})

    async def raw(context: ClientRequestContext, params: types.ElicitRequestParams) -> Any:
        assert isinstance(params, types.ElicitRequestFormParams)
        # No `_meta.ui` for a client that did not ask for apps (the SDK may add a `traceparent` when an
        # earlier test's OpenTelemetry provider is bound to its tracer: that is not ours to refuse).
        meta = params.model_dump(by_alias=True, exclude_none=True).get("_meta", {})
        assert set(meta) <= {"traceparent", "tracestate", "baggage"}
        return await elicitation_handler(form)(context, params)

    async with serving(build_server) as endpoint, connect(endpoint, era, elicitation_callback=raw) as client:
        with anyio.fail_after(BROWSER_BOUND):
            result = await client.call_tool("book_offsite", {})

    assert text(result) == "Booked 4 seats in lisbon for Grace"
    assert len(seen) == 1
