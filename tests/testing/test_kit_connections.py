"""The testing kit's one era-to-connection mapping, its script steps, and the CLI's use of both."""

from __future__ import annotations

import re
from pathlib import Path

import anyio
import pytest
from mcp.client._memory import InMemoryTransport
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR, ElicitRequestParams, ElicitResult, ErrorData, TextContent

from tests.client_servers import typed
from tests.conftest import BOUND, serve_http
from typed_elicit import PROTOCOL_VERSIONS, ProtocolVersion, TypedElicitError
from typed_elicit._cli import UsageError
from typed_elicit.client._handler import PinnedHandshake
from typed_elicit.testing import Reply, ScriptedUser, connect, era_target, send_raw

ROOT = Path(__file__).resolve().parents[2]


async def book(era: ProtocolVersion, user: ScriptedUser) -> str:
    with anyio.fail_after(BOUND):
        async with connect(typed, era, elicitation_callback=user) as client:
            content = (await client.call_tool("book", {})).content[0]
    assert isinstance(content, TextContent)
    return content.text


def test_each_era_maps_to_one_client_target_and_mode() -> None:
    assert era_target(typed, "2026-07-28") == (typed, "auto")
    assert era_target(typed, "2025-11-25") == (typed, "legacy")
    url = "http://127.0.0.1:1/mcp"
    assert era_target(url, "2025-11-25") == (url, "legacy")
    transport = InMemoryTransport(typed)
    for target in (typed, url, transport):
        pinned, mode = era_target(target, "2025-06-18")
        assert isinstance(pinned, PinnedHandshake)
        assert mode == "legacy"


def test_an_era_typed_elicit_does_not_support_is_refused_with_the_supported_ones() -> None:
    with pytest.raises(ValueError, match=r"unsupported protocol version '2025-03-26': use one of 2025-06-18"):
        era_target(typed, "2025-03-26")  # type: ignore[arg-type]


@pytest.mark.anyio
@pytest.mark.parametrize("era", PROTOCOL_VERSIONS)
async def test_connect_reaches_a_server_over_http_on_every_era(era: ProtocolVersion) -> None:
    user = ScriptedUser(send_raw({"name": "Ada"}))
    async with serve_http(typed) as url:
        with anyio.fail_after(BOUND):
            async with connect(url, era, elicitation_callback=user) as client:
                assert client.protocol_version == era
                content = (await client.call_tool("book", {})).content[0]
    assert isinstance(content, TextContent)
    assert content.text == "booked 1 for Ada, meal any, newsletter False"


@pytest.mark.anyio
@pytest.mark.parametrize("era", PROTOCOL_VERSIONS)
async def test_a_script_step_may_be_an_sdk_result_sent_as_given(era: ProtocolVersion) -> None:
    user = ScriptedUser(ElicitResult(action="accept", content={"name": "Bo", "seats": 2}))

    assert await book(era, user) == "booked 2 for Bo, meal any, newsletter False"
    assert [result.content for result in user.sent] == [{"name": "Bo", "seats": 2}]
    user.assert_done()


@pytest.mark.anyio
@pytest.mark.parametrize("era", PROTOCOL_VERSIONS)
async def test_a_script_step_may_be_an_async_function_of_the_request(era: ProtocolVersion) -> None:
    seen: list[str] = []

    async def by_message(params: ElicitRequestParams) -> Reply:
        seen.append(params.message)
        return send_raw({"name": "Cy"})

    user = ScriptedUser(by_message)

    assert await book(era, user) == "booked 1 for Cy, meal any, newsletter False"
    assert seen == ["Who is travelling?"]
    user.assert_done()


@pytest.mark.anyio
@pytest.mark.parametrize("era", PROTOCOL_VERSIONS)
async def test_an_error_step_reaches_the_server_and_is_not_a_script_mistake(era: ProtocolVersion) -> None:
    user = ScriptedUser(ErrorData(code=INTERNAL_ERROR, message="the form crashed"))

    with anyio.fail_after(BOUND):
        async with connect(typed, era, elicitation_callback=user) as client:
            if era == "2026-07-28":  # the SDK raises the client's own error reply
                with pytest.raises(MCPError, match="the form crashed"):
                    await client.call_tool("book", {})
            else:  # the push eras: the tool's ctx.elicit fails, so the call is a tool error
                assert (await client.call_tool("book", {})).is_error
    assert user.sent == []
    assert user.mistakes == []


def test_the_commands_usage_error_is_not_a_library_error() -> None:
    assert not issubclass(UsageError, TypedElicitError)
    assert issubclass(UsageError, Exception)


def test_no_test_patches_the_sdks_handshake_version() -> None:
    patched = re.compile(r"setattr\([^)]*(LATEST_HANDSHAKE_VERSION|LATEST_PROTOCOL_VERSION)")
    offenders = [
        str(path.relative_to(ROOT))
        for path in (ROOT / "tests").rglob("*.py")
        if path.name != Path(__file__).name and patched.search(path.read_text())
    ]
    assert offenders == []
