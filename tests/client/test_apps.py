"""The client half of app views: a scripted renderer answers, the form handler answers when it cannot."""

from __future__ import annotations

from typing import Any, Literal

import anyio
import pytest
from mcp.client.extension import advertise
from mcp.server.apps import APP_MIME_TYPE, EXTENSION_ID
from mcp.server.mcpserver import MCPServer
from mcp_types import ElicitResult, TextContent
from pydantic import BaseModel, Field

from tests.conftest import BOUND
from typed_elicit import Accepted, Declined, ElicitContext, elicits, form
from typed_elicit.apps import serve_apps
from typed_elicit.client import (
    AppCannotRender,
    AppRequest,
    FormRequest,
    app_capability,
    elicitation_handler,
)
from typed_elicit.testing import connect

pytestmark = pytest.mark.anyio


@form(app=True)
class Booking(BaseModel):
    """Book a table."""

    name: str = Field(min_length=1)
    seats: int = Field(ge=1, le=8)
    room: Literal["inside", "terrace"] = "inside"


def make_server(*, serve: bool = True) -> MCPServer:
    server = MCPServer("diner")

    @server.tool()
    @elicits(Booking, retries=0)
    async def book(ctx: ElicitContext) -> str:
        result = await ctx.elicit(Booking)
        if isinstance(result, Accepted):
            return f"{result.data.name} x{result.data.seats} {result.data.room}"
        return type(result).__name__

    if serve:
        serve_apps(server, models=[Booking])
    return server


class Host:
    """A scripted app renderer, and a form handler that notes when it had to answer."""

    def __init__(self, answer: ElicitResult | Exception) -> None:
        self.answer = answer
        self.shown: list[AppRequest] = []
        self.forms: list[FormRequest] = []

    async def render(self, request: AppRequest) -> ElicitResult:
        self.shown.append(request)
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer

    async def form(self, request: FormRequest) -> Accepted[BaseModel] | Declined:
        self.forms.append(request)
        return request.accept({"name": "Form", "seats": 1})


async def book(server: MCPServer, era: str, host: Host, extensions: list[Any] | None = None) -> str:
    handler = elicitation_handler(host.form, app=host.render)
    options = {"extensions": [app_capability()] if extensions is None else extensions}
    async with connect(server, era, elicitation_callback=handler, **options) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("book", {})
    assert isinstance(result.content[0], TextContent)
    return result.content[0].text


async def test_the_renderer_gets_the_app_the_whole_request_and_the_revision_on_every_era(era):
    host = Host(ElicitResult(action="accept", content={"name": "Ada", "seats": 2, "room": "terrace"}))

    assert await book(make_server(), era, host) == "Ada x2 terrace"

    (shown,) = host.shown
    assert host.forms == []
    assert shown.resource_uri.startswith("ui://typed-elicit/")
    assert shown.html.startswith("<!doctype html>")
    assert shown.resource_meta["ui"]["csp"]["connectDomains"] == []
    assert (shown.params.meta or {})["ui"]["resourceUri"] == shown.resource_uri
    assert shown.params.requested_schema["required"] == ["name", "seats"]
    assert shown.protocol_version == era


@pytest.mark.parametrize(("action", "outcome"), [("decline", "Declined"), ("cancel", "Cancelled")])
async def test_the_apps_decline_and_cancel_reach_the_tool(era, action, outcome):
    assert await book(make_server(), era, Host(ElicitResult(action=action))) == outcome


async def test_an_app_answer_that_does_not_fit_the_schema_is_not_sent_the_form_answers(era):
    host = Host(ElicitResult(action="accept", content={"name": "Ada", "seats": 99}))

    assert await book(make_server(), era, host) == "Form x1 inside"
    assert len(host.shown) == 1
    assert len(host.forms) == 1


async def test_an_answer_for_another_question_is_not_sent_the_form_answers(era):
    host = Host(ElicitResult(action="accept", content={"city": "Oslo", "count": 2}))

    assert await book(make_server(), era, host) == "Form x1 inside"


async def test_a_renderer_that_cannot_render_hands_the_question_to_the_form_handler(era):
    host = Host(AppCannotRender("ui://typed-elicit/x", "no sandbox here"))

    assert await book(make_server(), era, host) == "Form x1 inside"
    assert len(host.forms) == 1


async def test_a_client_that_does_not_advertise_apps_never_renders(era):
    host = Host(ElicitResult(action="decline"))

    assert await book(make_server(), era, host, extensions=[]) == "Form x1 inside"
    assert host.shown == []


async def test_an_unreadable_resource_or_one_that_is_no_app_falls_back_to_the_form(era):
    server = make_server()
    for resource in server._resource_manager.list_resources():  # pyright: ignore[reportPrivateUsage]
        resource.mime_type = "text/html"  # the view no longer claims to be an MCP App
    host = Host(ElicitResult(action="decline"))

    assert await book(server, era, host) == "Form x1 inside"
    assert host.shown == []


async def test_a_server_that_did_not_advertise_app_views_is_not_trusted_with_one(era):
    server = make_server()
    server._lowlevel_server.extensions[EXTENSION_ID].pop("elicitation")  # pyright: ignore[reportPrivateUsage]
    host = Host(ElicitResult(action="decline"))

    assert await book(server, era, host) == "Form x1 inside"
    assert host.shown == []


def test_the_capability_is_the_drafts_ui_settings():
    assert app_capability().settings() == {"mimeTypes": [APP_MIME_TYPE], "elicitation": {}}
    assert advertise(EXTENSION_ID, {}).identifier == app_capability().identifier
