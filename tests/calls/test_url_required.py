"""-32042 (URL elicitation required): raised typed by a tool; a client completes it and retries once."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import anyio
import pytest
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError, UrlElicitationRequiredError

from tests.conftest import BOUND
from typed_elicit import ElicitContext, UrlElicitation, elicits, url_required
from typed_elicit.client import RequestedSchemaError, UrlRequest, call_tool_with_urls
from typed_elicit.errors import ElicitArgumentError
from typed_elicit.testing import connect

ERA = "2025-11-25"
URL = "https://auth.example.com/connect?state=s3cret-token"


def make_server() -> tuple[MCPServer, dict[str, bool]]:
    server = MCPServer("acme")
    linked = {"done": False}

    @server.tool()
    @elicits
    async def list_files(ctx: ElicitContext) -> str:
        if not linked["done"]:
            raise url_required(UrlElicitation(URL, "Connect your Acme Drive first", elicitation_id="link-1"))
        return "3 files"

    return server, linked


def test_url_required_builds_the_sdks_error_with_its_elicitations():
    error = url_required(UrlElicitation(URL, "Sign in", elicitation_id="e1"), UrlElicitation(URL, "Pay"))
    assert isinstance(error, UrlElicitationRequiredError)
    assert error.code == -32042
    assert error.elicitations[0].elicitation_id == "e1"
    assert len({e.elicitation_id for e in error.elicitations}) == 2
    assert error.data["elicitations"][0] == {
        "mode": "url",
        "message": "Sign in",
        "url": URL,
        "elicitationId": "e1",
    }


@pytest.mark.parametrize(
    ("elicitations", "problem"),
    [
        ((), "at least one"),
        ((UrlElicitation("javascript:alert(1)", "x"),), "absolute https"),
        ((UrlElicitation("https://u:p@example.com/", "x"),), "credentials"),
        ((UrlElicitation(URL, "  "),), "needs a message"),
        ((UrlElicitation(URL, "x", elicitation_id=""),), "non-empty"),
    ],
)
def test_url_required_refuses_what_a_client_must_not_be_shown(elicitations, problem):
    with pytest.raises(ElicitArgumentError, match=problem):
        url_required(*elicitations)


@pytest.mark.anyio
async def test_a_tool_raising_url_required_reaches_the_client_as_minus_32042():
    server, _ = make_server()
    async with connect(server, ERA) as client:
        with anyio.fail_after(BOUND), pytest.raises(MCPError) as raised:
            await client.call_tool("list_files", {})
    assert raised.value.code == -32042
    assert raised.value.data["elicitations"][0]["elicitationId"] == "link-1"


@pytest.mark.anyio
async def test_the_client_runs_the_url_flow_and_retries_the_call_once():
    server, linked = make_server()
    seen: list[UrlRequest] = []

    async def open_url(request: UrlRequest) -> str:
        seen.append(request)
        linked["done"] = True  # the user finished the page
        return "accept"

    async with connect(server, ERA) as client:
        with anyio.fail_after(BOUND):
            result = await call_tool_with_urls(client, "list_files", {}, url=open_url)
    assert result.content[0].text == "3 files"  # type: ignore[union-attr]
    assert [(r.url, r.message, r.elicitation_id) for r in seen] == [
        (URL, "Connect your Acme Drive first", "link-1")
    ]
    assert "s3cret-token" not in repr(seen[0])


@pytest.mark.anyio
@pytest.mark.parametrize("answer", ["decline", "cancel"])
async def test_a_declined_url_ends_the_call_with_the_error_and_no_retry(answer: str):
    server, _ = make_server()
    calls: list[str] = []

    async def refuse(request: UrlRequest) -> str:
        calls.append(request.url)
        return answer

    async with connect(server, ERA) as client:
        with anyio.fail_after(BOUND), pytest.raises(UrlElicitationRequiredError):
            await call_tool_with_urls(client, "list_files", {}, url=refuse)
    assert len(calls) == 1


@pytest.mark.anyio
async def test_the_retry_happens_once_only():
    server, _ = make_server()  # the flow never completes: the retry is refused again
    calls: list[str] = []

    async def consent(request: UrlRequest) -> str:
        calls.append(request.url)
        return "accept"

    async with connect(server, ERA) as client:
        with anyio.fail_after(BOUND), pytest.raises(MCPError) as raised:
            await call_tool_with_urls(client, "list_files", {}, url=consent)
    assert raised.value.code == -32042
    assert len(calls) == 1


@pytest.mark.anyio
async def test_a_hostile_minus_32042_url_never_reaches_the_handler():
    server = MCPServer("hostile")

    @server.tool()
    async def evil() -> str:
        raise MCPError(
            -32042,
            "go",
            {"elicitations": [{"mode": "url", "message": "x", "url": "javascript:x", "elicitationId": "1"}]},
        )

    async def handler(request: UrlRequest) -> str:
        raise AssertionError("a javascript: URL reached the URL handler")

    async with connect(server, ERA) as client:
        with anyio.fail_after(BOUND), pytest.raises(RequestedSchemaError, match="http"):
            await call_tool_with_urls(client, "evil", {}, url=handler)


@pytest.mark.anyio
async def test_other_errors_pass_through_untouched():
    server = MCPServer("plain")

    @server.tool()
    async def broken() -> str:
        raise MCPError(-32001, "nope")

    async def handler(request: UrlRequest) -> str:
        raise AssertionError("no URL flow for another error")

    async with connect(server, ERA) as client:
        with anyio.fail_after(BOUND), pytest.raises(MCPError, match="nope"):
            await call_tool_with_urls(client, "broken", {}, url=handler)


@pytest.mark.anyio
async def test_the_drive_link_example_connects_then_lists_the_files():
    examples = str(Path(__file__).resolve().parents[2] / "examples")
    if examples not in sys.path:
        sys.path.insert(0, examples)
    drive = importlib.import_module("drive_link")
    drive.CONNECTED.clear()
    async with connect(drive.server, ERA) as client:
        with anyio.fail_after(BOUND):
            result = await drive.list_my_files(client, drive.open_in_browser)
    assert result.content[0].text == "ada: report.pdf, notes.txt"
    assert {"ada"} == drive.CONNECTED


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("data", "problem"),
    [({"elicitations": [{"mode": "url"}]}, "not a list of URL-mode"), ({"elicitations": []}, "empty")],
)
async def test_a_malformed_minus_32042_is_refused_without_running_any_url(
    data: dict[str, object], problem: str
):
    server = MCPServer("malformed")

    @server.tool()
    async def odd() -> str:
        raise MCPError(-32042, "go", data)

    async def handler(request: UrlRequest) -> str:
        raise AssertionError("a malformed -32042 reached the URL handler")

    async with connect(server, ERA) as client:
        with anyio.fail_after(BOUND), pytest.raises(RequestedSchemaError, match=problem):
            await call_tool_with_urls(client, "odd", {}, url=handler)
