"""`RedisStore` on a Redis Cluster (`redis+cluster://`): a slot per question, sharded wake-ups, failures.

The module starts a local cluster of three masters (no replicas) on free ports. The promise
under test, as on one Redis: a consume-once claim is applied at most once, and an operation
that cannot be made ends the call with `StoreUnavailable`; here also while a slot moves to
another master and while a master is down.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, InputRequiredResult
from redis.crc import key_slot
from redis.exceptions import ConnectionError as RedisConnectionError

import typed_elicit._core.clock as clock
from tests.conftest import BOUND
from tests.stores import redis_procs
from tests.stores.redis_procs import answer
from tests.stores.test_redis import RAN, a_round_answered, replica, round_, session_on, text
from typed_elicit.errors import StoreUnavailable
from typed_elicit.stores import RedisStore

pytestmark = [pytest.mark.anyio, pytest.mark.redis, pytest.mark.slow]

PAGE_KEYS = ("page-ticket:", "page:", "page-taken:", "page-kept:")


@pytest.fixture(scope="module")
def nodes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[redis_procs.Proc]]:
    redis_procs.require_redis_server()
    with redis_procs.processes() as started:
        yield redis_procs.cluster(tmp_path_factory.mktemp("cluster"), started)


def cluster_url(nodes: list[redis_procs.Proc]) -> str:
    """Two of the three nodes listed: the client finds the third itself."""
    return "redis+cluster://" + ",".join(f"127.0.0.1:{node.port}" for node in nodes[:2])


def slot(name: str) -> int:
    return key_slot(name.encode())


def ids_on_every_master(nodes: list[redis_procs.Proc]) -> dict[int, str]:
    """A page id whose slot each master serves, by port."""
    found: dict[int, str] = {}
    while len(found) < len(nodes):
        page_id = uuid.uuid4().hex
        found.setdefault(redis_procs.owner_of(nodes, slot(f"typed_elicit:page:{{{page_id}}}")).port, page_id)
    return found


class Recording(RedisStore):
    """A cluster store that notes every key it claims (the test needs a round's slot)."""

    claimed: list[str]

    async def claim(self, key: str, expires_at: float, /) -> bool:
        self.claimed.append(key)
        return await super().claim(key, expires_at)


def recording(url: str, **options: Any) -> Recording:
    store = Recording.from_url(url, **options)
    assert isinstance(store, Recording)
    store.claimed = []
    return store


async def test_the_keys_of_one_page_question_and_its_wake_up_channel_share_one_slot(nodes):
    store = RedisStore.from_url(cluster_url(nodes))
    page_id = uuid.uuid4().hex
    with anyio.fail_after(BOUND):
        for prefix in PAGE_KEYS:
            assert await store.put(prefix + page_id, b"sealed", clock.now() + 60) is True
    names = [f"typed_elicit:{prefix}{{{page_id}}}" for prefix in PAGE_KEYS]
    owner = redis_procs.owner_of(nodes, slot(names[0]))
    assert {slot(name) for name in [*names, f"typed_elicit:wake:page:{{{page_id}}}"]} == {slot(names[0])}
    held = owner.client()
    assert [held.get(name) for name in names] == [b"sealed"] * 4
    assert all(0 < held.pttl(name) <= 60_000 for name in names)
    await store.aclose()


async def test_the_ticket_and_answer_of_a_page_on_every_master_are_read_in_one_mget(nodes):
    store = RedisStore.from_url(cluster_url(nodes))
    with anyio.fail_after(BOUND):
        for page_id in ids_on_every_master(nodes).values():
            assert await store.put(f"page-ticket:{page_id}", b"ticket", clock.now() + 60)
            assert await store.get_many(f"page-ticket:{page_id}", f"page:{page_id}") == [b"ticket", None]
    await store.aclose()


@pytest.mark.parametrize(("era", "most"), [("2025-11-25", 12), ("2026-07-28", 12)])
def test_a_page_question_with_a_file_on_a_cluster_stays_within_its_commands_and_never_reconnects(
    nodes, era: str, most: int, monkeypatch: pytest.MonkeyPatch
):
    # A wait re-reads its key every second: not within a question answered at once, however slow the machine.
    monkeypatch.setattr("typed_elicit.stores._redis.REREAD_SECONDS", 60.0)
    # Before: 18 and 20, and new connections (HELLO) while the store ran.
    from tests.bench.redis_counts import count

    admins = [node.client(decode_responses=True) for node in nodes]
    (counted,) = count("cluster", cluster_url(nodes), admins, 3, eras=(era,), files=(True,))
    assert 0 < counted.per_question <= most, counted.commands
    assert counted.connections == 0, counted.commands


async def test_a_hundred_concurrent_claims_of_one_key_on_a_cluster_give_exactly_one_winner(nodes):
    # A generous timeout: under test is one winner among 100 first claims of four fresh stores
    # (each learns the slot map first, outside its claims' timeouts), not how fast a busy
    # machine opens 100 connections.
    stores = [RedisStore.from_url(cluster_url(nodes), timeout=5.0) for _ in range(4)]
    key = f"round:{uuid.uuid4().hex}"
    results: list[bool] = []

    async def claim(store: RedisStore) -> None:
        results.append(await store.claim(key, clock.now() + 60))

    with anyio.fail_after(BOUND):
        async with anyio.create_task_group() as tasks:
            for index in range(100):
                tasks.start_soon(claim, stores[index % 4])
    assert sorted(results) == [False] * 99 + [True]
    for store in stores:
        await store.aclose()


async def test_a_clusters_first_operation_learns_the_slot_map_before_its_own_deadline_starts(nodes):
    """Issue 27, item 8: learning the slots is not charged to the operation's timeout.

    Structural, not timed: the `SET` of the first claim runs under a deadline that starts
    after the slot map was learnt, so a slow discovery (a busy machine) never eats the claim's
    own `timeout`.
    """
    timeout = 1.0
    store = RedisStore.from_url(cluster_url(nodes), timeout=timeout)
    client: Any = store._client
    learnt: list[float] = []
    deadlines: list[float] = []
    initialize, execute_command = client.initialize, client.execute_command

    async def noting_initialize(*args: Any, **kwargs: Any) -> Any:
        result = await initialize(*args, **kwargs)
        learnt.append(anyio.current_time())
        return result

    async def noting_execute_command(*args: Any, **kwargs: Any) -> Any:
        if args[0] == "SET":
            deadlines.append(anyio.current_effective_deadline())
        return await execute_command(*args, **kwargs)

    client.initialize, client.execute_command = noting_initialize, noting_execute_command
    with anyio.fail_after(BOUND):
        assert await store.claim(f"round:{uuid.uuid4().hex}", clock.now() + 60) is True
    assert learnt
    assert deadlines
    assert deadlines[0] >= learnt[0] + timeout  # the claim's own deadline began once the slots were known
    await store.aclose()


async def test_a_cluster_no_listed_node_answers_for_is_named_as_such_and_nothing_is_claimed():
    url = f"redis+cluster://127.0.0.1:{redis_procs.free_port()},127.0.0.1:{redis_procs.free_port()}"
    store = RedisStore.from_url(url, timeout=1.0)
    with anyio.fail_after(BOUND), pytest.raises(StoreUnavailable) as raised:
        await store.claim("round:nowhere", clock.now() + 60)
    assert raised.value.cause == "the cluster's slot map could not be learnt: connection refused"
    assert raised.value.claimed == "no"
    await store.aclose()


async def test_a_claim_redis_py_resends_after_its_reply_was_lost_is_still_this_calls_claim_and_its_round_runs(
    nodes,
):
    """Issue 27, item 15: the cluster client resends a command whose reply it lost (`ConnectionError`).

    The first `SET NX` is applied and its reply lost; redis-py sends it again, which finds the
    key held. Before, that resend read as "already used": the round was refused and its tool
    never ran. The claim's random value tells the resend that the key is its own.
    """
    RAN.clear()
    store = RedisStore.from_url(cluster_url(nodes))
    client: Any = store._client
    sent: list[str] = []
    original = client._execute_command

    async def reply_lost_once(node: Any, *args: Any, **kwargs: Any) -> Any:
        result = await original(node, *args, **kwargs)
        if args[0] == "SET" and str(args[1]).startswith("typed_elicit:round:") and not sent:
            sent.append(str(args[1]))
            raise RedisConnectionError("the reply was lost")  # (redis-py retries this error)
        return result

    client._execute_command = reply_lost_once
    server = replica(store)
    async with session_on(server) as session:
        with anyio.fail_after(BOUND):
            used = await a_round_answered(session, "400000")
            with pytest.raises(MCPError) as again:
                await round_(session, used, answer(code="400000"))
            assert again.value.error.code == INVALID_PARAMS
    assert len(sent) == 1
    assert RAN == ["400000"]
    await store.aclose()


async def test_puts_for_keys_on_every_master_wake_waits_through_one_sharded_channel_and_connection(nodes):
    waiting = RedisStore.from_url(cluster_url(nodes))
    putting = RedisStore.from_url(cluster_url(nodes))
    by_master = ids_on_every_master(nodes)
    page_ids = [*by_master.values(), *(uuid.uuid4().hex for _ in range(9))]
    got: dict[str, bytes | None] = {}
    channel = "typed_elicit:wake"
    owner = redis_procs.owner_of(nodes, slot(channel))

    async def wait(page_id: str) -> None:
        got[page_id] = await waiting.wait(f"page:{page_id}", BOUND)

    def subscribed() -> dict[int, int]:
        """Per master: the connections holding a shard subscription."""
        listed = {node.port: node.client().client_list() for node in nodes}
        return {port: sum(int(e.get("ssub", 0)) > 0 for e in entries) for port, entries in listed.items()}

    with anyio.fail_after(BOUND):
        async with anyio.create_task_group() as tasks:
            for page_id in page_ids:
                tasks.start_soon(wait, page_id)
            while not int(owner.client().execute_command("PUBSUB", "SHARDNUMSUB", channel)[1]):
                await anyio.sleep(redis_procs.POLL)  # until the waits have subscribed
            assert subscribed() == {node.port: int(node is owner) for node in nodes}  # one, on its master
            for page_id in page_ids:
                assert await putting.put(f"page:{page_id}", page_id.encode(), clock.now() + 60) is True
    assert got == {page_id: page_id.encode() for page_id in page_ids}
    await waiting.aclose()
    await putting.aclose()


async def test_a_slot_moved_to_another_master_during_calls_keeps_every_claim_once_and_a_wait_finds_its_value(
    nodes,
):
    RAN.clear()
    url = cluster_url(nodes)
    store = recording(url, timeout=1.0)
    other = RedisStore.from_url(url, timeout=1.0)
    server = replica(store)
    async with session_on(server) as session:
        with anyio.fail_after(BOUND):
            done = await a_round_answered(session, "100000")
            in_flight = await round_(session)
            assert isinstance(in_flight, InputRequiredResult)
        (claimed,) = store.claimed
        moving = slot(f"typed_elicit:{claimed.partition(':')[0]}:{{{claimed.partition(':')[2]}}}")
        source = redis_procs.owner_of(nodes, moving)
        target = next(node for node in nodes if node is not source)
        round_id = claimed.partition(":")[2]
        page_key = f"page:{round_id}"  # a wait on the same slot as the claimed round
        got: list[bytes | None] = []
        with anyio.fail_after(BOUND):
            async with anyio.create_task_group() as tasks:

                async def wait() -> None:
                    got.append(await store.wait(page_key, BOUND))

                tasks.start_soon(wait)
                channel = "typed_elicit:wake"
                waking = redis_procs.owner_of(nodes, slot(channel))
                while not int(waking.client().execute_command("PUBSUB", "SHARDNUMSUB", channel)[1]):
                    await anyio.sleep(redis_procs.POLL)
                redis_procs.move_slot(nodes, moving, target)  # the slot and its keys move; the wait goes on
                # The wake-up channel's slot moves too: its master unsubscribes the wait, which re-reads.
                redis_procs.move_slot(nodes, slot(channel), next(n for n in nodes if n is not waking))
                # The round answered before the move is still claimed on its new master.
                with pytest.raises(MCPError) as again:
                    await round_(session, done, answer(code="100000"))
                assert again.value.error.code == INVALID_PARAMS
                assert (
                    text(await round_(session, in_flight.request_state, answer(code="200000")))
                    == "code 200000"
                )
                assert await other.put(page_key, b"after the move", clock.now() + 60) is True
        assert got == [b"after the move"]
        assert redis_procs.owner_of(nodes, moving) is target
        assert target.client().get(f"typed_elicit:round:{{{round_id}}}") is not None
        with anyio.fail_after(BOUND):
            for state in (done, in_flight.request_state):
                with pytest.raises(MCPError) as refused:
                    await round_(session, state, answer(code="999999"))
                assert refused.value.error.code == INVALID_PARAMS
    assert RAN == ["100000", "200000"]
    await store.aclose()
    await other.aclose()


async def test_the_cluster_example_applies_a_refund_once_across_two_replicas_on_the_cluster(nodes):
    env = {"TYPED_ELICIT_STORE": cluster_url(nodes)}
    outcomes, applied = await redis_procs.an_example_on_two_replicas("redis_cluster", "refund", env)
    assert outcomes == ["refunded 250", f"refused {INVALID_PARAMS}", f"refused {INVALID_PARAMS}"]
    assert applied == [250]


async def test_a_master_killed_during_calls_ends_them_with_a_typed_error_or_completes_them_and_never_twice(
    nodes, tmp_path: Path
):
    RAN.clear()
    url = cluster_url(nodes)
    store = RedisStore.from_url(url, timeout=0.5)  # (the calls meeting the dead master fail fast)
    server = replica(store)
    by_master = ids_on_every_master(nodes)
    victim = nodes[2]  # (not listed in the URL: the client learnt it from the others)
    page_on_victim = f"page:{by_master[victim.port]}"
    # A store whose wake-up channel is on the victim too (its prefix picked for that).
    prefixes = (f"te{n}:" for n in range(10_000))
    prefix = next(p for p in prefixes if redis_procs.owner_of(nodes, slot(f"{p}wake")) is victim)
    watching = RedisStore.from_url(url, timeout=5.0, prefix=prefix)  # (generous: a busy machine)
    async with session_on(server) as session:
        with anyio.fail_after(BOUND):
            states = []
            for _ in range(24):  # round ids are random: about a third hash to the victim's slots
                first = await round_(session)
                assert isinstance(first, InputRequiredResult)
                states.append(first.request_state)
        outcomes: list[str] = []
        wait_outcome: list[str] = []
        with anyio.fail_after(BOUND):
            async with anyio.create_task_group() as tasks:

                async def wait() -> None:
                    try:
                        await watching.wait(page_on_victim, BOUND)
                        wait_outcome.append("returned")
                    except StoreUnavailable as error:
                        wait_outcome.append(f"StoreUnavailable {error.operation}")

                tasks.start_soon(wait)
                while not int(victim.client().execute_command("PUBSUB", "SHARDNUMSUB", f"{prefix}wake")[1]):
                    await anyio.sleep(redis_procs.POLL)
                victim.kill()  # a master dies with 24 final rounds about to be sent and a wait on it

                async def send_final(index: int, state: str) -> None:
                    try:
                        outcomes.append(text(await round_(session, state, answer(code=f"3{index:05}"))))
                    except MCPError as error:
                        outcomes.append(f"refused {error.error.code}")

                for index, state in enumerate(states):
                    tasks.start_soon(send_final, index, state)
        assert wait_outcome == ["StoreUnavailable wait"]
        assert all(o.startswith("code ") or "StoreUnavailable: the shared store" in o for o in outcomes), (
            outcomes
        )
        assert any("StoreUnavailable" in o for o in outcomes)  # the dead master was met
        victim.start()  # back on its port with its cluster config: it serves its slots again
        for node in nodes:
            redis_procs.wait_until(lambda node=node: redis_procs._cluster_ok(node), "the cluster to heal")
        with anyio.fail_after(BOUND):
            for index, state in enumerate(states):
                while True:  # the client reconnects to the master that came back
                    try:
                        result = text(await round_(session, state, answer(code=f"3{index:05}")))
                    except MCPError as error:
                        outcomes.append(f"refused {error.error.code}")
                        break
                    if "StoreUnavailable" not in result:
                        outcomes.append(result)
                        break
                    await anyio.sleep(redis_procs.POLL)
    assert len(RAN) == len(set(RAN)) == len(states)  # each call applied once: before the kill or after
    assert sorted(RAN) == [f"3{index:05}" for index in range(len(states))]
    await store.aclose()
    await watching.aclose()
    met = sum("StoreUnavailable" in outcome for outcome in outcomes)
    print(f"a master killed: {met} of {len(states)} final rounds met StoreUnavailable, then completed once")


async def test_a_subscription_meeting_a_moved_slot_reads_its_value_and_the_next_subscribes_on_the_new_owner(
    nodes,
):
    waiting = RedisStore.from_url(cluster_url(nodes))
    putting = RedisStore.from_url(cluster_url(nodes))
    channel = "typed_elicit:wake"
    with anyio.fail_after(BOUND):
        assert await waiting.get("page:warm-up") is None  # the store has learned the slot map
    source = redis_procs.owner_of(nodes, slot(channel))
    target = next(node for node in nodes if node is not source)
    redis_procs.move_slot(nodes, slot(channel), target)  # the store's slot map is stale now
    cluster: Any = waiting._client  # pyright: ignore[reportPrivateUsage]
    got: list[bytes | None] = []

    async def wait(key: str) -> None:
        got.append(await waiting.wait(key, BOUND))

    with anyio.fail_after(BOUND):
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(wait, "page:moved-1")  # SSUBSCRIBE on the old owner: MOVED
            while cluster.get_node_from_key(channel).port != target.port:
                await anyio.sleep(redis_procs.POLL)  # until the store learned the slot's new owner
            assert await putting.put("page:moved-1", b"read again", clock.now() + 60) is True
        assert got == [b"read again"]  # found by the wait's own reads, not failed
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(wait, "page:moved-2")
            while not int(target.client().execute_command("PUBSUB", "SHARDNUMSUB", channel)[1]):
                await anyio.sleep(redis_procs.POLL)  # the next wait subscribes on the new owner
            assert await putting.put("page:moved-2", b"woken", clock.now() + 60) is True
        assert got == [b"read again", b"woken"]
    await waiting.aclose()
    await putting.aclose()
