"""`serve_apps` and the app view of a question on every era: negotiation, the wire, answers.

The client is the SDK's in-memory `mcp.Client`; it declares app views with the client half's
`app_capability()` (SEP-3118's `elicitation` in the MCP Apps extension) or not at all.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal

import anyio
import pytest
from mcp import Client
from mcp.client.extension import ClientExtension, advertise
from mcp.server.apps import APP_MIME_TYPE, EXTENSION_ID, Apps
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, ElicitRequestFormParams, ElicitResult, InputRequiredResult, TextContent
from pydantic import BaseModel, Field, model_validator

from tests.conftest import BOUND, ERAS
from typed_elicit import Accepted, ElicitContext, elicits, form
from typed_elicit.apps import AppView, AppViewError, Preview, serve_apps
from typed_elicit.client import app_capability
from typed_elicit.testing import connect

VIEW_KEY = "io.github.typed-elicit/view"
pytestmark = pytest.mark.anyio


def shipping_model(app: object) -> type[BaseModel]:
    """The same form, declared with `app` (or without an app view: `app=None`)."""

    class Shipping(BaseModel):
        """Where should we ship it?"""

        city: str = Field(min_length=2, max_length=40)
        count: int = Field(ge=1, le=5)
        speed: Literal["slow", "fast"] = "slow"

        @model_validator(mode="after")
        def no_fast_single(self) -> Shipping:
            if self.speed == "fast" and self.count == 1:
                raise ValueError("fast shipping is for two or more")
            return self

    return form(app=app)(Shipping) if app is not None else form(Shipping)


def make_server(model: type[BaseModel], *, serve: bool = True, **ask: Any) -> MCPServer:
    server = MCPServer("shop")

    @server.tool()
    @elicits(model, retries=0)
    async def ship(ctx: ElicitContext) -> str:
        result = await ctx.elicit(model, **ask)
        return f"{type(result).__name__}: {result.data.model_dump() if isinstance(result, Accepted) else ''}"

    if serve:
        serve_apps(server, models=[model])
    return server


class Recorder:
    """An elicitation callback that keeps each request's params and answers from a list."""

    def __init__(self, *answers: ElicitResult) -> None:
        self.answers = list(answers)
        self.params: list[ElicitRequestFormParams] = []

    async def __call__(self, context: Any, params: Any) -> ElicitResult:
        self.params.append(params)
        return self.answers.pop(0)


def accept(**content: Any) -> ElicitResult:
    return ElicitResult(action="accept", content=content)


def ui_ad(**settings: Any) -> list[ClientExtension]:
    return [advertise(EXTENSION_ID, settings)]


async def ship(server: MCPServer, era: str, user: Recorder, extensions: list[ClientExtension]) -> str:
    async with connect(server, era, elicitation_callback=user, extensions=extensions) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("ship", {})
    assert isinstance(result.content[0], TextContent)
    return result.content[0].text


# --- the app view reaches a client that can show it ------------------------------------------


async def test_a_client_that_can_show_apps_gets_the_form_with_its_app_view_on_every_era(era):
    model = shipping_model(True)
    server = make_server(model)
    user = Recorder(accept(city="Oslo", count=2, speed="fast"))

    text = await ship(server, era, user, [app_capability()])

    assert text == "Accepted: {'city': 'Oslo', 'count': 2, 'speed': 'fast'}"
    (params,) = user.params
    uri = (params.meta or {})["ui"]["resourceUri"]
    assert uri == "ui://typed-elicit/tests.apps.test_serve.shipping_model.-locals-.Shipping"
    assert params.requested_schema["required"] == ["city", "count"]  # the plain form stays whole


async def test_the_server_advertises_elicitation_in_its_mcp_apps_capability_on_every_era(era):
    server = make_server(shipping_model(True))
    async with connect(server, era, elicitation_callback=Recorder()) as client:
        assert client.server_capabilities.extensions == {EXTENSION_ID: {"elicitation": {}}}


async def test_the_view_is_one_fixed_app_resource_readable_over_the_same_session(era):
    model = shipping_model(True)
    server = make_server(model)
    user = Recorder(accept(city="Oslo", count=2))
    async with connect(server, era, elicitation_callback=user, extensions=[app_capability()]) as client:
        with anyio.fail_after(BOUND):
            listed = await client.list_resources()
            await client.call_tool("ship", {})
            uri = (user.params[0].meta or {})["ui"]["resourceUri"]
            read = await client.read_resource(uri)
    assert [str(r.uri) for r in listed.resources] == [uri]  # served at setup, not per call
    (content,) = read.contents
    assert content.mime_type == APP_MIME_TYPE
    assert (content.meta or {})["ui"]["csp"] == {
        "connectDomains": [],
        "resourceDomains": [],
        "frameDomains": [],
        "baseUriDomains": [],
    }


# --- everything else is today's plain form, byte for byte -------------------------------------

MISSING: dict[str, Callable[[], list[ClientExtension]]] = {
    "no MCP Apps extension": list,
    "MCP Apps without the elicitation member": lambda: ui_ad(mimeTypes=[APP_MIME_TYPE]),
    "elicitation without the app MIME type": lambda: ui_ad(elicitation={}),
    "another MIME type": lambda: ui_ad(mimeTypes=["text/html"], elicitation={}),
    "elicitation that is not an object": lambda: ui_ad(mimeTypes=[APP_MIME_TYPE], elicitation=True),
}


class Wire:
    """A server middleware keeping each `tools/call` result exactly as it goes on the wire."""

    def __init__(self) -> None:
        self.results: list[dict[str, Any]] = []

    async def __call__(self, ctx: Any, call_next: Any) -> Any:
        result = await call_next(ctx)
        if ctx.method == "tools/call":
            self.results.append(result)
        return result


async def wire_of(server: MCPServer, era: str, extensions: list[ClientExtension]) -> str:
    """The question as sent: the requests of the InputRequiredResult, or the pushed params."""
    wire = Wire()
    server.middleware.insert(0, wire)
    user = Recorder(accept(city="Oslo", count=2))
    await ship(server, era, user, extensions)
    if era == "2026-07-28":
        return json.dumps(wire.results[0]["inputRequests"], sort_keys=True)
    pushed = user.params[0].model_dump(by_alias=True, mode="json")
    # The SDK's own trace context differs per request once any test has set a tracer provider.
    (pushed.get("_meta") or {}).pop("traceparent", None)
    return json.dumps(pushed, sort_keys=True)


@pytest.mark.parametrize("missing", list(MISSING))
async def test_a_client_missing_any_piece_gets_todays_plain_form_byte_for_byte(era, missing):
    with_app = await wire_of(make_server(shipping_model(True)), era, MISSING[missing]())
    plain = await wire_of(make_server(shipping_model(None), serve=False), era, MISSING[missing]())

    assert with_app == plain
    assert "_meta" not in with_app or "resourceUri" not in with_app


async def test_a_server_that_does_not_advertise_elicitation_sends_the_plain_form(era):
    server = make_server(shipping_model(True))
    server._lowlevel_server.extensions[EXTENSION_ID].pop("elicitation")  # pyright: ignore[reportPrivateUsage]
    plain = await wire_of(make_server(shipping_model(None), serve=False), era, [app_capability()])

    assert await wire_of(server, era, [app_capability()]) == plain


async def test_a_question_can_turn_its_models_app_view_off(era):
    server = make_server(shipping_model(True), app=False)
    plain = await wire_of(make_server(shipping_model(None), serve=False), era, [app_capability()])

    assert await wire_of(server, era, [app_capability()]) == plain


# --- one call's data: a preview, the searchable choices ---------------------------------------


async def test_a_preview_and_long_choice_lists_travel_in_the_requests_meta(era):
    model = shipping_model(None)
    preview = Preview(text="Ships from Bergen.", columns=["Item", "Qty"], rows=[["Tent", 2]])
    server = make_server(model, app=preview)
    user = Recorder(accept(city="Oslo", count=2))

    await ship(server, era, user, [app_capability()])

    meta = user.params[0].meta or {}
    assert meta[VIEW_KEY] == {
        "preview": {"text": "Ships from Bergen.", "columns": ["Item", "Qty"], "rows": [["Tent", "2"]]}
    }


async def test_a_choice_field_with_many_options_is_named_for_the_searchable_picker(era):
    from typed_elicit import Choices

    @form(app=AppView(search_over=3))
    class Pick(BaseModel):
        warehouse: Annotated[str, Choices()]

    server = MCPServer("shop")

    @server.tool()
    @elicits(Pick)
    async def ship(ctx: ElicitContext) -> str:
        result = await ctx.elicit(Pick, options={"warehouse": [f"W{i}" for i in range(40)]})
        return type(result).__name__

    serve_apps(server, models=[Pick])
    user = Recorder(accept(warehouse="W17"))
    assert await ship_text(server, era, user) == "Accepted"
    assert (user.params[0].meta or {})[VIEW_KEY] == {"search": ["warehouse"]}


async def ship_text(server: MCPServer, era: str, user: Recorder) -> str:
    return await ship(server, era, user, [app_capability()])


# --- answers: the same path as a form answer ---------------------------------------------------


@pytest.mark.parametrize("capable", [True, False])
async def test_an_app_answer_that_breaks_the_model_is_refused_like_a_form_answer(era, capable):
    server = make_server(shipping_model(True))
    user = Recorder(accept(city="Oslo", count=1, speed="fast"))  # fits the schema, not the model

    async with connect(
        server, era, elicitation_callback=user, extensions=[app_capability()] if capable else []
    ) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("ship", {})

    assert result.is_error
    assert isinstance(result.content[0], TextContent)
    assert "InvalidResponse" in result.content[0].text
    assert "fast shipping is for two or more" in result.content[0].text


async def test_each_question_of_elicit_all_gets_its_own_app_view(era):
    first, second = shipping_model(True), shipping_model(True)
    second.__qualname__ = "Other"
    server = MCPServer("shop")

    @server.tool()
    @elicits(first, second)
    async def both(ctx: ElicitContext) -> str:
        a, b = await ctx.elicit_all(first, second)
        return f"{type(a).__name__} {type(b).__name__}"

    uris = serve_apps(server, models=[first, second])
    user = Recorder(accept(city="Oslo", count=2), accept(city="Rome", count=3))
    async with connect(server, era, elicitation_callback=user, extensions=[app_capability()]) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("both", {})

    assert isinstance(result.content[0], TextContent)
    assert result.content[0].text == "Accepted Accepted"
    shown = sorted((p.meta or {})["ui"]["resourceUri"] for p in user.params)
    assert shown == sorted([uris[first], uris[second]])
    assert uris[first] != uris[second]


async def test_an_answer_for_another_question_or_another_call_is_refused_on_2026_07_28():
    shipping = shipping_model(True)
    server = make_server(shipping)

    class Note(BaseModel):
        text: str

    @server.tool()
    @elicits(Note)
    async def note(ctx: ElicitContext) -> str:
        result = await ctx.elicit(Note)
        return type(result).__name__

    options: dict[str, Any] = {"elicitation_callback": Recorder(), "extensions": [app_capability()]}
    async with Client(server, mode="auto", **options) as c:
        session = c.session
        with anyio.fail_after(BOUND):
            ship_round = await session.call_tool("ship", {}, allow_input_required=True)
            note_round = await session.call_tool("note", {}, allow_input_required=True)
            assert isinstance(ship_round, InputRequiredResult)
            assert isinstance(note_round, InputRequiredResult)
            # The note's answer, sent to the shipping question under its key: it does not fit.
            crossed = await session.call_tool(
                "ship",
                {},
                input_responses={"q0": accept(text="hello")},
                request_state=ship_round.request_state,
                allow_input_required=True,
            )
            # A valid shipping answer, but with the other call's state: the sealed state is the
            # note call's, so the shipping call refuses it before its body runs.
            with pytest.raises(MCPError) as foreign:
                await session.call_tool(
                    "ship",
                    {},
                    input_responses={"q0": accept(city="Oslo", count=2)},
                    request_state=note_round.request_state,
                    allow_input_required=True,
                )
    assert isinstance(crossed, CallToolResult)
    assert crossed.is_error
    assert isinstance(crossed.content[0], TextContent)
    assert "InvalidResponse" in crossed.content[0].text
    assert "requestState" in str(foreign.value)


# --- setup -------------------------------------------------------------------------------------


def test_serving_twice_on_one_server_is_refused():
    server = MCPServer("shop")
    serve_apps(server, models=[])
    with pytest.raises(AppViewError) as caught:
        serve_apps(server, models=[])
    assert caught.value.setting == "server"


async def test_the_servers_own_apps_extension_serves_the_views_and_keeps_its_tools():
    apps = Apps()

    @apps.tool(resource_uri="ui://shop/cart.html", description="The cart")
    def cart() -> str:
        return "cart"

    apps.add_html_resource("ui://shop/cart.html", "<!doctype html><p>cart</p>")
    model = shipping_model(True)
    server = MCPServer("shop", extensions=[apps])
    uris = serve_apps(server, models=[model])
    async with connect(server, "2026-07-28", elicitation_callback=Recorder()) as client:
        with anyio.fail_after(BOUND):
            listed = await client.list_resources()
            tools = await client.list_tools()
        advertised = client.server_capabilities.extensions
    assert {str(r.uri) for r in listed.resources} == {"ui://shop/cart.html", uris[model]}
    assert [t.name for t in tools.tools] == ["cart"]
    assert advertised == {EXTENSION_ID: {"elicitation": {}}}
    assert {str(r.resource.uri) for r in apps.resources()} == {"ui://shop/cart.html", uris[model]}


async def test_asking_for_an_app_view_the_server_does_not_serve_says_how_to_serve_it():
    model = shipping_model(None)
    server = make_server(model, serve=False, app=True)
    user = Recorder()
    text = await ship(server, "2026-07-28", user, [app_capability()])
    assert "AppViewError" in text
    assert "serve_apps" in text


@pytest.mark.parametrize("era", ERAS)
async def test_the_eras_all_keep_the_app_meta_on_the_request(era):
    server = make_server(shipping_model(True))
    user = Recorder(accept(city="Oslo", count=2))
    await ship(server, era, user, [app_capability()])
    assert set(user.params[0].meta or {}) - {"traceparent"} == {
        "ui"
    }  # the SDK adds its trace context when traced


# --- stable addresses (issue 27, item 11) -----------------------------------------------------------


@pytest.mark.slow
def test_a_view_address_is_the_same_whether_its_script_runs_as_main_or_is_imported(tmp_path: Path) -> None:
    script = tmp_path / "shipping_server.py"
    script.write_text(
        "from mcp.server.mcpserver import MCPServer\n"
        "from pydantic import BaseModel\n"
        "from typed_elicit import form\n"
        "from typed_elicit.apps import serve_apps\n"
        "@form(app=True)\n"
        "class Confirm(BaseModel):\n"
        "    ok: bool\n"
        "server = MCPServer('ship')\n"
        "URIS = [str(uri) for uri in serve_apps(server, models=[Confirm]).values()]\n"
        "if __name__ == '__main__':\n"
        "    print(URIS[0])\n"
    )
    as_script = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=60, check=True
    ).stdout.strip()
    imported = subprocess.run(
        [sys.executable, "-c", "import shipping_server; print(shipping_server.URIS[0])"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        cwd=tmp_path,
    ).stdout.strip()
    assert as_script == imported == "ui://typed-elicit/shipping_server.Confirm"
