"""`RedisStore` over TLS (`rediss://`, a certificate the test makes) as an ACL user; its password never leaks.

One `redis-server` speaking TLS only, started by the module on a free port with a CA and
server certificate made by the openssl CLI; an ACL user limited to the store's own keys
and channels. Failures are provoked (a wrong password, a user without the rights, a
server that is down) and the password is looked for everywhere it could leak: the
error's message, its repr and attributes, its exception chain (suppressed links too),
the log records, the tool error the client sees, and every span and span event.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import anyio
import pytest
from mcp.server.mcpserver import MCPServer
from mcp_types import INVALID_PARAMS, InputRequiredResult

import typed_elicit._core.clock as clock
from tests import otel_kit
from tests.conftest import BOUND
from tests.stores import redis_procs
from tests.stores.redis_procs import answer
from tests.stores.test_redis import RAN, replica, round_, session_on, text
from typed_elicit.errors import StoreUnavailable
from typed_elicit.stores import RedisStore, configure

pytestmark = [pytest.mark.anyio, pytest.mark.redis, pytest.mark.slow]

USER = "elicit-app"
SECRET = "pw-Zq8vN3-never-shown"
"""The ACL user's password: it must appear in no message, log, chain or span."""
WRONG = "pw-wrong-Kx71-never-shown"


@pytest.fixture(scope="module")
def tls_redis(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[redis_procs.Proc, redis_procs.Certificates]]:
    """A TLS-only Redis with the ACL user `elicit-app` (its keys and channels only)."""
    redis_procs.require_redis_server()
    directory = tmp_path_factory.mktemp("tls")
    certificates = redis_procs.make_certificates(directory / "certs")
    with redis_procs.processes() as started:
        server = redis_procs.tls(directory / "server", certificates)
        started.append(server)
        server.start()
        server.client().execute_command(
            "ACL", "SETUSER", USER, "reset", "on", f">{SECRET}",
            "~typed_elicit:*", "&typed_elicit:*", "+@connection", "+set", "+get", "+mget", "+del", "+publish",
            "+subscribe", "+unsubscribe", "+wait",
        )  # fmt: skip
        yield server, certificates


def url(server: redis_procs.Proc, certificates: redis_procs.Certificates, password: str = SECRET) -> str:
    return f"rediss://{USER}:{password}@127.0.0.1:{server.port}/0?ssl_ca_certs={certificates.ca}"


@pytest.fixture
async def store(tls_redis: tuple[redis_procs.Proc, redis_procs.Certificates]) -> AsyncIterator[RedisStore]:
    built = RedisStore.from_url(url(*tls_redis), timeout=2.0)
    yield built
    await built.aclose()


def chain(error: BaseException) -> list[BaseException]:
    """The error and every exception linked to it (causes and contexts, suppressed or not)."""
    seen: list[BaseException] = []
    pending: list[BaseException | None] = [error]
    while pending:
        item = pending.pop()
        if item is None or any(item is known for known in seen):
            continue
        seen.append(item)
        pending.extend((item.__cause__, item.__context__))
    return seen


def assert_no_secret(error: BaseException, *secrets: str) -> None:
    for linked in chain(error):
        shown = (
            f"{linked}\n{linked!r}\n{linked.args!r}\n{vars(linked) if hasattr(linked, '__dict__') else ''}"
        )
        for secret in secrets:
            assert secret not in shown, f"{type(linked).__name__} shows the password"


async def test_a_store_on_rediss_with_the_tests_own_ca_claims_once_and_a_put_wakes_a_wait(store, tls_redis):
    server, certificates = tls_redis
    other = RedisStore.from_url(url(server, certificates))
    key = f"page:{clock.now()}-tls"
    with anyio.fail_after(BOUND):
        assert await store.claim(f"round:{key}", clock.now() + 60) is True
        assert await other.claim(f"round:{key}", clock.now() + 60) is False
        async with anyio.create_task_group() as tasks:
            got: list[bytes | None] = []

            async def waiter() -> None:
                got.append(await store.wait(key, BOUND))

            tasks.start_soon(waiter)
            while not server.client().execute_command("PUBSUB", "NUMSUB", "typed_elicit:wake")[1]:
                await anyio.sleep(redis_procs.POLL)  # bounded by fail_after: until the wait subscribed
            assert await other.put(key, b"sealed", clock.now() + 60) is True
        assert await other.get_many(key, f"{key}-none") == [b"sealed", None]  # (a page's GET: `+mget`)
    assert got == [b"sealed"]
    # The store's connections are the ACL user's, over TLS (the server has no plain port at all).
    users = {entry["user"] for entry in server.client().client_list() if entry.get("user") != "default"}
    assert users == {USER}
    await other.aclose()


async def test_a_plain_redis_url_to_the_tls_port_fails_with_a_typed_error_in_time(tls_redis):
    server, _ = tls_redis
    plain = RedisStore.from_url(f"redis://{USER}:{SECRET}@127.0.0.1:{server.port}/0", timeout=0.5)
    with anyio.fail_after(BOUND), pytest.raises(StoreUnavailable) as raised:
        await plain.claim("round:plain", clock.now() + 60)
    assert raised.value.operation == "claim"
    assert_no_secret(raised.value, SECRET)
    await plain.aclose()


async def test_a_certificate_from_another_ca_is_named_as_failed_certificate_verification(
    tls_redis, tmp_path: Path
):
    server, _ = tls_redis
    stranger = redis_procs.make_certificates(tmp_path / "stranger")  # a CA that did not sign the server's
    store = RedisStore.from_url(
        f"rediss://{USER}:{SECRET}@127.0.0.1:{server.port}/0?ssl_ca_certs={stranger.ca}", timeout=2.0
    )
    for error, _ in await redis_procs.a_claim_and_a_wait_failing(store):
        assert error.cause.startswith("TLS certificate verification failed")
        assert "ssl_ca_certs=" in error.fix
        assert error.claimed == "no"
        assert_no_secret(error, SECRET)
    await store.aclose()


async def test_rediss_to_a_plain_port_is_named_not_tls_before_the_timeout(tmp_path: Path):
    plain = redis_procs.plain(tmp_path / "plain", "--requirepass", SECRET, client_kwargs={"password": SECRET})
    with redis_procs.processes() as started:
        started.append(plain)
        plain.start()
        timeout = 4.0  # generous: the check that names the cause has half of it (a local PING)
        store = RedisStore.from_url(f"rediss://:{SECRET}@127.0.0.1:{plain.port}/0", timeout=timeout)
        for error, took in await redis_procs.a_claim_and_a_wait_failing(store):
            assert "does not speak TLS" in error.cause, error.cause
            assert "redis://" in error.fix
            assert took < timeout  # named before the whole timeout ran out
            assert_no_secret(error, SECRET)
        await store.aclose()


async def test_a_wrong_password_fails_every_operation_with_a_typed_error_that_never_shows_it(
    tls_redis, caplog
):
    caplog.set_level(logging.DEBUG)
    bad = RedisStore.from_url(url(*tls_redis, password=WRONG), timeout=1.0)
    errors: list[StoreUnavailable] = []
    with anyio.fail_after(BOUND):
        for operation in (
            bad.claim("round:r1", clock.now() + 60),
            bad.put("page:p1", b"v", clock.now() + 60),
            bad.get("page:p1"),
            bad.wait("page:p1", 5.0),
        ):
            with pytest.raises(StoreUnavailable) as raised:
                await operation
            errors.append(raised.value)
        await bad.delete("page:p1")  # logged, not raised
    assert [e.operation for e in errors] == ["claim", "put", "get", "wait"]
    for error in errors:  # named as what it is, with what to check (issue 27, item 7)
        assert error.cause == "authentication failed (AuthenticationError)"
        assert "user name and password in the store URL" in str(error)
        assert error.claimed == "no"
    for error in errors:
        assert_no_secret(error, WRONG, SECRET)
        assert error.store == f"redis 127.0.0.1:{tls_redis[0].port} db 0"
    assert WRONG not in caplog.text
    assert any("could not delete" in r.getMessage() for r in caplog.records)
    await bad.aclose()


async def test_a_user_without_rights_on_a_key_gets_a_typed_error_that_never_shows_the_password(tls_redis):
    narrow = RedisStore.from_url(url(*tls_redis), prefix="other-app:", timeout=1.0)
    with anyio.fail_after(BOUND), pytest.raises(StoreUnavailable) as raised:
        await narrow.claim("round:r2", clock.now() + 60)
    assert "NoPermissionError" in raised.value.cause
    assert "ACL user" in raised.value.fix
    assert_no_secret(raised.value, SECRET)
    await narrow.aclose()


@pytest.fixture
def otel() -> Iterator[otel_kit.Recorded]:
    yield from otel_kit.installed()


def span_texts(otel: otel_kit.Recorded) -> list[str]:
    seen: list[str] = []
    for span in otel.spans():
        seen.append(span.name)
        seen.append(str(span.status.description))
        seen.extend(f"{k}={v}" for k, v in (span.attributes or {}).items())
        for event in span.events:
            seen.append(event.name)
            seen.extend(f"{k}={v}" for k, v in (event.attributes or {}).items())
    return seen


async def test_a_call_on_a_store_with_a_wrong_password_or_down_shows_no_password_to_the_client_logs_or_spans(
    tls_redis, caplog, otel, tmp_path: Path
):
    """The same call, through an MCP server: its store's password is wrong, then its store is down."""
    caplog.set_level(logging.DEBUG)
    server, certificates = tls_redis
    stopped = redis_procs.tls(tmp_path / "down", certificates)  # never started: a port nothing listens on
    outcomes: list[str] = []
    for target in (url(server, certificates, password=WRONG), url(stopped, certificates)):
        RAN.clear()
        mcp: MCPServer = replica(RedisStore.from_url(target, timeout=0.5))
        async with session_on(mcp) as session:
            with anyio.fail_after(BOUND):
                first = await round_(session)
                assert isinstance(first, InputRequiredResult)
                outcomes.append(text(await round_(session, first.request_state, answer(code="123456"))))
        assert RAN == []
    assert all("StoreUnavailable: the shared store" in outcome for outcome in outcomes)
    shown = "\n".join([*outcomes, caplog.text, *span_texts(otel)])
    assert len(otel.spans()) >= 2
    for secret in (WRONG, SECRET):
        assert secret not in shown
    for record in caplog.records:
        if record.exc_info and record.exc_info[1] is not None:
            assert_no_secret(record.exc_info[1], WRONG, SECRET)


def test_configure_takes_a_rediss_url_with_a_user_and_logs_where_it_is_without_the_password(
    tls_redis, caplog
):
    caplog.set_level(logging.INFO, logger="typed_elicit.stores")
    configure(MCPServer("tls"), store=url(*tls_redis))
    assert [r.getMessage() for r in caplog.records if r.name == "typed_elicit.stores"] == [
        f"RedisStore on redis 127.0.0.1:{tls_redis[0].port} db 0"
    ]
    assert SECRET not in caplog.text


async def test_the_tls_example_applies_a_payout_once_across_two_replicas_on_the_tls_redis(tls_redis):
    server, certificates = tls_redis
    env = {
        "TYPED_ELICIT_STORE": "",  # (unset: the example builds its URL from the parts below)
        "REDIS_USER": USER,
        "REDIS_PASSWORD": SECRET,
        "REDIS_HOST": f"127.0.0.1:{server.port}",
        "REDIS_CA": str(certificates.ca),
    }
    outcomes, applied = await redis_procs.an_example_on_two_replicas("redis_tls", "payout", env)
    assert outcomes == ["paid 250", f"refused {INVALID_PARAMS}", f"refused {INVALID_PARAMS}"]
    assert applied == [250]
