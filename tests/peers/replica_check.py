"""Drive typed_elicit servers behind nginx and check multi-replica behaviour (tests/peers/replicas.sh).

    python tests/peers/replica_check.py --lb URL --direct NAME=URL [...] [--ttl SECONDS]

`--lb` is nginx (round-robin over replicas r1 and r2, sticky on `mcp-session-id`);
`--direct` names servers reached without nginx: `r1`, `r2` (the replicas), `rotating`
(keys [K2, K1]: mid-rotation, sealing with the new key) and `retired` (keys [K2]: the old
key removed). Every server runs `tests/peers/servers/interop_server.py` (`deploy_wizard`), answered by
typed_elicit's non-interactive `Responder`.

Checks, each printed as `ok`/`FAIL` with what was observed:
 1. 2026-07-28: the three-step wizard through nginx completes, and its rounds were served
    by both replicas (from the `x-replica` response headers).
 2. A tampered requestState is refused (-32602 "Invalid or expired requestState").
 3. A requestState replayed onto another request (another tool) is refused.
 4. A requestState replayed after its TTL is refused (the replicas run with a short TTL).
 5. Key rotation: state sealed under K1 continues on `rotating` ([K2, K1]); state sealed by
    `rotating` under K2 continues on the replicas ([K1, K2]); `retired` ([K2]) refuses K1 state.
 6. Push era (2025-11-25) through nginx: two sessions, each wizard completes, every request of
    a session reached the replica that minted its id, and the sessions were spread over
    both replicas; a session id sent to the other replica is unknown there (404).
 7. Shared store (Redis): the final 2026-07-28 round of `transfer` resent 20 times through
    nginx (both replicas) is applied once; the other 19 get -32602.
 8. Shared store: a fallback token redeemed on both replicas at once is used once.
 9. Shared store: a page submitted to replica B completes a push-era (2025-11-25) question
    waiting on replica A within a second.
10. Shared store: a page submitted to one replica answers the 2026-07-28 rounds of a call
    that nginx spreads over both.

Exits 0 only if every check passed. Bounded: every call has a timeout, the whole run 90 s.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlparse

import anyio
import httpx2
import mcp_types as types
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from typed_elicit.client import Responder

ANSWERS = {
    "service": "api",
    "environment": "production",
    "ticket": "CHG-4242",
    "replicas": 3,
    "email": "ops@example.com",
}
EXPECTED = {
    "status": "deployed",
    "service": "api",
    "environment": "production",
    "ticket": "CHG-4242",
    "replicas": 3,
    "email": "ops@example.com",
    "note": None,
}
CALL_TIMEOUT = 20.0
RUN_TIMEOUT = 90.0
STATE_ERROR = "Invalid or expired requestState"


@dataclass
class Hop:
    """One HTTP exchange seen by the client."""

    method: str
    status: int
    replica: str | None
    session: str | None


@dataclass
class Recorder:
    """An httpx2 client that records which replica answered each JSON-RPC request."""

    hops: list[Hop] = field(default_factory=list[Hop])

    def client(self) -> httpx2.AsyncClient:
        """A fresh HTTP client whose responses are recorded in `hops`."""

        async def on_response(response: httpx2.Response) -> None:
            request = response.request
            method = request.method
            if request.method == "POST":
                try:
                    method = str(json.loads(request.content).get("method", "response"))
                except (ValueError, AttributeError):
                    method = "POST?"
            self.hops.append(
                Hop(
                    method,
                    response.status_code,
                    response.headers.get("x-replica"),
                    request.headers.get("mcp-session-id"),
                )
            )

        return httpx2.AsyncClient(
            timeout=httpx2.Timeout(10.0, read=60.0), event_hooks={"response": [on_response]}
        )


class Report:
    """Collects check outcomes."""

    def __init__(self) -> None:
        self.failed: list[str] = []
        self.passed = 0

    def check(self, ok: bool, name: str, detail: str) -> None:
        """Record and print one check."""
        print(f"{'ok  ' if ok else 'FAIL'} {name}: {detail}", flush=True)
        if ok:
            self.passed += 1
        else:
            self.failed.append(name)


def result_json(result: types.CallToolResult) -> Any:
    """The tool's structured result (or its text parsed as JSON)."""
    if result.structured_content is not None:
        return result.structured_content
    text = "".join(c.text for c in result.content if isinstance(c, types.TextContent))
    return json.loads(text)


def modern_client(url: str, recorder: Recorder | None = None) -> Client:
    """A 2026-07-28 client (no handshake, no session) answering with the Responder."""
    transport = streamable_http_client(url, http_client=(recorder or Recorder()).client())
    return Client(transport, mode="2026-07-28", elicitation_callback=Responder(ANSWERS))


async def first_round(url: str, tool: str = "deploy_wizard") -> types.InputRequiredResult:
    """Call `tool` once without answers and return its InputRequiredResult."""
    async with modern_client(url) as client:
        with anyio.fail_after(CALL_TIMEOUT):
            result = await client.session.call_tool(tool, {}, allow_input_required=True)
    if not isinstance(result, types.InputRequiredResult):
        raise AssertionError(f"{tool} did not ask a question on 2026-07-28: {result}")
    return result


def answers_for(round_: types.InputRequiredResult) -> types.InputResponses:
    """Answer every input request of a round like the Responder would."""
    responder = Responder(ANSWERS)
    responses: dict[str, Any] = {}
    for key, request in (round_.input_requests or {}).items():
        assert isinstance(request, types.ElicitRequest), request
        responses[key] = responder.respond(request.params)
    return responses


async def retry(
    url: str, state: str | None, responses: types.InputResponses, tool: str = "deploy_wizard"
) -> types.CallToolResult | types.InputRequiredResult:
    """Send one retry round of `tool` with the given state and responses."""
    async with modern_client(url) as client:
        with anyio.fail_after(CALL_TIMEOUT):
            return await client.session.call_tool(
                tool, {}, input_responses=responses, request_state=state, allow_input_required=True
            )


def find_mcp_error(exc: BaseException) -> MCPError | None:
    """The MCPError inside `exc`, looking through exception groups."""
    if isinstance(exc, MCPError):
        return exc
    for inner in getattr(exc, "exceptions", ()):
        found = find_mcp_error(inner)
        if found is not None:
            return found
    return None


async def refused(call: Callable[[], Awaitable[object]]) -> tuple[bool, str]:
    """Whether `call` fails with the SDK's invalid-requestState error; and what happened."""
    try:
        outcome = await call()
    except Exception as exc:
        error = find_mcp_error(exc)
        if error is None:
            raise
        ok = error.code == types.INVALID_PARAMS and STATE_ERROR in error.error.message
        return ok, f"error {error.code} {error.error.message!r}"
    return False, f"accepted: {str(outcome)[:200]}"


def tamper(state: str) -> str:
    """Flip one character in the middle of a sealed token."""
    i = len(state) // 2
    return state[:i] + ("A" if state[i] != "A" else "B") + state[i + 1 :]


async def check_modern_wizard(lb: str, report: Report) -> None:
    """Check 1: the 2026-07-28 wizard through nginx completes across both replicas."""
    recorder = Recorder()
    async with modern_client(lb, recorder) as client:
        with anyio.fail_after(CALL_TIMEOUT):
            result = await client.call_tool("deploy_wizard", {})
    calls = [h for h in recorder.hops if h.method == "tools/call"]
    replicas = [h.replica for h in calls]
    got = result_json(result) if not result.is_error else result.content
    report.check(
        got == EXPECTED,
        "2026-07-28 wizard via nginx completes",
        f"{len(calls)} tools/call rounds, result {got}",
    )
    report.check(
        len(calls) >= 4 and {"r1", "r2"} <= set(replicas),
        "its rounds were served by different replicas",
        f"replicas per round: {' -> '.join(str(r) for r in replicas)}",
    )


async def check_state_attacks(lb: str, direct: dict[str, str], ttl: float, report: Report) -> None:
    """Checks 2-5: tampered, replayed onto another request, expired, and key rotation."""
    round1 = await first_round(lb)
    assert round1.request_state is not None
    responses = answers_for(round1)

    ok, seen = await refused(lambda: retry(lb, tamper(round1.request_state or ""), responses))
    report.check(ok, "tampered requestState refused", seen)

    ok, seen = await refused(lambda: retry(lb, round1.request_state, {}, tool="all_kinds"))
    report.check(ok, "requestState replayed onto another tool refused", seen)

    # Rotation: replicas hold [K1, K2] (seal K1), `rotating` holds [K2, K1] (seals K2).
    step = await retry(direct["rotating"], round1.request_state, responses)
    asked = sorted(step.input_requests or {}) if isinstance(step, types.InputRequiredResult) else []
    report.check(
        isinstance(step, types.InputRequiredResult) and bool(asked),
        "rotation: K1 state continues on a replica sealing with K2",
        f"next round asks {asked}",
    )
    if isinstance(step, types.InputRequiredResult) and step.request_state:
        back = await retry(direct["r1"], step.request_state, answers_for(step))
        report.check(
            isinstance(back, types.InputRequiredResult),
            "rotation: K2 state continues on a replica still sealing with K1",
            f"got {type(back).__name__}",
        )
    ok, seen = await refused(lambda: retry(direct["retired"], round1.request_state, responses))
    report.check(ok, "rotation: K1 state refused once K1 is retired", seen)

    # Expiry last: it waits out the TTL.
    wait = ttl + 1.0
    await anyio.sleep(wait)
    ok, seen = await refused(lambda: retry(lb, round1.request_state, responses))
    report.check(ok, f"requestState replayed after its TTL ({ttl:g}s, waited {wait:g}s) refused", seen)


async def check_push_sessions(lb: str, report: Report) -> None:
    """Check 6: push-era sessions through nginx stick to the replica that minted them."""
    owners: list[str] = []
    for n in (1, 2):
        recorder = Recorder()
        client = Client(
            streamable_http_client(lb, http_client=recorder.client()),
            mode="legacy",
            elicitation_callback=Responder(ANSWERS),
        )
        async with client:
            with anyio.fail_after(CALL_TIMEOUT):
                result = await client.call_tool("deploy_wizard", {})
            version = client.session.protocol_version
        got = result_json(result) if not result.is_error else result.content
        session_hops = [h for h in recorder.hops if h.session]
        sessions = {h.session or "" for h in session_hops}
        served = {h.replica for h in session_hops}
        session = next(iter(sessions), "")
        owner = session.split(".", 1)[0]
        owners.append(owner)
        report.check(
            got == EXPECTED and len(sessions) == 1 and served == {owner},
            f"push-era session {n} ({version}) via nginx completes on its own replica",
            f"session {session[:12]}..., {len(session_hops)} requests, served by {sorted(map(str, served))}",
        )
    report.check(
        set(owners) == {"r1", "r2"},
        "push-era sessions spread over both replicas",
        f"owners {owners}",
    )
    # Negative control: the same session id presented to the other replica is unknown there.
    foreign = "r2." if owners[0] == "r1" else "r1."
    http = httpx2.AsyncClient(timeout=10.0)
    try:
        response = await http.post(
            lb,
            headers={
                "mcp-session-id": foreign + "0" * 32,
                "content-type": "application/json",
                "accept": "application/json, text/event-stream",
                "mcp-protocol-version": "2025-11-25",
            },
            content=json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}),
        )
    finally:
        await http.aclose()
    report.check(
        response.status_code == 404,
        "a session unknown to the replica it is routed to is refused",
        f"HTTP {response.status_code} from {response.headers.get('x-replica')}",
    )


async def applied_count(direct: dict[str, str], ref: str) -> int:
    """How many times the replicas r1 and r2 together applied the transfer `ref`."""
    total = 0
    for name in ("r1", "r2"):
        async with modern_client(direct[name]) as client:
            with anyio.fail_after(CALL_TIMEOUT):
                total += int(result_json(await client.call_tool("applied", {"ref": ref}))["count"])
    return total


async def check_shared_store(lb: str, direct: dict[str, str], report: Report) -> None:
    """Checks 7-8: with one shared store, a resent final round and a token each apply once."""
    ref = f"resend-{time.monotonic_ns()}"
    recorder = Recorder()
    async with modern_client(lb, recorder) as client:
        with anyio.fail_after(CALL_TIMEOUT):
            asked = await client.session.call_tool("transfer", {"ref": ref}, allow_input_required=True)
    assert isinstance(asked, types.InputRequiredResult), asked
    answer: types.InputResponses = {"q0": types.ElicitResult(action="accept", content={"confirm": True})}
    outcomes: list[str] = []
    for _ in range(20):
        async with modern_client(lb, recorder) as client:
            try:
                with anyio.fail_after(CALL_TIMEOUT):
                    done = await client.session.call_tool(
                        "transfer",
                        {"ref": ref},
                        input_responses=answer,
                        request_state=asked.request_state,
                        allow_input_required=True,
                    )
                outcomes.append(
                    str(result_json(done)["status"]) if isinstance(done, types.CallToolResult) else "?"
                )
            except Exception as exc:
                error = find_mcp_error(exc)
                if error is None:
                    raise
                outcomes.append("refused" if error.code == types.INVALID_PARAMS else f"error {error.code}")
    served = {h.replica for h in recorder.hops if h.method == "tools/call"}
    count = await applied_count(direct, ref)
    report.check(
        outcomes.count("applied") == 1
        and outcomes.count("refused") == 19
        and count == 1
        and served == {"r1", "r2"},
        "shared store: a final round resent 20 times across both replicas is applied once",
        f"{outcomes.count('applied')} applied, {outcomes.count('refused')} refused, applied {count} time(s), "
        f"served by {sorted(map(str, served))}",
    )

    ref = f"token-{time.monotonic_ns()}"
    bare = Client(streamable_http_client(direct["r1"]), mode="legacy")  # no elicitation: the fallback
    async with bare:
        with anyio.fail_after(CALL_TIMEOUT):
            relayed = await bare.call_tool("relayed_transfer", {"ref": ref})
    assert relayed.meta is not None, relayed
    token = relayed.meta["io.github.typed-elicit/fallback"]["token"]
    results: list[str] = []

    async def redeem(url: str) -> None:
        async with Client(streamable_http_client(url), mode="legacy") as client:
            with anyio.fail_after(CALL_TIMEOUT):
                done = await client.call_tool(
                    "send_elicitation_result",
                    {"token": token, "action": "accept", "content": {"confirm": True}},
                )
        text = "".join(c.text for c in done.content if isinstance(c, types.TextContent))
        results.append(
            "applied" if '"applied"' in text else ("used" if "already used" in text else text[:120])
        )

    async with anyio.create_task_group() as group:
        group.start_soon(redeem, direct["r1"])
        group.start_soon(redeem, direct["r2"])
    count = await applied_count(direct, ref)
    report.check(
        sorted(results) == ["applied", "used"] and count == 1,
        "shared store: a fallback token redeemed on both replicas at once is used once",
        f"outcomes {sorted(results)}, applied {count} time(s)",
    )


PAGES_ORIGIN = "http://pages.test"
"""The origin the replicas' pages are served under (PEERS_PAGES_URL in replicas.sh)."""


async def submit_page(url: str, replica: str, posted: list[float] | None = None) -> int:
    """Fill and submit the page at `url` on the replica whose MCP endpoint is `replica`, like a browser.

    `posted` gets the time the submit (the POST) started.
    """
    path = urlparse(url).path
    browser: Any = httpx2.AsyncClient(base_url=replica.removesuffix("/mcp"), timeout=10.0)
    async with browser as http:
        page = await http.get(path)
        token = re.search(r'name="_csrf" value="([0-9a-f]+)"', str(page.text))
        if page.status_code != 200 or token is None:
            return int(page.status_code)
        data = {"username": "ada", "password": "pw-not-echoed", "_csrf": token.group(1), "_action": "accept"}
        if posted is not None:
            posted.append(time.monotonic())
        done = await http.post(path, data=data, headers={"Origin": PAGES_ORIGIN})
    return int(done.status_code)


async def until_waited_on(store_url: str) -> None:
    """Return once a replica waits on the shared store: its wake channel has a subscriber."""
    from redis import asyncio as redis_asyncio

    from typed_elicit.stores import RedisStore

    store = RedisStore.from_url(store_url)
    channel = store._wake  # pyright: ignore[reportPrivateUsage]
    redis: Any = redis_asyncio.Redis.from_url(store_url)  # pyright: ignore[reportUnknownMemberType]
    try:
        while not dict(await redis.pubsub_numsub(channel))[channel.encode()]:
            await anyio.sleep(0.01)  # (a condition polled: the question's wait subscribed)
    finally:
        await redis.aclose()
        await store.aclose()


async def check_pages_across_replicas(lb: str, direct: dict[str, str], store: str, report: Report) -> None:
    """Checks 9-10: a page answer submitted to one replica reaches a question on the other."""
    recorder = Recorder()
    submitted: list[tuple[str, int, float]] = []
    result: types.CallToolResult | None = None
    returned = 0.0
    async with anyio.create_task_group() as group:

        async def browser(url: str) -> None:
            await until_waited_on(store)  # the user reads the page; the question waits on its replica
            owner = next((h.session.split(".", 1)[0] for h in recorder.hops if h.session), "r1")
            other = "r2" if owner == "r1" else "r1"
            posted: list[float] = []
            status = await submit_page(url, direct[other], posted)
            submitted.append((other, status, posted[0] if posted else time.monotonic()))

        async def consent(context: Any, params: Any) -> types.ElicitResult:
            group.start_soon(browser, params.url)
            return types.ElicitResult(action="accept")

        client = Client(
            streamable_http_client(lb, http_client=recorder.client()),
            mode="legacy",
            elicitation_callback=consent,
        )
        async with client:
            with anyio.fail_after(CALL_TIMEOUT):
                result = await client.call_tool("link_bank", {})
            returned = time.monotonic()
    assert result is not None
    got = result_json(result) if not result.is_error else result.content
    owner = next((h.session.split(".", 1)[0] for h in recorder.hops if h.session), "?")
    other, status, at = submitted[0] if submitted else ("?", 0, returned)
    report.check(
        got == {"status": "linked", "user": "ada"}
        and status == 200
        and other != owner
        and returned - at < 1.0,
        "shared store: a page submitted to replica B completes a push-era question waiting on replica A",
        f"question on {owner}, page submitted to {other} (HTTP {status}), result {got} "
        f"{returned - at:.2f} s after the submit",
    )

    recorder = Recorder()
    async with modern_client(lb, recorder) as client:
        with anyio.fail_after(CALL_TIMEOUT):
            step = await client.session.call_tool("link_bank", {}, allow_input_required=True)
        assert isinstance(step, types.InputRequiredResult), step
        ((key, request),) = (step.input_requests or {}).items()
        assert isinstance(request, types.ElicitRequest)
        assert isinstance(request.params, types.ElicitRequestURLParams)
        status = await submit_page(request.params.url, direct["r2"])
        responses: types.InputResponses = {key: types.ElicitResult(action="accept")}
        rounds = 1
        while isinstance(step, types.InputRequiredResult) and rounds < 8:
            with anyio.fail_after(CALL_TIMEOUT):
                step = await client.session.call_tool(
                    "link_bank",
                    {},
                    input_responses=responses,
                    request_state=step.request_state,
                    allow_input_required=True,
                )
            rounds += 1
    served = [h.replica for h in recorder.hops if h.method == "tools/call"]
    got = result_json(step) if isinstance(step, types.CallToolResult) and not step.is_error else step
    report.check(
        got == {"status": "linked", "user": "ada"} and status == 200 and {"r1", "r2"} <= set(served),
        "shared store: a page submitted to one replica answers 2026-07-28 rounds on both",
        f"page submitted to r2 (HTTP {status}), {rounds} rounds served by {' -> '.join(map(str, served))}",
    )


async def run(lb: str, direct: dict[str, str], ttl: float, store: str) -> int:
    """Run every check; 0 if all passed."""
    report = Report()
    started = time.monotonic()
    with anyio.fail_after(RUN_TIMEOUT):
        await check_modern_wizard(lb, report)
        await check_push_sessions(lb, report)
        await check_shared_store(lb, direct, report)
        await check_pages_across_replicas(lb, direct, store, report)
        await check_state_attacks(lb, direct, ttl, report)
    total = report.passed + len(report.failed)
    elapsed = time.monotonic() - started
    if report.failed:
        print(f"REPLICAS: {len(report.failed)} of {total} checks FAILED: {', '.join(report.failed)}")
        return 1
    print(f"REPLICAS: all {total} checks passed in {elapsed:.1f}s")
    return 0


def main() -> int:
    """Parse the command line and run the checks."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--lb", required=True, help="nginx URL")
    parser.add_argument("--direct", action="append", default=[], help="NAME=URL of a server without nginx")
    parser.add_argument("--ttl", type=float, required=True, help="request-state TTL of the servers (s)")
    parser.add_argument("--store", required=True, help="the Redis URL the replicas share")
    args = parser.parse_args()
    direct: dict[str, str] = dict(str(item).split("=", 1) for item in args.direct)
    urls: list[str] = [str(args.lb), *direct.values()]
    for url in urls:
        if urlparse(url).hostname != "127.0.0.1":
            parser.error(f"loopback only: {url}")
    missing = {"r1", "r2", "rotating", "retired"} - direct.keys()
    if missing:
        parser.error(f"missing --direct {', '.join(sorted(missing))}")
    return anyio.run(run, args.lb, direct, args.ttl, args.store)


if __name__ == "__main__":
    sys.exit(main())
