"""`RedisStore` on a master watched by Sentinel (`redis+sentinel://`), through failovers.

Each test starts its own group on free ports: one master, one replica, three sentinels
(quorum 2, a master is down after 400 ms). The promise under test: a call in flight when
the master dies ends with a typed error (`StoreUnavailable`) or completes, and never
applies twice. And what asynchronous replication can lose, measured: a claim the old master
acknowledged and did not replicate is gone after the failover (the round can be claimed
again), unless the store waits for a replica (`replicas=1`, WAIT) or the master refuses
writes its replicas do not follow (`min-replicas-to-write`).
"""

from __future__ import annotations

import logging
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, InputRequiredResult

import typed_elicit._core.clock as clock
from tests.conftest import BOUND
from tests.stores import redis_procs
from tests.stores.redis_procs import answer
from tests.stores.test_redis import RAN, a_round_answered, replica, round_, session_on, text
from typed_elicit.errors import StoreUnavailable
from typed_elicit.stores import RedisStore

pytestmark = [pytest.mark.anyio, pytest.mark.redis, pytest.mark.slow]

SECRET = "sentinel-pw-4Gq9-never-shown"
FAILOVER = 20.0
"""Seconds a failover may take (down after 400 ms, then the vote and the promotion: ~2 s)."""


@pytest.fixture
def group(tmp_path: Path) -> Iterator[redis_procs.SentinelGroup]:
    redis_procs.require_redis_server()
    with redis_procs.processes() as started:
        yield redis_procs.sentinel_group(tmp_path, started, password=SECRET)


def sentinel_url(group: redis_procs.SentinelGroup, db: int = 0) -> str:
    return f"redis+sentinel://:{SECRET}@{group.sentinel_hosts()}/{redis_procs.SERVICE}/{db}"


def caught_up(group: redis_procs.SentinelGroup) -> bool:
    """Whether the replica has everything the master wrote (replication offsets equal)."""

    def offset(proc: redis_procs.Proc, field: str) -> int:
        info = proc.client().info("replication")
        return int(info[field])

    return offset(group.replica, "slave_repl_offset") >= offset(group.master, "master_repl_offset")


def fail_over_to_the_replica(group: redis_procs.SentinelGroup) -> None:
    """Wait (bounded) until every sentinel names the replica as the master, and it accepts writes."""
    for sentinel in group.sentinels:
        wait_until_master(group, sentinel)
    redis_procs.wait_until(
        lambda: group.replica.client().info("replication")["role"] == "master", "the replica to be promoted"
    )


def wait_until_master(group: redis_procs.SentinelGroup, sentinel: redis_procs.Proc) -> None:
    def promoted() -> bool:
        _, port = sentinel.client().execute_command(
            "SENTINEL", "GET-MASTER-ADDR-BY-NAME", redis_procs.SERVICE
        )
        return int(port) == group.replica.port

    redis_procs.wait_until(promoted, f"sentinel {sentinel.port} to fail over", timeout=FAILOVER)


async def test_a_sentinel_url_finds_the_master_and_logs_where_it_is_without_the_password(group, caplog):
    caplog.set_level(logging.INFO, logger="typed_elicit.stores")
    store = RedisStore.from_url(sentinel_url(group, db=3))
    other = RedisStore.from_url(sentinel_url(group, db=3))
    key = "page:sentinel-basic"
    with anyio.fail_after(BOUND):
        assert await store.claim("round:basic", clock.now() + 60) is True
        assert await other.claim("round:basic", clock.now() + 60) is False
        async with anyio.create_task_group() as tasks:
            got: list[bytes | None] = []

            async def waiter() -> None:
                got.append(await store.wait(key, BOUND))

            tasks.start_soon(waiter)
            while not group.master.client().execute_command("PUBSUB", "NUMSUB", "typed_elicit:wake:3")[1]:
                await anyio.sleep(redis_procs.POLL)  # until the wait subscribed
            assert await other.put(key, b"sealed", clock.now() + 60) is True
    assert got == [b"sealed"]
    assert group.master.client(db=3).get("typed_elicit:round:basic") is not None  # on the master, database 3
    hosts = group.sentinel_hosts()
    lines = [r.getMessage() for r in caplog.records if r.name == "typed_elicit.stores"]
    assert lines == [f"RedisStore on redis sentinel {hosts} service {redis_procs.SERVICE} db 3"] * 2
    assert SECRET not in caplog.text
    await store.aclose()
    await other.aclose()


SENTINEL_SECRET = "sentinels-own-pw-8Rt2-never-shown"


async def test_sentinels_that_need_a_password_of_their_own_are_named_at_once_not_after_the_timeout(
    tmp_path: Path,
):
    """Issue 27, item 7: before, every operation ended as "no answer within ..." after its whole timeout."""
    redis_procs.require_redis_server()
    with redis_procs.processes() as started:
        guarded = redis_procs.sentinel_group(
            tmp_path, started, password=SECRET, sentinel_password=SENTINEL_SECRET
        )
        timeout = 5.0
        store = RedisStore.from_url(sentinel_url(guarded), timeout=timeout)
        for error, took in await redis_procs.a_claim_and_a_wait_failing(store):
            assert "password of their own" in error.cause, error.cause
            assert took < timeout  # (generous: named once every sentinel refused, not at the deadline)
            assert "sentinel_kwargs" in error.fix
            assert error.claimed == "no"
            for secret in (SECRET, SENTINEL_SECRET):
                assert secret not in f"{error}{error!r}{vars(error)}"
        await store.aclose()


async def test_a_service_no_sentinel_monitors_is_named_as_such(group):
    store = RedisStore.from_url(
        f"redis+sentinel://:{SECRET}@{group.sentinel_hosts()}/no-such-service/0", timeout=5.0
    )
    with anyio.fail_after(BOUND), pytest.raises(StoreUnavailable) as raised:
        await store.claim("round:unknown-service", clock.now() + 60)
    assert raised.value.cause == "no sentinel monitors a master named 'no-such-service'"
    assert "sentinel monitor" in raised.value.fix
    assert raised.value.claimed == "no"
    await store.aclose()


async def test_a_store_on_a_sentinel_client_built_by_hand_has_its_waits_woken_on_the_master(group):
    """The escape hatch the docs name (e.g. sentinels with a password of their own): `RedisStore(client)`."""
    from redis.asyncio.sentinel import Sentinel

    sentinel = Sentinel([("127.0.0.1", s.port) for s in group.sentinels], socket_timeout=1.0)
    store = RedisStore(sentinel.master_for(redis_procs.SERVICE, password=SECRET), timeout=1.0)
    other = RedisStore.from_url(sentinel_url(group))
    key = "page:by-hand"
    with anyio.fail_after(BOUND):
        async with anyio.create_task_group() as tasks:
            got: list[bytes | None] = []

            async def waiter() -> None:
                got.append(await store.wait(key, BOUND))

            tasks.start_soon(waiter)
            while not group.master.client().execute_command("PUBSUB", "NUMSUB", "typed_elicit:wake")[1]:
                await anyio.sleep(redis_procs.POLL)  # subscribed on the master Sentinel named
            assert await other.put(key, b"sealed", clock.now() + 60) is True
    assert got == [b"sealed"]
    await store.aclose()
    await other.aclose()
    for client in sentinel.sentinels:
        await client.aclose()


async def test_calls_in_flight_during_a_failover_end_with_a_typed_error_or_complete_and_never_apply_twice(
    group,
):
    RAN.clear()
    store = RedisStore.from_url(sentinel_url(group), timeout=0.5)
    server = replica(store)
    async with session_on(server) as session:
        with anyio.fail_after(BOUND):
            done = await a_round_answered(session, "100000")
            in_flight = [await round_(session) for _ in range(8)]
        states = [r.request_state for r in in_flight if isinstance(r, InputRequiredResult)]
        assert len(states) == 8
        redis_procs.wait_until(lambda: caught_up(group), "the replica to catch up")
        waiting = anyio.Event()
        wait_outcome: list[str] = []

        async def a_wait_in_flight() -> None:
            waiting.set()
            try:
                await store.wait("page:in-flight", FAILOVER)
                wait_outcome.append("returned")
            except StoreUnavailable as error:
                wait_outcome.append(f"StoreUnavailable {error.operation}")

        outcomes: dict[int, list[str]] = {index: [] for index in range(len(states))}

        async def send_final(index: int, state: str) -> None:
            """Send the final round until it completes or is refused; note every outcome."""
            code = f"{200000 + index}"
            while True:
                try:
                    result = text(await round_(session, state, answer(code=code)))
                except MCPError as error:
                    outcomes[index].append("refused" if error.error.code == INVALID_PARAMS else repr(error))
                    return
                if "StoreUnavailable" in result:
                    outcomes[index].append("StoreUnavailable")
                    await anyio.sleep(redis_procs.POLL)  # poll again until the new master answers
                    continue
                outcomes[index].append(result)
                return

        started = time.monotonic()
        with anyio.fail_after(FAILOVER + BOUND):
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(a_wait_in_flight)
                await waiting.wait()
                await anyio.sleep(0)
                group.master.kill()  # the master dies with 8 final rounds and a wait in flight
                for index, state in enumerate(states):
                    tasks.start_soon(send_final, index, state)
        took = time.monotonic() - started
        fail_over_to_the_replica(group)
        with anyio.fail_after(BOUND):
            # Every final round sent again after the failover is refused: applied once at most.
            for state in [done, *states]:
                with pytest.raises(MCPError) as again:
                    await round_(session, state, answer(code="999999"))
                assert again.value.error.code == INVALID_PARAMS
            later = await round_(session)
            assert isinstance(later, InputRequiredResult)
            assert text(await round_(session, later.request_state, answer(code="300000"))) == "code 300000"
            # A wait after the failover subscribes on the new master and is woken there.
            async with anyio.create_task_group() as tasks:
                woken: list[bytes | None] = []

                async def a_wait_after() -> None:
                    woken.append(await store.wait("page:after", BOUND))

                tasks.start_soon(a_wait_after)
                channel = "typed_elicit:wake"
                while not group.replica.client().execute_command("PUBSUB", "NUMSUB", channel)[1]:
                    await anyio.sleep(redis_procs.POLL)
                assert await store.put("page:after", b"sealed", clock.now() + 60) is True
            assert woken == [b"sealed"]
    await store.aclose()
    finals = {index: seen[-1] for index, seen in outcomes.items()}
    assert all(final == f"code {200000 + index}" or final == "refused" for index, final in finals.items()), (
        outcomes
    )
    assert sorted(RAN) == sorted(
        {"100000", "300000", *(f[5:] for f in finals.values() if f.startswith("code"))}
    )
    assert len(RAN) == len(set(RAN))  # nothing applied twice
    assert sum(seen.count("StoreUnavailable") for seen in outcomes.values()) > 0  # the failover was met
    assert wait_outcome in (["StoreUnavailable wait"], ["returned"])
    retries = sum(seen.count("StoreUnavailable") for seen in outcomes.values())
    print(
        f"failover: {took:.1f} s; finals {sorted(finals.values())}; "
        f"{retries} StoreUnavailable; wait {wait_outcome}"
    )


async def test_a_failover_loses_an_unreplicated_claim_and_waiting_for_a_replica_or_min_replicas_prevents_it(
    group,
):
    """Measured: the replica stalls, the master acknowledges claims, dies; what the new master knows."""
    trusting = RedisStore.from_url(sentinel_url(group), timeout=1.0)  # replicas=0: the master's reply
    waiting = RedisStore.from_url(sentinel_url(group), timeout=1.0, replicas=1)  # WAIT for 1 replica
    expiry = clock.now() + 120
    with anyio.fail_after(BOUND):
        assert await trusting.claim("round:replicated", expiry) is True
    redis_procs.wait_until(lambda: caught_up(group), "the replica to catch up")  # replicated
    assert group.replica.process is not None
    # The replica is cut off: stopped, and its link dropped by the master (what a partition does;
    # a stop alone is not enough: the kernel would buffer the stream and deliver it on resume).
    os.kill(group.replica.process.pid, signal.SIGSTOP)
    try:
        group.master.client().execute_command("CLIENT", "KILL", "TYPE", "replica")
        redis_procs.wait_until(
            lambda: int(group.master.client().info("replication")["connected_slaves"]) == 0,
            "the master to drop its replica",
        )
        with anyio.fail_after(BOUND):
            started = time.monotonic()
            with pytest.raises(StoreUnavailable) as refused:
                await waiting.claim("round:waited", expiry)
            refused_in = time.monotonic() - started
            assert await trusting.claim("round:trusted", expiry) is True  # acknowledged, not replicated
        group.master.client().config_set("min-replicas-to-write", 1)
        group.master.client().config_set("min-replicas-max-lag", 1)
        redis_procs.wait_until(
            lambda: int(group.master.client().info("replication").get("min_slaves_good_slaves", 1)) == 0,
            "the master to count the stalled replica out",
        )
        with anyio.fail_after(BOUND), pytest.raises(StoreUnavailable) as no_replicas:
            await trusting.claim("round:min-replicas", expiry)
        group.master.kill()
    finally:
        if group.replica.process is not None:
            os.kill(group.replica.process.pid, signal.SIGCONT)
    assert refused.value.cause == "0 of 1 replicas acknowledged it in time"
    assert refused.value.operation == "claim"
    assert no_replicas.value.cause == "ResponseError"  # NOREPLICAS: the master refused the write
    fail_over_to_the_replica(group)
    after = RedisStore.from_url(sentinel_url(group), timeout=1.0)
    with anyio.fail_after(BOUND):
        again = {
            key: await after.claim(key, expiry)
            for key in ("round:replicated", "round:trusted", "round:waited", "round:min-replicas")
        }
    assert again == {
        "round:replicated": False,  # replicated before the stall: still claimed on the new master
        "round:trusted": True,  # LOST: acknowledged by the old master only; claimed a second time
        "round:waited": True,  # refused the first time (nothing applied): this is its first claim
        "round:min-replicas": True,  # refused the first time too
    }
    # The price of replicas=1: with no replica left (the old master is gone), every claim is refused.
    causes: list[str] = []
    with anyio.fail_after(BOUND):
        while not causes or not causes[-1].startswith("0 of 1"):
            try:  # (its first commands may still meet the old master's dead connections)
                await waiting.claim("round:no-replica-left", expiry)
                causes.append("claimed")
                break
            except StoreUnavailable as error:
                causes.append(error.cause)
            await anyio.sleep(redis_procs.POLL)
    assert causes[-1] == "0 of 1 replicas acknowledged it in time"
    for store in (trusting, waiting, after):
        await store.aclose()
    print(f"WAIT refused an unreplicated claim in {refused_in:.2f} s (timeout 1 s)")


async def test_the_sentinel_example_applies_a_withdrawal_once_across_two_replicas_waiting_for_a_replica(
    group,
):
    env = {"TYPED_ELICIT_STORE": sentinel_url(group)}
    outcomes, applied = await redis_procs.an_example_on_two_replicas("redis_sentinel", "withdraw", env)
    assert outcomes == ["withdrew 250", f"refused {INVALID_PARAMS}", f"refused {INVALID_PARAMS}"]
    assert applied == [250]
    assert len(group.replica.client().keys("typed_elicit:round:*")) == 1  # WAIT: on the replica already
