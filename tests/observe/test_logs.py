"""typed_elicit.logs: the opt-in filter that keeps answer values out of the SDK's transport DEBUG records.

The SDK's HTTP transports (and sse-starlette under them) write every JSON-RPC message at DEBUG:
a re-ask's pre-filled `default`s on the server, the answers themselves on the client. These
tests show it over real loopback HTTP with a re-ask, then show the filter hiding the values
while the records stay.
"""

from __future__ import annotations

import ast
import json
import logging
import os
import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
import uvicorn
from mcp.client.sse import sse_client
from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, Field

from tests.conftest import BOUND, _Uvicorn, serve_http
from typed_elicit import Accepted, ElicitContext, elicits
from typed_elicit.logs import HideAnswerValues, hide_answer_values
from typed_elicit.testing import ScriptedUser, accept, connect, send_raw

FIRST = "Wren-canary-7"
"""The first answer's name: valid, so the re-ask pre-fills it as the field's `default`."""
SECOND = "Lark-canary-9"
"""The second answer's name."""
THIRD_AGE = 918_273_645
"""The second answer's age: a number, so a value that is not a string is hidden too. Nine digits, so
no port, session id or address in a log record holds it by chance (4711 was found inside port 47117)."""


class Signup(BaseModel):
    name: str
    age: int = Field(ge=18)


def build_server() -> MCPServer:
    server = MCPServer("logs")

    @server.tool()
    @elicits
    async def join(ctx: ElicitContext) -> str:
        result = await ctx.elicit(Signup, "Who joins?", retries=1)
        assert isinstance(result, Accepted)
        return "joined"

    return server


def re_asked_user() -> ScriptedUser:
    """A first answer with a valid name and an age too low, then a valid one: one re-ask."""
    return ScriptedUser(send_raw({"name": FIRST, "age": 3}), accept(name=SECOND, age=THIRD_AGE))


@asynccontextmanager
async def serve_sse(server: MCPServer) -> AsyncIterator[str]:
    """The SDK's older SSE transport (`sse_app`) on a random loopback port; yields the SSE URL."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        http = _Uvicorn(uvicorn.Config(server.sse_app(), log_level="warning", timeout_graceful_shutdown=2))
        async with anyio.create_task_group() as tg:
            tg.start_soon(http.serve, [sock])
            with anyio.fail_after(BOUND):
                await http.ready.wait()
            try:
                yield f"http://127.0.0.1:{port}/sse"
            finally:
                http.should_exit = True


async def round_trip(transport: str, era: Any) -> None:
    """One call of `join` over a real loopback transport, answered with one re-ask."""
    user = re_asked_user()
    if transport == "streamable_http":
        async with serve_http(build_server()) as url, connect(url, era, elicitation_callback=user) as client:
            with anyio.fail_after(BOUND):
                result = await client.call_tool("join", {})
    else:
        async with (
            serve_sse(build_server()) as url,
            connect(sse_client(url), era, elicitation_callback=user) as client,
        ):
            with anyio.fail_after(BOUND):
                result = await client.call_tool("join", {})
    assert not result.is_error
    assert len(user.questions) == 2
    user.assert_done()


VALUES = (FIRST, SECOND, str(THIRD_AGE))


def holding_values(records: list[logging.LogRecord]) -> dict[str, list[str]]:
    """Logger name -> the values of an answer its records show."""
    found: dict[str, list[str]] = {}
    for record in records:
        text = record.getMessage()
        shown = [value for value in VALUES if value in text]
        if shown:
            found.setdefault(record.name, []).extend(shown)
    return found


@pytest.fixture
def debug(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    """Captures every record at DEBUG and above, as a handler on the root logger receives it."""
    caplog.set_level(logging.DEBUG)
    return caplog


@pytest.fixture
def installed() -> Iterator[HideAnswerValues]:
    """The filter attached with the helper, removed again afterwards."""
    hider = hide_answer_values()
    yield hider
    for name in HideAnswerValues.LOGGERS:
        logging.getLogger(name).removeFilter(hider)


pytestmark = pytest.mark.anyio

CASES = [
    ("streamable_http", "2025-11-25"),
    ("streamable_http", "2026-07-28"),
    ("sse", "2025-11-25"),
]


@pytest.fixture
def bare() -> None:
    """No `HideAnswerValues` on any of the loggers (whatever ran before)."""
    for name in HideAnswerValues.LOGGERS:
        logger = logging.getLogger(name)
        for attached in [f for f in logger.filters if isinstance(f, HideAnswerValues)]:
            logger.removeFilter(attached)


async def test_without_the_filter_the_sdk_transports_log_answer_values_at_debug(bare, debug):
    """The third-party behaviour docs/security.md describes; if the SDK changes, this says so."""
    await round_trip("streamable_http", "2025-11-25")
    seen = holding_values(debug.records)
    assert set(seen) == {"sse_starlette.sse", "mcp.client.streamable_http"}
    # the server's side: the re-ask's pre-filled default, in the chunk sse-starlette streams
    (chunk,) = [r for r in debug.records if r.name == "sse_starlette.sse" and FIRST in r.getMessage()]
    assert chunk.levelno == logging.DEBUG
    assert chunk.msg == "chunk: %s"
    assert f'"default":"{FIRST}"'.encode() in chunk.args[0]  # type: ignore[index]
    # the client's side: both answers as sent, and the pre-filled default as received
    assert set(seen["mcp.client.streamable_http"]) == set(VALUES)


@pytest.mark.parametrize(("transport", "era"), CASES)
async def test_with_the_filter_no_debug_record_shows_an_answer_value(debug, installed, transport, era):
    await round_trip(transport, era)
    assert holding_values(debug.records) == {}
    hidden = {r.name for r in debug.records if "***" in r.getMessage()}
    expected = {
        ("streamable_http", "2025-11-25"): {"sse_starlette.sse", "mcp.client.streamable_http"},
        ("streamable_http", "2026-07-28"): {"mcp.client.streamable_http"},
        ("sse", "2025-11-25"): {"sse_starlette.sse", "mcp.server.sse", "mcp.client.sse"},
    }[transport, era]
    assert hidden == expected  # the records are still written, with the values hidden


async def test_the_filtered_re_ask_chunk_keeps_everything_but_the_default(debug, installed):
    await round_trip("streamable_http", "2025-11-25")
    (chunk,) = [
        r for r in debug.records if r.name == "sse_starlette.sse" and '"default":"***"' in r.getMessage()
    ]
    text = chunk.getMessage()
    assert text.startswith("chunk: b'event: message\\r\\ndata: {")
    assert "Your previous answer could not be used (age: " in text
    assert '"name":{"type":"string","default":"***"}' in text
    assert '"age":{"type":"integer","minimum":18}' in text
    answers = [r.getMessage() for r in debug.records if r.getMessage().startswith("Sending client message")]
    assert any("'content': {'name': '***', 'age': '***'}" in message for message in answers)


def test_the_helper_attaches_one_filter_to_the_named_loggers_and_changes_nothing_else(installed):
    before = {
        name: (logging.getLogger(name).level, list(logging.getLogger(name).handlers))
        for name in (*HideAnswerValues.LOGGERS, "", "httpx2", "uvicorn.error")
    }
    again = hide_answer_values()
    assert again is installed
    for name in HideAnswerValues.LOGGERS:
        filters = logging.getLogger(name).filters
        assert [f for f in filters if isinstance(f, HideAnswerValues)] == [installed]
    for name in ("", "httpx2", "uvicorn.error", "mcp", "typed_elicit"):
        assert not any(isinstance(f, HideAnswerValues) for f in logging.getLogger(name).filters)
    after = {
        name: (logging.getLogger(name).level, list(logging.getLogger(name).handlers))
        for name in (*HideAnswerValues.LOGGERS, "", "httpx2", "uvicorn.error")
    }
    assert after == before


def test_the_named_loggers_are_the_ones_the_sdk_and_sse_starlette_write_messages_to():
    assert HideAnswerValues.LOGGERS == (
        "sse_starlette.sse",
        "mcp.server.sse",
        "mcp.client.streamable_http",
        "mcp.client.sse",
    )


def test_importing_typed_elicit_does_not_attach_the_filter():
    import typed_elicit

    assert "HideAnswerValues" not in typed_elicit.__all__
    assert not hasattr(typed_elicit, "HideAnswerValues")


# --- the filter on each record shape, without a transport ---------------------------------------


def record(msg: Any, *args: Any, name: str = "sse_starlette.sse") -> logging.LogRecord:
    return logging.LogRecord(name, logging.DEBUG, __file__, 1, msg, args or None, None)


def chunk(message: dict[str, Any]) -> bytes:
    data = json.dumps(message, separators=(",", ":"), ensure_ascii=False)
    return f"event: message\r\ndata: {data}\r\n\r\n".encode()


def shown(one: logging.LogRecord) -> str:
    assert HideAnswerValues().filter(one) is True  # hides, never drops
    return one.getMessage()


ELICIT_REQUEST = {
    "jsonrpc": "2.0",
    "id": 7,
    "method": "elicitation/create",
    "params": {
        "mode": "form",
        "message": "Who's there? {braces} and 'quotes'",
        "requestedSchema": {
            "type": "object",
            "properties": {
                "name": {"type": "string", "default": "Zoë canary"},
                "agree": {"type": "boolean", "default": True},
                "size": {"type": "integer"},
            },
            "required": ["name"],
        },
    },
}


def test_a_chunk_with_a_re_ask_keeps_its_shape_and_loses_its_defaults():
    text = shown(record("chunk: %s", chunk(ELICIT_REQUEST)))
    assert "canary" not in text
    assert "Zo" not in text
    assert "\\xc3" not in text
    assert text.startswith("chunk: b'event: message\\r\\ndata: {")
    decoded = json.loads(ast.literal_eval(text.removeprefix("chunk: ")).decode().split("data: ", 1)[1])
    properties = decoded["params"]["requestedSchema"]["properties"]
    assert properties == {
        "name": {"type": "string", "default": "***"},
        "agree": {"type": "boolean", "default": "***"},
        "size": {"type": "integer"},
    }
    assert decoded["params"]["message"] == ELICIT_REQUEST["params"]["message"]  # type: ignore[index]


def test_an_answer_in_any_key_order_has_its_content_values_hidden_and_its_keys_kept():
    answer = {
        "jsonrpc": "2.0",
        "id": 3,
        "result": {"content": {"pin": 1234, "tags": ["a"]}, "action": "accept"},
    }
    body = json.dumps(answer).encode()
    text = shown(record(f"Received JSON: {body!r}", name="mcp.server.sse"))
    assert "1234" not in text
    assert text.startswith("Received JSON: b'")
    decoded = json.loads(ast.literal_eval(text.removeprefix("Received JSON: ")))
    assert decoded["result"] == {"content": {"pin": "***", "tags": "***"}, "action": "accept"}


def test_the_python_repr_of_a_message_is_hidden_as_well():
    message = (
        "Sending client message: SessionMessage(message=JSONRPCResponse(jsonrpc='2.0', id=1, "
        "result={'action': 'accept', 'content': {'name': \"O'Brien canary\", 'age': 3}}), metadata=None)"
    )
    text = shown(record(message, name="mcp.client.sse"))
    assert text == (
        "Sending client message: SessionMessage(message=JSONRPCResponse(jsonrpc='2.0', id=1, "
        "result={'action': 'accept', 'content': {'name': '***', 'age': '***'}}), metadata=None)"
    )


def test_2026_07_28_input_requests_and_input_responses_are_hidden():
    retry = {
        "jsonrpc": "2.0",
        "id": 4,
        "method": "tools/call",
        "params": {
            "name": "join",
            "arguments": {"tags": ["kept"]},
            "inputResponses": {"q0": {"action": "accept", "content": {"name": "canary"}}},
            "requestState": "v1.sealed",
        },
    }
    required = {
        "jsonrpc": "2.0",
        "id": 4,
        "result": {"resultType": "input_required", "inputRequests": {"q1": ELICIT_REQUEST}},
    }
    for message in (retry, required):
        text = shown(record(f"Sending client message: {message}", name="mcp.client.streamable_http"))
        assert "canary" not in text
        assert "v1.sealed" in text or "q1" in text
    assert "'tags': ['kept']" in shown(
        record(f"Sending client message: {retry}", name="mcp.client.streamable_http")
    )


def test_a_content_that_is_not_an_object_is_hidden_whole():
    text = shown(
        record(
            "chunk: %s",
            chunk({"jsonrpc": "2.0", "id": 1, "result": {"action": "accept", "content": "canary"}}),
        )
    )
    assert "canary" not in text
    assert '"content":"***"' in text


@pytest.mark.parametrize(
    "message",
    [
        # cut off mid-message: no closing brace
        "SSE message: jsonrpc='2.0' id=2 result={'action': 'accept', 'content': {'name': 'canary'",
        # not a literal Python can read back (an object's repr inside)
        "SSE message: result={'action': 'accept', 'content': {'name': Name('canary')}}",
        # a bytes literal that is not valid UTF-8
        'Received JSON: b\'{"action":"accept","content":{"name":"canary\\xff"}}\'',
    ],
)
def test_a_message_that_carries_an_answer_but_cannot_be_read_is_hidden_whole(message):
    text = shown(record(message, name="mcp.client.streamable_http"))
    assert "canary" not in text
    assert "hidden by HideAnswerValues" in text


def test_deep_nesting_does_not_break_the_filter():
    deep = "{'action': 'accept', 'content': " + "{'a': " * 5000 + "'canary'" + "}" * 5001
    text = shown(record(f"SSE message: result={deep}", name="mcp.client.streamable_http"))
    assert "canary" not in text


@pytest.mark.parametrize(
    ("msg", "args"),
    [
        ("chunk: %s", (chunk({"jsonrpc": "2.0", "id": 3, "result": {"tools": [{"name": "join"}]}}),)),
        ("ping: %s", (b": ping - 2026-01-01 00:00:00\r\n\r\n",)),
        ("%d items in %s", (3, {"content": [{"type": "text", "text": "tool output"}]})),
        ("Got event: http.disconnect. Stop streaming.", ()),
        ("100% done", ()),
        ("tool text mentions elicitation/create in {prose} only", ()),
    ],
)
def test_records_without_an_answer_pass_through_untouched(msg, args):
    one = record(msg, *args)
    before = one.getMessage()
    original_msg, original_args = one.msg, one.args
    assert HideAnswerValues().filter(one) is True
    assert one.msg is original_msg
    assert one.args is original_args
    assert one.getMessage() == before


def test_a_record_that_cannot_be_formatted_is_left_for_its_handler_to_report():
    broken = record("%s and %s", "only one")
    assert HideAnswerValues().filter(broken) is True
    assert broken.msg == "%s and %s"
    assert broken.args == ("only one",)


def test_a_requested_schema_without_properties_is_left_as_it_is():
    odd = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "elicitation/create",
        "params": {"requestedSchema": {"type": "x"}},
    }
    one = record("chunk: %s", chunk(odd))
    original = one.msg
    assert HideAnswerValues().filter(one) is True
    assert one.msg is original


def test_a_bug_in_the_filter_hides_the_whole_record_rather_than_let_a_value_through(monkeypatch):
    import typed_elicit._observe.logs as logs

    def broken(text: str) -> str:
        raise RuntimeError("a bug")

    monkeypatch.setattr(logs, "_hide_in_text", broken)
    text = shown(record("chunk: %s", chunk(ELICIT_REQUEST)))
    assert text == logs.UNREADABLE


# --- the documented set-up, in a server process of its own ---------------------------------------


@pytest.mark.slow
async def test_the_debug_logs_example_writes_every_chunk_with_the_values_hidden():
    """`examples/debug_logs.py`: the SDK's `log_level="DEBUG"` to stderr, `hide_answer_values()` on."""
    root = Path(__file__).resolve().parents[2]
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    stderr = bytearray()
    ready = anyio.Event()
    process = await anyio.open_process(
        [sys.executable, "examples/debug_logs.py", str(port)],
        cwd=root,
        stdout=subprocess.DEVNULL,
        env={
            **os.environ,
            "COLUMNS": "100000",
        },  # the SDK logs through rich when it is installed: no wrapping
    )
    assert process.stderr is not None

    async def drain() -> None:
        async for chunk in process.stderr:  # type: ignore[union-attr]
            stderr.extend(chunk)
            if b"Uvicorn running on" in stderr:
                ready.set()

    user = ScriptedUser(send_raw({"name": FIRST, "age": 3}), accept(name=SECOND, age=THIRD_AGE))
    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(drain)
            with anyio.fail_after(30):
                await ready.wait()
            async with connect(f"http://127.0.0.1:{port}/mcp", "2025-11-25", elicitation_callback=user) as c:
                with anyio.fail_after(BOUND):
                    result = await c.call_tool("join", {})
            process.terminate()
            with anyio.fail_after(BOUND):
                await process.wait()
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert not result.is_error
    log = stderr.decode("utf-8", "replace")
    assert [value for value in VALUES if value in log] == []
    chunks = [line for line in log.splitlines() if "chunk: " in line]  # plain, or after rich's level column
    assert any('"name":{"type":"string","default":"***"}' in line for line in chunks)
    assert any("Welcome to the club." in line for line in chunks)  # other records are written as before
