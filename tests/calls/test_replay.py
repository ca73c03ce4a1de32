"""2026-07-28 rounds keep their promises: timing survives refreshes, each round takes one answer."""

from __future__ import annotations

import gc
import json
import math
import tracemalloc
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest
from hypothesis import given
from hypothesis import strategies as st
from mcp import Client
from mcp.client.session import ClientSession
from mcp.server.mcpserver import MCPServer
from mcp.server.request_state import RequestStateSecurity
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, CallToolResult, ElicitResult, InputRequiredResult, TextContent
from pydantic import BaseModel, Field

import typed_elicit._calls.policy as policy_module
import typed_elicit._calls.questions as question_module
import typed_elicit._core.clock as clock_module
import typed_elicit._forms.reduce as reducer_module
import typed_elicit._forms.registry as registry_module
from tests.conftest import BOUND
from typed_elicit import Accepted, ElicitContext, elicits, install_fallback
from typed_elicit._core.foreign import request_state_security
from typed_elicit._wire.rules import json_size
from typed_elicit.errors import ElicitArgumentError
from typed_elicit.stores import InProcessStore, configure
from typed_elicit.testing import ScriptedUser, accept, send_raw

pytestmark = pytest.mark.anyio

ARGS: dict[str, Any] = {}


class Confirm(BaseModel):
    confirm: bool


class Code(BaseModel):
    code: str = Field(pattern=r"^[0-9]{6}$")


class Note(BaseModel):
    text: str = ""


class Clock:
    """Stands in for `_context._now`: time moves only when a test moves it."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    moved = Clock()
    monkeypatch.setattr(clock_module, "now", moved)
    monkeypatch.setattr(clock_module, "now", moved)  # the claim store shares the clock
    return moved


RAN: list[str] = []


def build(**policy: Any) -> MCPServer:
    """A server whose `ask` tool asks one question and records every run past it."""
    server = MCPServer("rounds")

    @server.tool()
    @elicits(**policy)
    async def ask(ctx: ElicitContext) -> str:
        match await ctx.elicit(Code, "Enter the code", timeout=120, retries=1):
            case Accepted(Code(code=code)):
                RAN.append(code)
                return f"code {code}"
            case other:
                RAN.append(type(other).__name__)
                return type(other).__name__

    @server.tool()
    @elicits(**policy)
    async def visit(ctx: ElicitContext) -> str:
        result = await ctx.elicit_url("https://example.com/consent", "Please consent", timeout=120)
        RAN.append(type(result).__name__)
        return type(result).__name__

    return server


@asynccontextmanager
async def raw(server: MCPServer) -> AsyncIterator[ClientSession]:
    """A 2026-07-28 session driven by hand, round by round, as an attacker would."""
    async with Client(server, mode="auto", elicitation_callback=ScriptedUser()) as client:
        assert client.protocol_version == "2026-07-28"
        yield client.session


async def round_(
    session: ClientSession,
    tool: str,
    state: str | None = None,
    answer: ElicitResult | None = None,
    key: str = "q0",
) -> CallToolResult | InputRequiredResult:
    with anyio.fail_after(BOUND):
        return await session.call_tool(
            tool,
            ARGS,
            input_responses=None if answer is None else {key: answer},
            request_state=state,
            allow_input_required=True,
        )


def asked(result: CallToolResult | InputRequiredResult) -> str:
    assert isinstance(result, InputRequiredResult), result
    assert result.request_state is not None
    return result.request_state


def text(result: CallToolResult | InputRequiredResult) -> str:
    assert isinstance(result, CallToolResult), result
    assert isinstance(result.content[0], TextContent)
    return result.content[0].text


async def refused(session: ClientSession, tool: str, state: str, answer: ElicitResult) -> MCPError:
    with pytest.raises(MCPError) as error:
        await round_(session, tool, state, answer)
    return error.value


async def test_a_resent_round_is_refused_with_a_clear_invalid_params_error():
    RAN.clear()
    async with raw(build()) as session:
        state = asked(await round_(session, "ask"))
        assert (
            text(
                await round_(session, "ask", state, ElicitResult(action="accept", content={"code": "123456"}))
            )
            == "code 123456"
        )
        error = await refused(
            session, "ask", state, ElicitResult(action="accept", content={"code": "654321"})
        )
    assert error.error.code == INVALID_PARAMS
    assert error.error.data == {"reason": "round_already_answered"}
    assert "this round of build.<locals>.ask was already answered" in error.error.message
    assert "call the tool again without requestState" in error.error.message
    assert RAN == ["123456"]


@pytest.mark.parametrize(
    "first",
    [
        ElicitResult(action="decline"),
        ElicitResult(action="cancel"),
        ElicitResult(action="accept", content={"code": "bad"}),
    ],
    ids=["decline", "cancel", "invalid"],
)
async def test_a_round_answered_with_decline_cancel_or_an_invalid_answer_takes_no_second_answer(first):
    RAN.clear()
    async with raw(build()) as session:
        state = asked(await round_(session, "ask"))
        await round_(session, "ask", state, first)
        await refused(session, "ask", state, ElicitResult(action="accept", content={"code": "123456"}))
    assert "123456" not in RAN


async def test_a_refreshed_round_keeps_its_id_so_the_old_and_new_state_take_one_answer_between_them():
    RAN.clear()
    async with raw(build()) as session:
        state = asked(await round_(session, "ask"))
        fresh = asked(await round_(session, "ask", state))
        assert fresh != state
        assert (
            text(
                await round_(session, "ask", fresh, ElicitResult(action="accept", content={"code": "111111"}))
            )
            == "code 111111"
        )
        await refused(session, "ask", state, ElicitResult(action="accept", content={"code": "222222"}))
        await refused(session, "ask", fresh, ElicitResult(action="accept", content={"code": "333333"}))
    assert RAN == ["111111"]


async def test_a_refresh_keeps_the_attempt_so_retries_stay_bounded():
    RAN.clear()
    async with raw(build()) as session:
        state = asked(await round_(session, "ask"))
        again = asked(
            await round_(session, "ask", state, ElicitResult(action="accept", content={"code": "bad"}))
        )  # attempt 1 of retries=1
        refreshed = asked(await round_(session, "ask", again))
        out = await round_(
            session, "ask", refreshed, ElicitResult(action="accept", content={"code": "still bad"})
        )
    assert "InvalidResponse" in text(out)
    assert "asked 2 times (retries=1)" in text(out)


async def test_a_question_refreshed_past_its_timeout_ends_with_elicitation_timeout(clock):
    RAN.clear()
    async with raw(build()) as session:
        state = asked(await round_(session, "ask"))
        for _ in range(3):  # each refresh inside the 120 s leaves the question where it was
            clock.now += 50
            if clock.now - 1_000_000.0 > 120:
                break
            state = asked(await round_(session, "ask", state))
        clock.now = 1_000_000.0 + 121
        late_refresh = await round_(session, "ask", state)
        late_answer = await round_(
            session, "ask", state, ElicitResult(action="accept", content={"code": "123456"})
        )
    assert "ElicitationTimeout: no answer to Code within 120 s: it was asked 121 s ago" in text(late_refresh)
    assert "ElicitationTimeout: the answer to Code arrived 121 s after it was asked" in text(late_answer)
    assert RAN == []


async def test_a_call_older_than_its_call_timeout_ends_with_elicitation_timeout(clock):
    RAN.clear()
    async with raw(build(call_timeout=100)) as session:
        state = asked(await round_(session, "ask"))
        clock.now += 101
        late_refresh = await round_(session, "ask", state)
        late_answer = await round_(
            session, "ask", state, ElicitResult(action="accept", content={"code": "123456"})
        )
    for out in (late_refresh, late_answer):
        assert "this call of build.<locals>.ask started 101 s ago, longer than its 100 s" in text(out)
    assert RAN == []


async def test_the_call_timeout_counts_from_the_first_round_across_re_asks(clock):
    RAN.clear()
    async with raw(build(call_timeout=100)) as session:
        state = asked(await round_(session, "ask"))
        clock.now += 60
        again = asked(
            await round_(session, "ask", state, ElicitResult(action="accept", content={"code": "bad"}))
        )
        clock.now += 60  # the re-ask is 60 s old, the call 120 s
        out = await round_(session, "ask", again, ElicitResult(action="accept", content={"code": "123456"}))
    assert "started 120 s ago, longer than its 100 s limit" in text(out)
    assert RAN == []


async def test_a_url_mode_round_takes_one_answer():
    RAN.clear()
    async with raw(build()) as session:
        state = asked(await round_(session, "visit"))
        assert text(await round_(session, "visit", state, ElicitResult(action="accept"))) == "Consented"
        await refused(session, "visit", state, ElicitResult(action="decline"))
    assert RAN == ["Consented"]


async def test_a_url_mode_question_refreshed_past_its_timeout_ends_with_elicitation_timeout(clock):
    async with raw(build()) as session:
        state = asked(await round_(session, "visit"))
        clock.now += 121
        out = await round_(session, "visit", state)
    assert "ElicitationTimeout: no answer to the URL-mode question within 120 s" in text(out)


async def test_without_single_use_rounds_a_resent_final_round_runs_the_code_after_it_again():
    RAN.clear()
    async with raw(build(single_use_rounds=False)) as session:
        state = asked(await round_(session, "ask"))
        for _ in range(2):
            assert (
                text(
                    await round_(
                        session, "ask", state, ElicitResult(action="accept", content={"code": "123456"})
                    )
                )
                == "code 123456"
            )
    assert RAN == ["123456", "123456"]


async def test_a_refresh_by_a_client_without_the_capability_spends_the_round_it_answers_by_policy():
    RAN.clear()
    server = build(on_unsupported="decline")
    async with raw(server) as session:
        state = asked(await round_(session, "ask"))
    async with Client(server, mode="auto") as bare:  # no elicitation capability: the policy declines
        with anyio.fail_after(BOUND):
            declined = await bare.session.call_tool(
                "ask", ARGS, request_state=state, allow_input_required=True
            )
    assert text(declined) == "Declined"
    async with raw(server) as session:
        await refused(session, "ask", state, ElicitResult(action="accept", content={"code": "123456"}))
    assert RAN == ["Declined"]


async def test_concurrent_answers_to_one_round_run_the_tool_once():
    RAN.clear()
    outcomes: list[str] = []
    async with raw(build()) as session:
        state = asked(await round_(session, "ask"))

        async def answer(code: str) -> None:
            try:
                outcomes.append(
                    text(
                        await round_(
                            session, "ask", state, ElicitResult(action="accept", content={"code": code})
                        )
                    )
                )
            except MCPError as error:
                outcomes.append(f"refused {error.error.code}")

        async with anyio.create_task_group() as group:
            for code in ("111111", "222222", "333333"):
                group.start_soon(answer, code)
    assert sorted(o.startswith("code") for o in outcomes) == [False, False, True]
    assert outcomes.count(f"refused {INVALID_PARAMS}") == 2
    assert len(RAN) == 1


class Recording(InProcessStore):
    def __init__(self) -> None:
        super().__init__()
        self.keys: list[tuple[str, float]] = []

    async def claim(self, key: str, expires_at: float, /) -> bool:
        self.keys.append((key, expires_at))
        return await super().claim(key, expires_at)


async def test_configure_gives_the_server_its_store_for_rounds_and_fallback_tokens(clock):
    store = Recording()
    server = build(on_unsupported="fallback")
    configure(server, store=store)
    install_fallback(server)
    async with raw(server) as session:
        state = asked(await round_(session, "ask"))
        await round_(session, "ask", state, ElicitResult(action="accept", content={"code": "123456"}))
    (key, expires_at), *_ = store.keys
    assert key.startswith("round:")
    assert len(key) > len("round:") + 20
    assert expires_at == 1_000_000.0 + 120 + 60  # the question's last moment, plus a margin
    async with Client(server, mode="auto") as bare:  # cannot elicit: the question goes through the model
        with anyio.fail_after(BOUND):
            handed = await bare.call_tool("ask", {})
            token = (handed.meta or {})["io.github.typed-elicit/fallback"]["token"]
            done = await bare.call_tool(
                "send_elicitation_result", {"token": token, "action": "accept", "content": {"code": "654321"}}
            )
    assert text(done) == "code 654321"
    assert [k.split(":")[0] for k, _ in store.keys] == ["round", "token", "round"]


async def test_configure_refuses_a_second_call_and_a_call_after_serving():
    server = MCPServer("once")
    configure(server)
    with pytest.raises(ValueError, match="was already called on this server"):
        configure(server)
    served = build()
    async with raw(served) as session:
        state = asked(await round_(session, "ask"))
        await round_(session, "ask", state, ElicitResult(action="accept", content={"code": "123456"}))
    with pytest.raises(ValueError, match="came after this server had started using its default store"):
        configure(served)


async def test_a_fallback_resume_ends_with_elicitation_timeout_once_the_call_is_too_old(clock):
    server = build(on_unsupported="fallback", call_timeout=100)
    install_fallback(server)
    async with Client(server, mode="auto") as bare:
        with anyio.fail_after(BOUND):
            handed = await bare.call_tool("ask", {})
            token = (handed.meta or {})["io.github.typed-elicit/fallback"]["token"]
            clock.now += 101
            late = await bare.call_tool(
                "send_elicitation_result", {"token": token, "action": "accept", "content": {"code": "654321"}}
            )
    assert "ElicitationTimeout: this call of build.<locals>.ask started 101 s ago" in text(late)


def short_lived(ttl: float) -> MCPServer:
    server = MCPServer("short", request_state_security=RequestStateSecurity.ephemeral(ttl=ttl))

    @server.tool()
    @elicits
    async def ask(ctx: ElicitContext) -> str:
        match await ctx.elicit(Code, "Enter the code", timeout=120):
            case Accepted(Code(code=code)):
                return code
            case _:
                return "no"

    @server.tool()
    @elicits
    async def forever(ctx: ElicitContext) -> str:
        await ctx.elicit(Code, "Enter the code", timeout=math.inf)
        return "done"

    return server


async def test_a_timeout_longer_than_the_state_ttl_fails_before_asking():
    async with raw(short_lived(60)) as session:
        out = await round_(session, "ask")
        waiting = await round_(session, "forever")
    assert isinstance(out, CallToolResult)
    assert out.is_error
    assert isinstance(out.content[0], TextContent)
    text = out.content[0].text  # an argument mistake: the client reads it (issue 18, item 13)
    assert "ElicitArgumentError: ctx.elicit in short_lived.<locals>.ask has a 120 s timeout" in text
    assert "longer than the 60 s this server's 2026-07-28 request state lives" in text
    assert "RequestStateSecurity.ephemeral(ttl=...)" in text
    assert isinstance(waiting, InputRequiredResult)  # math.inf waits as long as the state lives


async def test_a_timeout_within_the_state_ttl_asks():
    async with raw(short_lived(120)) as session:
        assert isinstance(await round_(session, "ask"), InputRequiredResult)


def test_a_decorator_timeout_over_the_default_state_ttl_warns_naming_the_fix():
    with pytest.warns(UserWarning, match=r"timeout=900 s exceeds the 600 s .*ephemeral\(ttl=\.\.\.\)"):

        @elicits(timeout=900)
        async def slow(ctx: ElicitContext) -> None: ...


@pytest.mark.parametrize("timeout", [600, math.inf, 1])
def test_a_decorator_timeout_within_the_default_state_ttl_or_infinite_does_not_warn(timeout, recwarn):
    @elicits(timeout=timeout)
    async def fine(ctx: ElicitContext) -> None: ...

    assert [w for w in recwarn if issubclass(w.category, UserWarning)] == []


@pytest.mark.parametrize("bad", [0, -1, math.inf, math.nan, True, "60"])
def test_call_timeout_must_be_positive_and_finite(bad):
    with pytest.raises(
        ElicitArgumentError, match="call_timeout must be a positive, finite number of seconds"
    ):
        elicits(call_timeout=bad)


@pytest.mark.parametrize("bad", [0, -5, True, 1.5])
def test_max_answer_bytes_must_be_a_positive_int(bad):
    with pytest.raises(ElicitArgumentError, match="max_answer_bytes must be a positive int"):
        elicits(max_answer_bytes=bad)


def sized(**policy: Any) -> MCPServer:
    server = MCPServer("sized")

    @server.tool()
    @elicits(**policy)
    async def note(ctx: ElicitContext) -> str:
        match await ctx.elicit(Note, "Leave a note"):
            case Accepted(Note(text=written)):
                return f"{len(written)} characters"
            case _:
                return "no note"

    return server


async def test_an_answer_over_the_size_limit_is_refused_at_arrival_on_every_era(connect, era):
    big = "x" * 70_000
    async with connect(sized(), era, ScriptedUser(accept(text=big))) as client:
        with anyio.fail_after(BOUND):
            out = await client.call_tool("note", {})
    assert out.is_error
    shown = text(out)
    assert "InvalidResponse" in shown
    assert "the answer is larger than the limit of 65536 bytes" in shown
    assert "max_answer_bytes" in shown
    assert "xxxx" not in shown


async def test_an_answer_over_the_size_limit_is_asked_again_while_retries_allow(connect, era):
    scripted = ScriptedUser(accept(text="y" * 2_000), accept(text="short"))
    async with connect(sized(max_answer_bytes=1_000, retries=1), era, scripted) as client:
        with anyio.fail_after(BOUND):
            out = await client.call_tool("note", {})
    assert text(out) == "5 characters"
    assert "the answer is larger than the limit of 1000 bytes" in scripted.questions[1].message


async def test_an_answer_within_a_raised_limit_is_accepted(connect, era):
    async with connect(
        sized(max_answer_bytes=200_000), era, ScriptedUser(accept(text="z" * 70_000))
    ) as client:
        with anyio.fail_after(BOUND):
            out = await client.call_tool("note", {})
    assert text(out) == "70000 characters"


def test_the_answer_size_counts_json_bytes_without_serialising_huge_values():
    size = json_size
    assert size({"a": "é"}, 100) == len('{"a":"\\u00e9"}')
    assert size({"a": ["x", "yz"], "b": None, "c": True, "e": False, "d": 1.5}, 100) == len(
        '{"a":["x","yz"],"b":null,"c":true,"e":false,"d":1.5}'
    )
    assert size({}, 10) == 2
    assert size({"n": 10**5000}, 65536) >= 5001  # more digits than int() may print
    assert size({"s": "q" * 10**6}, 65536) > 65536
    assert size({"l": ["q" * 100] * 1000}, 500) > 500


class Count(BaseModel):
    n: int


def reasker() -> MCPServer:
    server = MCPServer("reask")

    @server.tool()
    @elicits(retries=60)
    async def count(ctx: ElicitContext) -> str:
        match await ctx.elicit(Count, "How many?"):
            case Accepted(Count(n=value)):
                return str(value)
            case _:
                return "no"

    return server


HOSTILE = 60
HOSTILE_BYTES = 40_000


async def test_hostile_re_asks_leave_nothing_of_the_answers_in_memory(connect, push_era):
    """Distinct invalid answers, each under the size limit and quoted in its re-ask, one after another."""
    answers = [send_raw({"n": f"{i}" + "!" * HOSTILE_BYTES}) for i in range(HOSTILE)] + [send_raw({"n": 7})]
    server = reasker()
    # Warm the caches, the re-ask path included (its first run builds what later runs reuse).
    async with connect(
        server, push_era, ScriptedUser(send_raw({"n": "x" + "!" * 10}), send_raw({"n": 1}))
    ) as client:
        with anyio.fail_after(BOUND):
            await client.call_tool("count", {})
    gc.collect()  # model classes of earlier tests leave the weak cache now, not during the run
    records = len(registry_module._REGISTRY)  # pyright: ignore[reportPrivateUsage]
    tracemalloc.start()
    try:
        before = tracemalloc.take_snapshot()
        scripted = ScriptedUser(*answers)
        async with connect(server, push_era, scripted) as client:
            with anyio.fail_after(BOUND * 3):
                out = await client.call_tool("count", {})
        assert len(scripted.questions) == HOSTILE + 1
        del client, scripted, answers  # the test's own client keeps what it was asked
        gc.collect()
        after = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    assert text(out) == "7"
    retained = sum(stat.size_diff for stat in after.compare_to(before, "filename"))
    ours = sum(
        stat.size_diff
        for stat in after.compare_to(before, "filename")
        if "typed_elicit" in str(stat.traceback)
    )
    assert len(registry_module._REGISTRY) <= records  # pyright: ignore[reportPrivateUsage]
    assert ours < 20_000, ours
    assert retained < HOSTILE * HOSTILE_BYTES // 10, retained  # far below what the answers weighed


async def test_a_url_mode_refresh_answered_by_policy_spends_its_round():
    RAN.clear()
    server = build(on_unsupported="decline")
    async with raw(server) as session:
        state = asked(await round_(session, "visit"))
    async with Client(server, mode="auto") as bare:  # no elicitation capability: the policy declines
        with anyio.fail_after(BOUND):
            declined = await bare.session.call_tool(
                "visit", ARGS, request_state=state, allow_input_required=True
            )
    assert text(declined) == "Declined"
    async with raw(server) as session:
        await refused(session, "visit", state, ElicitResult(action="accept"))
    assert RAN == ["Declined"]


def test_a_server_without_a_request_state_boundary_has_no_state_ttl():
    server = short_lived(60)
    security = request_state_security(server)
    assert security is not None
    assert security.ttl == 60
    server.middleware[:] = [m for m in server.middleware if type(m).__name__ != "RequestStateBoundary"]
    assert request_state_security(server) is None


def test_the_reducer_record_builds_params_per_message_and_keeps_no_message():
    class Note(BaseModel):
        text: str

    record = reducer_module.reduced(Note, "2026-07-28")
    for i in range(50):
        params = record.params(f"message {i} " + "!" * 1000)
        assert params.message.startswith(f"message {i} ")
        assert params.requested_schema == record.schema
    kept = repr(vars(record)) if hasattr(record, "__dict__") else repr(record)
    assert "message" not in kept
    assert "!!!!" not in kept


def test_a_process_wide_default_timeout_over_the_default_state_ttl_warns(monkeypatch):
    monkeypatch.setattr(policy_module, "_default_timeout", policy_module.DEFAULT_TIMEOUT)
    with pytest.warns(UserWarning, match=r"set_default_timeout timeout=700 s exceeds the 600 s"):
        policy_module.set_default_timeout(700)
    assert policy_module.get_default_timeout() == 700


json_leaf = st.one_of(
    st.text(),
    st.booleans(),
    st.none(),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.lists(st.text(), max_size=5),
)


@given(st.dictionaries(st.text(), json_leaf, max_size=8))
def test_the_cheap_size_bound_never_undercounts_an_answer(content):
    bound = question_module._bound(content, 10**9)  # pyright: ignore[reportPrivateUsage]
    assert bound >= len(json.dumps(content, separators=(",", ":")))
    assert bound >= json_size(content, 10**9)
