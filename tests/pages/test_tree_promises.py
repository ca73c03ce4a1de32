"""What pages promise holds for pages with groups and files: CSRF, origin, single use, a strict CSP,
the body limit, nothing secret in spans, logs or MCP messages, and replicas sharing a Redis store."""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from mcp.server.mcpserver import MCPServer
from mcp.server.request_state import RequestStateSecurity
from starlette.testclient import TestClient

from tests import otel_kit
from tests.conftest import BOUND
from tests.pages.test_host import URL_ERAS
from tests.pages.test_serve import ORIGIN, Client
from tests.pages.test_serve_files import PNG, Claim, uploading
from tests.pages.test_tree import Order, valid
from typed_elicit import Accepted, ElicitContext, elicits
from typed_elicit.pages import serve_pages
from typed_elicit.pages._multipart import MAX_BODY_BYTES
from typed_elicit.stores import configure
from typed_elicit.testing import connect

PIN = "pin-7319"


@pytest.fixture
def client() -> Iterator[Client]:
    server = MCPServer("tree-promises")
    serve_pages(server, ORIGIN)
    with TestClient(server.streamable_http_app(), base_url=ORIGIN) as http:
        yield Client(server, http)


def test_a_page_with_groups_carries_the_strict_policy_and_no_script(client: Client):
    page = client.open(Order)
    shown = client.http.get(client.path(page))
    policy = shown.headers["content-security-policy"]
    assert policy.startswith("default-src 'none'; style-src 'nonce-")
    assert "form-action 'self'" in policy
    assert "frame-ancestors 'none'" in policy
    assert "script" not in policy
    assert "<script" not in shown.text
    assert shown.headers["cache-control"] == "no-store"
    assert shown.headers["referrer-policy"] == "same-origin"


def test_a_submit_without_the_csrf_token_or_from_another_origin_is_refused(client: Client):
    page = client.open(Order)
    client.http.get(client.path(page))
    forged = client.http.post(client.path(page), data=valid(), headers={"Origin": ORIGIN})
    assert forged.status_code == 403
    other = client.submit(page, valid(), action="accept")
    assert other.status_code == 200
    page = client.open(Order)
    html = client.http.get(client.path(page)).text
    elsewhere = client.http.post(
        client.path(page),
        data={**valid(), "_csrf": client.csrf(html)},
        headers={"Origin": "https://evil.example"},
    )
    assert elsewhere.status_code == 403
    assert client.answer(page) is None


def test_a_page_with_groups_takes_one_answer_only(client: Client):
    page = client.open(Order)
    html = client.http.get(client.path(page)).text
    first = client.http.post(
        client.path(page),
        data={**valid(), "_csrf": client.csrf(html), "_action": "accept"},
        headers={"Origin": ORIGIN},
    )
    assert first.status_code == 200
    again = client.http.post(
        client.path(page),
        data={**valid(), "_csrf": client.csrf(html), "_action": "accept"},
        headers={"Origin": ORIGIN},
    )
    assert again.status_code == 410


def test_the_whole_submission_is_bounded_by_the_form_limit(client: Client):
    page = client.open(Order)
    refused = client.submit(page, valid(name="x" * (MAX_BODY_BYTES + 1)))
    assert refused.status_code == 413


def claim_server(key: bytes | None = None) -> MCPServer:
    security = None if key is None else RequestStateSecurity(keys=[key])
    server = MCPServer("claims", request_state_security=security)
    serve_pages(server, ORIGIN, poll_seconds=0.05)

    @server.tool()
    @elicits(Claim)
    async def file_claim(ctx: ElicitContext) -> str:
        result = await ctx.elicit_page(Claim)
        assert isinstance(result, Accepted)
        return f"{result.data.title}: {result.data.scan.name} {len(result.data.scan.data)} bytes"

    return server


@pytest.fixture
def otel() -> Iterator[otel_kit.Recorded]:
    yield from otel_kit.installed()


@pytest.mark.anyio
@pytest.mark.parametrize("era", URL_ERAS)
async def test_no_span_log_or_message_holds_a_file_or_a_secret(
    era: str, otel: otel_kit.Recorded, caplog: pytest.LogCaptureFixture
):
    caplog.set_level(logging.DEBUG)
    server = claim_server()
    wire: list[str] = []

    async def on_message(message: Any) -> None:
        wire.append(repr(message))

    async with connect(
        server, era, elicitation_callback=uploading(server), message_handler=on_message
    ) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("file_claim", {})
    assert result.content[0].text == f"Dent: dent.png {len(PNG)} bytes"  # type: ignore[union-attr]
    marker = PNG[8:20].decode()
    spans = otel.spans()
    assert spans
    recorded = repr([(s.name, dict(s.attributes or {}), [e.attributes for e in s.events]) for s in spans])
    assert marker not in recorded
    assert "dent.png" not in recorded
    assert marker not in caplog.text
    assert all(marker not in text for text in wire)


def _redis_url() -> str:
    url = os.environ.get("TYPED_ELICIT_TEST_REDIS", "redis://127.0.0.1:6379/13")
    try:
        with socket.create_connection(("127.0.0.1", 6379), timeout=1):
            return url
    except OSError:
        if os.environ.get("CI"):
            pytest.fail("no Redis reachable under CI: start redis-server on 127.0.0.1:6379")
        pytest.skip("no Redis on 127.0.0.1:6379")


@pytest.mark.redis
@pytest.mark.anyio
async def test_replicas_sharing_a_redis_store_serve_a_page_with_a_file_and_hand_the_bytes_over():
    from typed_elicit.stores import RedisStore

    url = _redis_url()
    key = os.urandom(32)
    asking, serving = claim_server(key), claim_server(key)
    stores = [RedisStore.from_url(url, prefix=f"tree-{os.urandom(4).hex()}:")]
    for server in (asking, serving):
        configure(server, store=stores[0])
    try:
        async with connect(asking, "2026-07-28", elicitation_callback=uploading(serving)) as client:
            with anyio.fail_after(BOUND):
                result = await client.call_tool("file_claim", {})
        assert result.content[0].text == f"Dent: dent.png {len(PNG)} bytes"  # type: ignore[union-attr]
    finally:
        await stores[0].aclose()
