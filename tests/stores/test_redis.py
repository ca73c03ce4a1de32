"""The shared store on a real Redis: its keys, replicas sharing it, a Redis restarted mid-flow.

Needs a Redis on 127.0.0.1:6379 (the project's machines run one); the tests use database
13 and flush it. Without one they are skipped locally and FAIL under CI (`CI` set), saying
how to start one. The restart test starts its own `redis-server` on a free port.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.session import ClientSession
from mcp.server.mcpserver import MCPServer
from mcp.server.request_state import RequestStateSecurity
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, CallToolResult, ElicitResult, InputRequiredResult
from pydantic import BaseModel
from redis import asyncio as redis_asyncio

import typed_elicit._core.clock as clock
from tests.calls.test_replay import raw, text
from tests.calls.test_replay import round_ as rounds_round
from tests.conftest import BOUND
from typed_elicit import Accepted, ElicitContext, elicits, install_fallback
from typed_elicit.fallback._companion import META_KEY
from typed_elicit.stores import InProcessStore, RedisStore, Store, configure
from typed_elicit.stores._config import store_for

pytestmark = [pytest.mark.anyio, pytest.mark.redis]

URL = os.environ.get("TYPED_ELICIT_TEST_REDIS", "redis://127.0.0.1:6379/13")
"""The database these tests flush; set TYPED_ELICIT_TEST_REDIS to keep parallel runs apart."""
HOW = (
    "these tests need a Redis server on 127.0.0.1:6379: start one with "
    "`redis-server --port 6379 --save '' --appendonly no --daemonize yes` "
    "(Debian: apt-get install redis-server)"
)
KEY = b"r" * 32


def _reachable(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


@pytest.fixture
async def redis_url() -> AsyncIterator[str]:
    """The test database (13 unless TYPED_ELICIT_TEST_REDIS says), flushed before and after the test."""
    if not _reachable("127.0.0.1", 6379):
        if os.environ.get("CI"):
            pytest.fail(f"no Redis reachable under CI: {HOW}")
        pytest.skip(HOW)
    client: Any = redis_asyncio.Redis.from_url(URL)
    await client.flushdb()
    yield URL
    await client.flushdb()
    await client.aclose()


@asynccontextmanager
async def a_store(kind: str, url: str) -> AsyncIterator[Store]:
    if kind == "in_process":
        yield InProcessStore()
        return
    store = RedisStore.from_url(url, prefix="test:")
    try:
        yield store
    finally:
        await store.aclose()


@pytest.fixture(params=["in_process", "redis"])
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


async def test_a_hundred_concurrent_claims_of_one_key_give_exactly_one_winner(redis_url):
    async with a_store("redis", redis_url) as store:
        results: list[bool] = []

        async def claim() -> None:
            results.append(await store.claim("round:hot", clock.now() + 60))

        with anyio.fail_after(BOUND):
            async with anyio.create_task_group() as group:
                for _ in range(100):
                    group.start_soon(claim)
    assert results.count(True) == 1
    assert len(results) == 100


async def test_every_key_is_namespaced_and_expires(redis_url):
    client: Any = redis_asyncio.Redis.from_url(redis_url)
    async with a_store("redis", redis_url) as store:
        await store.claim("round:a", clock.now() + 60)
        await store.put("page:a", b"sealed", clock.now() + 30)
    keys = sorted(key.decode() for key in await client.keys("*"))
    assert keys == ["test:page:a", "test:round:a"]
    ttls = [await client.pttl(key) for key in keys]
    assert 0 < ttls[0] <= 30_000
    assert 30_000 < ttls[1] <= 60_000
    await client.aclose()


class Code(BaseModel):
    code: str


RAN: list[str] = []


def replica(store: Store) -> MCPServer:
    """One replica: the same keys as its twin, the given shared store."""
    server = MCPServer("svc", request_state_security=RequestStateSecurity(keys=[KEY]))
    configure(server, store=store)
    install_fallback(server, security=RequestStateSecurity(keys=[KEY]))

    @server.tool()
    @elicits(timeout=120)
    async def ask(ctx: ElicitContext) -> str:
        match await ctx.elicit(Code, "Enter the code"):
            case Accepted(Code(code=code)):
                RAN.append(code)
                return f"code {code}"
            case other:
                return type(other).__name__

    @server.tool()
    @elicits(on_unsupported="fallback")
    async def pay(ctx: ElicitContext) -> str:
        match await ctx.elicit(Code, "Code?"):
            case Accepted(Code(code=code)):
                RAN.append(code)
                return f"paid {code}"
            case _:
                return "not paid"

    return server


session_on = raw  # a 2026-07-28 session driven round by round


async def round_(
    session: ClientSession, state: str | None = None, answer: ElicitResult | None = None
) -> CallToolResult | InputRequiredResult:
    return await rounds_round(session, "ask", state, answer)


async def a_round_answered(session: ClientSession, code: str) -> str:
    """Ask, then answer the final round with `code` (its tool runs); that round's requestState, used."""
    first = await round_(session)
    assert isinstance(first, InputRequiredResult)
    done = await round_(session, first.request_state, ElicitResult(action="accept", content={"code": code}))
    assert text(done) == f"code {code}"
    return first.request_state


async def test_the_final_round_resent_20_times_across_two_replicas_runs_its_effect_once(redis_url):
    RAN.clear()
    async with a_store("redis", redis_url) as shared_a, a_store("redis", redis_url) as shared_b:
        servers = (replica(shared_a), replica(shared_b))
        async with session_on(servers[0]) as one, session_on(servers[1]) as two:
            first = await round_(one)
            assert isinstance(first, InputRequiredResult)
            state = first.request_state
            outcomes: list[str] = []
            for attempt in range(20):
                session = (one, two)[attempt % 2]
                try:
                    outcomes.append(
                        text(
                            await round_(
                                session, state, ElicitResult(action="accept", content={"code": "123456"})
                            )
                        )
                    )
                except MCPError as error:
                    outcomes.append("refused" if error.error.code == INVALID_PARAMS else repr(error))
    assert outcomes == ["code 123456"] + ["refused"] * 19
    assert RAN == ["123456"]


async def test_a_fallback_token_redeemed_on_two_replicas_at_once_succeeds_once(redis_url):
    RAN.clear()
    async with a_store("redis", redis_url) as shared_a, a_store("redis", redis_url) as shared_b:
        servers = (replica(shared_a), replica(shared_b))
        async with Client(servers[0], mode="legacy") as one, Client(servers[1], mode="legacy") as two:
            with anyio.fail_after(BOUND):
                asked = await one.call_tool("pay", {})
            assert asked.meta is not None
            token = asked.meta[META_KEY]["token"]
            results: list[str] = []

            async def redeem(client: Any) -> None:
                with anyio.fail_after(BOUND):
                    done = await client.call_tool(
                        "send_elicitation_result",
                        {"token": token, "action": "accept", "content": {"code": "9"}},
                    )
                results.append(text(done))

            async with anyio.create_task_group() as group:
                group.start_soon(redeem, one)
                group.start_soon(redeem, two)
    assert sorted(r == "paid 9" for r in results) == [False, True]
    assert any("already used" in r for r in results)
    assert RAN == ["9"]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class OwnRedis:
    """A `redis-server` of the test's own, with its data kept on disk (append-only, fsync always)."""

    def __init__(self, directory: Path) -> None:
        self.port = _free_port()
        self.directory = directory
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            if os.environ.get("CI"):
                pytest.fail(f"redis-server is not installed under CI: {HOW}")
            pytest.skip(HOW)
        self.process = subprocess.Popen(
            [
                binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "yes",
                "--appendfsync",
                "always",
                "--dir",
                str(self.directory),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        until = time.monotonic() + BOUND
        while not _reachable("127.0.0.1", self.port):  # the server's own start-up, outside any loop
            assert time.monotonic() < until, "the test's redis-server did not start"
            time.sleep(0.02)

    def stop(self) -> None:
        assert self.process is not None
        self.process.terminate()
        self.process.wait(timeout=BOUND)
        self.process = None


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[OwnRedis]:
    server = OwnRedis(tmp_path)
    server.start()
    yield server
    if server.process is not None:
        server.stop()


async def test_a_redis_restarted_mid_flow_fails_the_call_in_flight_and_never_applies_an_answer_twice(
    own_redis,
):
    RAN.clear()
    url = f"redis://127.0.0.1:{own_redis.port}/0"
    store = RedisStore.from_url(url, timeout=0.5)
    server = replica(store)
    async with session_on(server) as session:
        first = await round_(session)
        assert isinstance(first, InputRequiredResult)
        done_before = await round_(session)  # a second call, answered before the restart
        assert isinstance(done_before, InputRequiredResult)
        assert (
            text(
                await round_(
                    session,
                    done_before.request_state,
                    ElicitResult(action="accept", content={"code": "111111"}),
                )
            )
            == "code 111111"
        )

        own_redis.stop()
        in_flight = await round_(
            session, first.request_state, ElicitResult(action="accept", content={"code": "222222"})
        )
        assert "StoreUnavailable: the shared store" in text(in_flight)
        assert "222222" not in text(in_flight)
        assert RAN == ["111111"]

        own_redis.start()
        with anyio.fail_after(BOUND):
            while True:  # the pool drops its dead connections and reconnects
                retried = await round_(
                    session, first.request_state, ElicitResult(action="accept", content={"code": "222222"})
                )
                if "StoreUnavailable" not in str(getattr(retried, "content", "")):
                    break
        assert text(retried) == "code 222222"
        with pytest.raises(MCPError) as again:
            await round_(
                session, done_before.request_state, ElicitResult(action="accept", content={"code": "111111"})
            )
        assert again.value.error.code == INVALID_PARAMS  # claimed before the restart, still claimed
        later = await round_(session)
        assert isinstance(later, InputRequiredResult)
        assert (
            text(
                await round_(
                    session, later.request_state, ElicitResult(action="accept", content={"code": "333333"})
                )
            )
            == "code 333333"
        )
    await store.aclose()
    assert RAN == ["111111", "222222", "333333"]


def page_replica(store: Store) -> MCPServer:
    """A replica serving pages: the keys and store its twin has."""
    from tests.pages.test_host import ORIGIN, BankLogin
    from typed_elicit.pages import serve_pages

    server = MCPServer("bank", request_state_security=RequestStateSecurity(keys=[KEY]))
    configure(server, store=store)
    serve_pages(server, ORIGIN, poll_seconds=1.0)

    @server.tool()
    @elicits(BankLogin)
    async def link_bank(ctx: ElicitContext) -> str:
        match await ctx.elicit_page(BankLogin):
            case Accepted(login):
                return f"linked {login.username}"
            case other:
                return type(other).__name__

    return server


async def test_a_page_submitted_through_replica_b_completes_a_push_question_waiting_on_replica_a(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
):
    """Replica A's wait is woken by B's publish: its re-read is put off past the test's bound."""
    from tests.pages.test_host import SECRET, Browser
    from typed_elicit.client import UrlRequest, elicitation_handler
    from typed_elicit.stores import _redis
    from typed_elicit.testing import connect

    monkeypatch.setattr(_redis, "REREAD_SECONDS", BOUND * 10)  # the wait's own re-read
    async with a_store("redis", redis_url) as store_a, a_store("redis", redis_url) as store_b:
        replica_a, replica_b = page_replica(store_a), page_replica(store_b)
        browser = Browser(replica_b)  # the user's browser reaches the other replica
        watcher: Any = redis_asyncio.Redis.from_url(redis_url)
        channel = store_a._wake  # pyright: ignore[reportPrivateUsage]

        async def open_url(request: UrlRequest) -> str:
            async def later() -> None:
                while not dict(await watcher.pubsub_numsub(channel))[channel.encode()]:
                    await anyio.sleep(0.01)  # consent first: the page is submitted once replica A waits
                done = await browser.submit(
                    request.url, {"username": "ada", "password": SECRET, "otp": "123456"}
                )
                assert done.status_code == 200

            group.start_soon(later)
            return "accept"

        async def no_form(request: Any) -> Any:
            raise AssertionError("a page question sends no form")

        async with (
            anyio.create_task_group() as group,
            connect(
                replica_a, "2025-11-25", elicitation_callback=elicitation_handler(no_form, url=open_url)
            ) as client,
        ):
            with anyio.fail_after(BOUND):
                result = await client.call_tool("link_bank", {})
        await watcher.aclose()
    assert result.content[0].text == "linked ada"  # type: ignore[union-attr]


async def test_a_page_submitted_through_one_replica_answers_a_2026_07_28_round_on_the_other(redis_url):
    from tests.pages.test_host import SECRET, Browser

    async with a_store("redis", redis_url) as store_a, a_store("redis", redis_url) as store_b:
        replica_a, replica_b = page_replica(store_a), page_replica(store_b)
        async with session_on(replica_a) as on_a, session_on(replica_b) as on_b:
            with anyio.fail_after(BOUND):
                consent = await on_a.call_tool("link_bank", {}, allow_input_required=True)
            assert isinstance(consent, InputRequiredResult)
            (key, request), *_ = (consent.input_requests or {}).items()
            url = request.params.url  # type: ignore[union-attr]
            done = await Browser(replica_a).submit(
                url, {"username": "ada", "password": SECRET, "otp": "123456"}
            )
            assert done.status_code == 200
            with anyio.fail_after(BOUND):
                result = await on_b.call_tool(
                    "link_bank",
                    {},
                    input_responses={key: ElicitResult(action="accept")},
                    request_state=consent.request_state,
                    allow_input_required=True,
                )
    assert isinstance(result, CallToolResult), result
    assert result.content[0].text == "linked ada"  # type: ignore[union-attr]


async def test_the_replicated_example_applies_a_transfer_once_across_two_replicas(redis_url, monkeypatch):
    import importlib
    import sys

    monkeypatch.setenv("TYPED_ELICIT_STORE", redis_url)
    monkeypatch.setenv("MCP_STATE_KEYS", KEY.hex())
    examples = str(Path(__file__).resolve().parents[2] / "examples")
    monkeypatch.syspath_prepend(examples)
    example = importlib.import_module("replicated_transfer")
    example.APPLIED.clear()
    one, two = example.build_server(), example.build_server()
    assert isinstance(store_for(one), RedisStore)
    async with session_on(one) as on_one, session_on(two) as on_two:
        with anyio.fail_after(BOUND):
            asked = await on_one.call_tool("transfer", {}, allow_input_required=True)
        assert isinstance(asked, InputRequiredResult)
        outcomes = []
        for session in (on_two, on_one, on_two):
            try:
                with anyio.fail_after(BOUND):
                    done = await session.call_tool(
                        "transfer",
                        {},
                        input_responses={"q0": ElicitResult(action="accept", content={"amount": 250})},
                        request_state=asked.request_state,
                        allow_input_required=True,
                    )
                outcomes.append(text(done))
            except MCPError as error:
                outcomes.append(f"refused {error.error.code}")
    assert outcomes == ["sent 250", f"refused {INVALID_PARAMS}", f"refused {INVALID_PARAMS}"]
    assert example.APPLIED == [250]
    sys.modules.pop("replicated_transfer", None)


async def test_a_taken_page_answer_is_kept_until_the_call_ends_and_survives_the_page_expiring(
    redis_url, monkeypatch
):
    from mcp_types import ElicitResult as WireResult

    from tests.pages.test_host import (
        SECRET,
        bank_then_nickname,
        no_form,
        take_the_page_then_ask_the_nickname,
    )
    from typed_elicit.client import elicitation_handler
    from typed_elicit.testing import connect

    client: Any = redis_asyncio.Redis.from_url(redis_url)
    async with a_store("redis", redis_url) as store:
        server = bank_then_nickname(store)
        async with connect(server, "2026-07-28", elicitation_callback=elicitation_handler(no_form)) as mcp:
            with anyio.fail_after(BOUND):
                nickname, page_id = await take_the_page_then_ask_the_nickname(server, mcp.session)
            kept = [key.decode() for key in await client.keys(f"test:*{page_id}*")]
            # The page's own keys expire with it (30 s); simulate that, and the clock passing them.
            await client.delete(f"test:page:{page_id}", f"test:page-ticket:{page_id}")
            now = clock.now()
            monkeypatch.setattr(clock, "now", lambda: now + 60)
            ((key, _),) = (nickname.input_requests or {}).items()
            with anyio.fail_after(BOUND):
                done = await mcp.session.call_tool(
                    "link_and_name",
                    {},
                    input_responses={key: WireResult(action="accept", content={"nickname": "countess"})},
                    request_state=nickname.request_state,
                    allow_input_required=True,
                )
        assert done.content[0].text == f"ada as countess ({SECRET[:3]})"  # type: ignore[union-attr]
        held = [key for key in kept if key.startswith("test:page-kept:")]
        assert held, kept  # while the call ran, the taken answer was held under its own key ...
        left = [key.decode() for key in await client.keys(f"test:*{page_id}*")]
        assert not [key for key in left if key.startswith("test:page-kept:")]  # ... deleted when it ended
    await client.aclose()


async def test_a_taken_page_answer_expires_at_the_calls_deadline(redis_url):
    from tests.pages.test_host import bank_then_nickname, no_form, take_the_page_then_ask_the_nickname
    from typed_elicit._calls.policy import DEFAULT_CALL_TIMEOUT
    from typed_elicit.client import elicitation_handler
    from typed_elicit.testing import connect

    client: Any = redis_asyncio.Redis.from_url(redis_url)
    async with a_store("redis", redis_url) as store:
        server = bank_then_nickname(store)
        async with connect(server, "2026-07-28", elicitation_callback=elicitation_handler(no_form)) as mcp:
            with anyio.fail_after(BOUND):
                _, page_id = await take_the_page_then_ask_the_nickname(server, mcp.session)
            ttl = await client.pttl(f"test:page-kept:{page_id}")
            page_ttl = await client.pttl(f"test:page:{page_id}")
    assert (DEFAULT_CALL_TIMEOUT - 60) * 1000 < ttl <= DEFAULT_CALL_TIMEOUT * 1000
    assert 0 < page_ttl <= 30_000  # the submitted answer still expires with its page
    await client.aclose()


@pytest.mark.parametrize(
    "url",
    [
        "redis:/127.0.0.1:6379/3",
        "redis://127.0.0.1:6379/notanumber",
        "redis://:s3cret-pass@127.0.0.1:6379/notanumber",
        "redis:/:s3cret-pass@127.0.0.1:6379/3",
        "rediss:/127.0.0.1:6379/3",
        "redis://127.0.0.1:6379/3/4",
        "redis://127.0.0.1:6379/-1",
        "redis://127.0.0.1:notaport/0",
        "redis://127.0.0.1:6379/0?db=x",
    ],
)
def test_a_malformed_store_url_is_refused_with_the_fix_and_never_its_password(url):
    from typed_elicit import TypedElicitError

    for build in (lambda: RedisStore.from_url(url), lambda: configure(MCPServer("bad"), store=url)):
        with pytest.raises(TypedElicitError) as raised:
            build()
        assert isinstance(raised.value, ValueError)
        message = str(raised.value)
        assert "redis://host:6379/0" in message
        assert "s3cret" not in message
        assert "s3cret" not in repr(raised.value.args)


def test_a_store_built_from_a_url_logs_where_it_is_without_the_password(caplog):
    with caplog.at_level("INFO", logger="typed_elicit.stores"):
        RedisStore.from_url("redis://:s3cret-pass@127.0.0.1:6379/3")
        RedisStore.from_url("redis://127.0.0.1:6380")
    lines = [record.getMessage() for record in caplog.records if record.name == "typed_elicit.stores"]
    assert lines == [
        "RedisStore on redis 127.0.0.1:6379 db 3",
        "RedisStore on redis 127.0.0.1:6380 db 0",
    ]
    assert "s3cret" not in caplog.text


REPLAYS = 120
OTHERS = 10


def busy_replica(store: Store, entered: list[int], many: anyio.Event, again: anyio.Event) -> MCPServer:
    """A server with a page tool a client replays, and a form tool other users call."""
    from tests.pages.test_host import ORIGIN, BankLogin
    from typed_elicit.pages import serve_pages

    server = MCPServer("busy", request_state_security=RequestStateSecurity(keys=[KEY]))
    configure(server, store=store)
    serve_pages(server, ORIGIN, poll_seconds=1.0)

    @server.tool()
    @elicits(BankLogin)
    async def link_bank(ctx: ElicitContext) -> str:
        entered.append(1)
        if len(entered) >= REPLAYS + 2:  # the first round, the consent's and every replay
            many.set()
        if len(entered) >= 2 * REPLAYS + 2:  # every replay a second time
            again.set()
        match await ctx.elicit_page(BankLogin):
            case Accepted(login):
                return f"linked {login.username}"
            case other:
                return type(other).__name__

    @server.tool()
    @elicits(timeout=120)
    async def ask(ctx: ElicitContext) -> str:
        match await ctx.elicit(Code, "Enter the code"):
            case Accepted(Code(code=code)):
                return f"code {code}"
            case other:
                return type(other).__name__

    return server


class Tally:
    """A `Store` passing every operation to another, counting those on the replayed page's keys."""

    def __init__(self, inner: Store) -> None:
        self.inner = inner
        self.page_operations = 0

    def _count(self, key: str) -> None:
        if key.startswith("page") and "other-" not in key:
            self.page_operations += 1

    async def claim(self, key: str, expires_at: float, /) -> bool:
        self._count(key)
        return await self.inner.claim(key, expires_at)

    async def put(self, key: str, value: bytes, expires_at: float, /) -> bool:
        self._count(key)
        return await self.inner.put(key, value, expires_at)

    async def get(self, key: str, /) -> bytes | None:
        self._count(key)
        return await self.inner.get(key)

    async def wait(self, key: str, timeout: float, /) -> bytes | None:
        self._count(key)
        return await self.inner.wait(key, timeout)

    async def delete(self, key: str, /) -> None:
        self._count(key)
        await self.inner.delete(key)


async def replays_against_other_users(
    inner: Store, during: Callable[[], Awaitable[None]] | None = None
) -> tuple[list[str], int, int, int]:
    """`REPLAYS` concurrent replay loops of one waiting page round, while `OTHERS` users call.

    `during` runs once the other users are done, while the replays still wait.
    Returns what went wrong for the other users (one line per failure), how many replays
    ended in an error (a replay should end with a round carrying requestState only), and,
    while the other users called, how many replayed rounds ran and how many store
    operations they made on the page's keys.
    """
    store = Tally(inner)
    entered: list[int] = []
    many, again = anyio.Event(), anyio.Event()
    server = busy_replica(store, entered, many, again)
    failures: list[str] = []
    replay_errors: list[str] = []
    async with session_on(server) as attacker:
        with anyio.fail_after(BOUND):
            consent = await attacker.call_tool("link_bank", {}, allow_input_required=True)
            assert isinstance(consent, InputRequiredResult)
            (key, _), *_ = (consent.input_requests or {}).items()
            waiting = await attacker.call_tool(
                "link_bank",
                {},
                input_responses={key: ElicitResult(action="accept")},
                request_state=consent.request_state,
                allow_input_required=True,
            )
        assert isinstance(waiting, InputRequiredResult)
        assert not waiting.input_requests  # a page poll: a round carrying requestState only

        async def replay_loop() -> None:
            while True:
                try:
                    again = await attacker.call_tool(
                        "link_bank", {}, request_state=waiting.request_state, allow_input_required=True
                    )
                    if not isinstance(again, InputRequiredResult):
                        replay_errors.append(text(again)[:80])
                except MCPError as error:
                    replay_errors.append(error.error.message[:80])

        async def other_user(n: int) -> None:
            try:
                async with session_on(server) as mine:
                    first = await round_(mine)
                    assert isinstance(first, InputRequiredResult)
                    done = await round_(
                        mine, first.request_state, ElicitResult(action="accept", content={"code": str(n)})
                    )
                    if text(done) != f"code {n}":
                        failures.append(f"call {n}: {text(done)[:120]}")
                await store.put(f"page:other-{n}", b"sealed", clock.now() + 60)
                if await store.get(f"page:other-{n}") != b"sealed":
                    failures.append(f"put {n}: not stored")
            except Exception as error:  # StoreUnavailable on a put, an MCPError on a call
                failures.append(f"user {n}: {type(error).__name__}")

        with anyio.fail_after(3 * BOUND):
            async with anyio.create_task_group() as attack:
                for _ in range(REPLAYS):
                    attack.start_soon(replay_loop)
                await many.wait()  # every replay is in the server, waiting for the page
                rounds, operations = len(entered), store.page_operations
                async with anyio.create_task_group() as others:
                    for n in range(OTHERS):
                        others.start_soon(other_user, n)
                if during is not None:
                    await during()
                await again.wait()  # and every replay loop went round once more
                rounds, operations = len(entered) - rounds, store.page_operations - operations
                attack.cancel_scope.cancel()
    return failures, len(replay_errors), rounds, operations


@pytest.mark.slow
async def test_concurrent_poll_replays_of_one_call_leave_other_users_calls_unaffected(kind, redis_url):
    import uuid

    name = f"te-test-{uuid.uuid4().hex[:12]}"
    client: Any = redis_asyncio.Redis.from_url(redis_url)
    connections: list[tuple[int, int]] = []  # (subscribed, all) connections of the store, mid-attack

    async def count() -> None:
        listed = [entry for entry in await client.client_list() if entry.get("name") == name]
        connections.append((sum(1 for entry in listed if int(entry.get("sub", 0)) > 0), len(listed)))

    if kind == "redis":  # a small pool: 5 connections for claims and puts
        url = f"{redis_url}?client_name={name}"
        # Each operation may take up to BOUND (not the 2 s default) on a busy machine: a user
        # starved by the replays would still fail, by the attack's own bound (3 * BOUND).
        store: Store = RedisStore.from_url(url, prefix="test:", max_connections=5, timeout=BOUND)
    else:
        store = InProcessStore()
    try:
        failures, replay_errors, rounds, operations = await replays_against_other_users(store, count)
    finally:
        if isinstance(store, RedisStore):
            await store.aclose()
        await client.aclose()
    assert failures == []
    assert replay_errors == 0
    # The replays cost the store almost nothing: they join one wait per poll.
    assert rounds >= REPLAYS
    assert operations * 20 <= rounds, (rounds, operations)
    if kind == "redis":  # every wait went through one subscriber connection, outside the pool
        ((subscribed, total),) = connections
        assert subscribed == 1
        assert total <= 5 + 1
