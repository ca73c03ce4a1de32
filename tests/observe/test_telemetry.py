"""OpenTelemetry: one span per question, its events and metrics, and one trace per call, on every era."""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult, TextContent
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan
from pydantic import BaseModel

from tests import otel_kit
from tests.conftest import BOUND, ERAS, PUSH_ERAS, Connect
from typed_elicit import ElicitContext, elicits, install_fallback
from typed_elicit._observe import telemetry as telemetry
from typed_elicit.hooks import AnswerEvent, ElicitHook
from typed_elicit.testing import ScriptedUser, accept, decline, send_raw

pytestmark = pytest.mark.anyio

CANARY = "CANARY-b7e1-what-the-user-typed"


class Name(BaseModel):
    """Your name."""

    name: str


class Team(BaseModel):
    """Your team."""

    team: str


class Motto(BaseModel):
    """Your motto."""

    motto: str


class Age(BaseModel):
    """Your age."""

    age: int


@pytest.fixture
def otel() -> Iterator[otel_kit.Recorded]:
    yield from otel_kit.installed()


def wizard_server(**options: Any) -> MCPServer:
    server = MCPServer("wizard")

    @server.tool()
    @elicits(**options)
    async def wizard(ctx: ElicitContext) -> str:
        name = await ctx.elicit(Name)
        team = await ctx.elicit(Team)
        motto = await ctx.elicit(Motto)
        return f"{name} {team} {motto}"

    @server.tool()
    @elicits(**options)
    async def age(ctx: ElicitContext) -> str:
        return repr(await ctx.elicit(Age))

    return server


async def call(client: Any, tool: str) -> CallToolResult:
    with anyio.fail_after(BOUND):
        result: CallToolResult = await client.call_tool(tool, {})
    return result


def text(result: CallToolResult) -> str:
    assert isinstance(result.content[0], TextContent)
    return result.content[0].text


def attrs(span: ReadableSpan) -> dict[str, Any]:
    return dict(span.attributes or {})


def answered(spans: list[ReadableSpan]) -> list[ReadableSpan]:
    return [s for s in spans if attrs(s)["typed_elicit.outcome"] != "input_required"]


async def test_a_three_step_wizard_is_one_trace_with_one_answered_span_per_question(
    era: str, connect: Connect, otel: otel_kit.Recorded
) -> None:
    server = wizard_server()
    person = ScriptedUser(accept(name="Ada"), accept(team="Core"), accept(motto="Ship"))
    async with connect(server, era, person) as client:
        result = await call(client, "wizard")
    assert not result.is_error, text(result)
    questions = otel.questions()
    done = answered(questions)
    assert [s.name for s in done] == ["elicit Name", "elicit Team", "elicit Motto"]
    for span in done:
        a = attrs(span)
        assert a["typed_elicit.outcome"] == "accept"
        assert a["typed_elicit.mode"] == "form"
        assert a["mcp.protocol.version"] == era
        assert a["mcp.method.name"] == "elicitation/create"
        assert a["typed_elicit.attempt"] == 0
        assert a["typed_elicit.wait"] >= 0
        assert span.kind == trace.SpanKind.INTERNAL
    assert len({s.context.trace_id for s in questions if s.context}) == 1, otel_kit.tree(otel.spans())
    calls = [s for s in otel.spans() if s.name == "tools/call wizard"]
    if era in PUSH_ERAS:
        assert len(questions) == 3
        assert {s.parent.span_id for s in questions if s.parent} == {calls[0].context.span_id}  # type: ignore[union-attr]
        sends = [s for s in otel.spans() if s.name == "MCP send elicitation/create"]
        assert sorted(s.parent.span_id for s in sends if s.parent) == sorted(
            s.context.span_id for s in questions if s.context
        )
        assert "typed_elicit.round" not in attrs(questions[0])
    else:
        # Rounds 1-3 end asking one question each; rounds 2-4 take one answer each.
        assert [attrs(s)["typed_elicit.outcome"] for s in questions] == [
            "input_required",
            "accept",
            "input_required",
            "accept",
            "input_required",
            "accept",
        ]
        assert [attrs(s)["typed_elicit.round"] for s in questions] == [1, 2, 2, 3, 3, 4]
        assert len(calls) == 4
        resumes = [s for s in otel.spans() if s.name == "resume wizard"]
        first = calls[0]
        assert first.context is not None
        # The client wrapped each round in a trace of its own: rounds 2-4 join the first round's.
        assert len(resumes) == 3
        for resume in resumes:
            assert resume.parent is not None
            assert resume.parent.span_id == first.context.span_id
            assert len(resume.links) == 1
        assert all(s.context and s.context.trace_id == first.context.trace_id for s in questions)


async def test_a_client_that_keeps_one_trace_gets_no_resume_spans(
    connect: Connect, otel: otel_kit.Recorded
) -> None:
    server = wizard_server()
    person = ScriptedUser(accept(name="Ada"), accept(team="Core"), accept(motto="Ship"))
    tracer = trace.get_tracer("the-client")
    async with connect(server, "2026-07-28", person) as client:
        with tracer.start_as_current_span("user clicks run") as outer:
            result = await call(client, "wizard")
    assert not result.is_error
    assert [s for s in otel.spans() if s.name.startswith("resume ")] == []
    of_the_call = [s for s in otel.spans() if s.name.startswith(("tools/call", "elicit "))]
    assert len(of_the_call) == 4 + 6
    assert {s.context.trace_id for s in of_the_call if s.context} == {outer.get_span_context().trace_id}


async def test_a_decline_is_recorded_as_decline_and_counted(
    era: str, connect: Connect, otel: otel_kit.Recorded
) -> None:
    async with connect(wizard_server(), era, ScriptedUser(decline())) as client:
        await call(client, "age")
    [span] = answered(otel.questions())
    assert attrs(span)["typed_elicit.outcome"] == "decline"
    counts = {
        (p.attributes["typed_elicit.model"], p.attributes["typed_elicit.outcome"]): p.value
        for p in otel.points("typed_elicit.questions")
    }
    expected = {("Age", "decline"): 1} | ({} if era in PUSH_ERAS else {("Age", "input_required"): 1})
    assert counts == expected
    [wait] = [
        p
        for p in otel.points("typed_elicit.question.wait")
        if p.attributes["typed_elicit.outcome"] == "decline"
    ]
    assert wait.count == 1


async def test_a_reask_is_an_event_and_the_last_attempt_is_recorded(
    era: str, connect: Connect, otel: otel_kit.Recorded
) -> None:
    person = ScriptedUser(send_raw({"age": "not a number"}), send_raw({"age": 36}))
    async with connect(wizard_server(retries=1), era, person) as client:
        result = await call(client, "age")
    assert "36" in text(result)
    spans = otel.questions()
    reasks = [e for s in spans for e in s.events if e.name == "typed_elicit.reask"]
    assert len(reasks) == 1
    assert dict(reasks[0].attributes or {}) == {"typed_elicit.attempt": 1, "typed_elicit.problems": 1}
    final = answered(spans)[-1]
    assert attrs(final)["typed_elicit.outcome"] == "accept"
    assert attrs(final)["typed_elicit.attempt"] == (1 if era in PUSH_ERAS else 0)


@pytest.mark.parametrize("era", PUSH_ERAS)
async def test_a_timeout_is_an_outcome_and_an_event(
    era: str, connect: Connect, otel: otel_kit.Recorded
) -> None:
    async def never(params: Any) -> Any:
        await anyio.sleep_forever()

    async with connect(wizard_server(timeout=0.05), era, ScriptedUser(never)) as client:
        result = await call(client, "age")
    assert result.is_error
    [span] = otel.questions()
    assert attrs(span)["typed_elicit.outcome"] == "timeout"
    [event] = [e for e in span.events if e.name == "typed_elicit.timeout"]
    assert dict(event.attributes or {}) == {"typed_elicit.scope": "question", "typed_elicit.timeout": 0.05}
    assert attrs(span)["typed_elicit.wait"] >= 0.05


async def test_a_late_answer_on_2026_07_28_times_out(
    connect: Connect, otel: otel_kit.Recorded, monkeypatch: pytest.MonkeyPatch
) -> None:
    import typed_elicit._core.clock as clock_module

    real = clock_module.now

    async def late(params: Any) -> Any:
        monkeypatch.setattr(clock_module, "now", lambda: real() + 120)
        return accept(age=3)

    async with connect(wizard_server(timeout=60), "2026-07-28", ScriptedUser(late)) as client:
        result = await call(client, "age")
    assert result.is_error
    spans = otel.questions()
    assert [attrs(s)["typed_elicit.outcome"] for s in spans] == ["input_required", "timeout"]
    [event] = [e for e in spans[1].events if e.name == "typed_elicit.timeout"]
    assert dict(event.attributes or {})["typed_elicit.answered_late"] is True


@pytest.mark.parametrize("era", ERAS)
async def test_a_fallback_question_is_recorded_as_fallback_then_answered(
    era: str, connect: Connect, otel: otel_kit.Recorded
) -> None:
    server = wizard_server(on_unsupported="fallback")
    install_fallback(server)
    async with connect(server, era) as client:  # no elicitation capability
        first = await call(client, "age")
        assert first.is_error
        assert first.meta is not None
        token = next(iter(first.meta.values()))["token"]
        with anyio.fail_after(BOUND):
            second = await client.call_tool(
                "send_elicitation_result", {"token": token, "action": "accept", "content": {"age": 7}}
            )
    assert "7" in text(second)
    spans = otel.questions()
    assert [attrs(s)["typed_elicit.outcome"] for s in spans] == ["fallback", "accept"]
    assert [e.name for e in spans[0].events] == ["typed_elicit.fallback"]
    assert attrs(spans[1])["typed_elicit.round"] == 2


async def test_no_answer_value_reaches_any_span_attribute_event_or_metric(
    era: str, connect: Connect, otel: otel_kit.Recorded
) -> None:
    person = ScriptedUser(
        send_raw({"name": CANARY}),
        send_raw({"team": CANARY + "-team"}),
        send_raw({"motto": CANARY + "-motto"}),
        decline(),
    )
    server = wizard_server(retries=1)
    async with connect(server, era, person) as client:
        await call(client, "wizard")
        await call(client, "age")
    async with connect(
        wizard_server(retries=1), era, ScriptedUser(send_raw({"age": CANARY}), send_raw({"age": 1}))
    ) as client:
        await call(client, "age")
    seen: list[str] = []
    for span in otel.spans():
        seen.append(span.name)
        seen.extend(f"{k}={v}" for k, v in (span.attributes or {}).items())
        seen.append(str(span.status.description))
        for event in span.events:
            seen.append(event.name)
            seen.extend(f"{k}={v}" for k, v in (event.attributes or {}).items())
        for link in span.links:
            seen.extend(f"{k}={v}" for k, v in (link.attributes or {}).items())
    for name in ("typed_elicit.questions", "typed_elicit.question.wait"):
        for point in otel.points(name):
            seen.extend(f"{k}={v}" for k, v in point.attributes.items())
    assert len(otel.questions()) >= 5
    leaked = [item for item in seen if CANARY in item]
    assert leaked == []


async def test_with_no_provider_set_nothing_is_recorded_and_the_state_carries_no_trace(
    connect: Connect,
) -> None:
    assert not telemetry.enabled()
    assert telemetry.question("Age", "form", "2026-07-28", "f") is telemetry.question(
        "Name", "url", None, "g"
    )
    assert telemetry.traceparent_now() is None
    telemetry.OFF.reask(1, 2)
    telemetry.OFF.waited_more(3.0)
    assert (telemetry.OFF.attempt, telemetry.OFF.waited, telemetry.OFF.outcome) == (0, None, None)
    async with connect(wizard_server(), "2026-07-28", ScriptedUser(accept(age=1))) as client:
        result = await call(client, "age")
    assert "1" in text(result)


@pytest.mark.slow
def test_the_traced_wizard_example_prints_one_tree_per_era() -> None:
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    run = subprocess.run(
        [sys.executable, str(root / "examples" / "traced_wizard.py")],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        cwd=root,
    )
    push = [
        "  tools/call onboard",
        "    elicit Name [accept]",
        "      MCP send elicitation/create",
        "    elicit Team [accept]",
        "      MCP send elicitation/create",
        "    elicit Motto [accept]",
        "      MCP send elicitation/create",
    ]
    rounds = [
        "  tools/call onboard",
        "    elicit Name [input_required]",
        "    resume onboard",
        "      elicit Name [accept]",
        "      elicit Team [input_required]",
        "    resume onboard",
        "      elicit Team [accept]",
        "      elicit Motto [input_required]",
        "    resume onboard",
        "      elicit Motto [accept]",
    ]
    expected = ["2025-06-18", *push, "2025-11-25", *push, "2026-07-28", *rounds]
    assert run.stdout.splitlines() == expected, run.stderr


async def test_an_error_is_recorded_by_class_name_only(
    era: str, connect: Connect, otel: otel_kit.Recorded
) -> None:
    class Quoting(ElicitHook):
        async def on_answer(self, event: AnswerEvent) -> None:
            raise ValueError(f"hook saw {dict(event.content or {})}")

    async with connect(wizard_server(hooks=[Quoting()]), era, ScriptedUser(accept(age=CANARY_AGE))) as client:
        result = await call(client, "age")
    assert result.is_error
    [span] = answered(otel.questions())
    assert attrs(span)["typed_elicit.outcome"] == "error"
    assert attrs(span)["error.type"] == "HookError"
    assert span.status.status_code == trace.StatusCode.ERROR
    assert span.status.description == "HookError"
    assert span.events == () or all(e.name.startswith("typed_elicit.") for e in span.events)
    everything = repr([(s.name, s.attributes, s.status.description, s.events) for s in otel.spans()])
    assert str(CANARY_AGE) not in everything
    [point] = [
        p for p in otel.points("typed_elicit.questions") if p.attributes["typed_elicit.outcome"] == "error"
    ]
    assert point.attributes["error.type"] == "HookError"


CANARY_AGE = 918273645


async def test_a_client_that_starts_a_trace_per_request_still_gets_one_trace_per_call(
    connect: Connect, otel: otel_kit.Recorded
) -> None:
    from mcp_types import ElicitResult, InputRequiredResult

    tracer = trace.get_tracer("the-client")
    answers = iter([{"name": "Ada"}, {"team": "Core"}, {"motto": "Ship"}])
    client_traces: list[int] = []
    responses: dict[str, Any] | None = None
    state: str | None = None
    # The user declares elicitation but is never asked: this client answers the rounds itself.
    async with connect(wizard_server(), "2026-07-28", ScriptedUser()) as client:
        for _ in range(4):
            with tracer.start_as_current_span(
                "one request", context=trace.set_span_in_context(trace.INVALID_SPAN)
            ) as span:
                client_traces.append(span.get_span_context().trace_id)
                carrier: dict[str, Any] = {}
                from opentelemetry.propagate import inject

                inject(carrier)
                with anyio.fail_after(BOUND):
                    result = await client.session.call_tool(
                        "wizard",
                        {},
                        input_responses=responses,
                        request_state=state,
                        meta=carrier,  # type: ignore[arg-type]
                        allow_input_required=True,
                    )
            if not isinstance(result, InputRequiredResult):
                break
            [key] = result.input_requests or {}
            responses = {key: ElicitResult(action="accept", content=next(answers))}
            state = result.request_state
    assert isinstance(result, CallToolResult)
    assert not result.is_error
    assert len(set(client_traces)) == 4
    calls = sorted(
        (s for s in otel.spans() if s.name == "tools/call wizard"), key=lambda s: s.start_time or 0
    )
    # The SDK honours each request's traceparent: four rounds, four client traces...
    assert [s.context.trace_id for s in calls if s.context] == client_traces
    # ...and every question span joins the first one, under a resume span per later round.
    questions = otel.questions()
    assert len(questions) == 6
    assert {s.context.trace_id for s in questions if s.context} == {client_traces[0]}
    resumes = [s for s in otel.spans() if s.name == "resume wizard"]
    assert len(resumes) == 3
    assert sorted(link.context.trace_id for r in resumes for link in r.links) == sorted(client_traces[1:])


def test_the_providers_are_read_through_the_apis_public_getters_after_the_quick_check() -> None:
    source = inspect.getsource(telemetry)
    assert "._TRACER_PROVIDER" not in source  # the quick check's private reads are `_core.foreign`'s
    assert "get_tracer_provider()" in source
    assert "get_meter_provider()" in source


def test_the_quick_provider_check_steps_aside_when_the_environment_names_a_provider(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert telemetry._load()[2] is not None
    monkeypatch.setenv("OTEL_PYTHON_METER_PROVIDER", "sdk_meter_provider")
    assert telemetry._load()[2] is None


async def test_without_the_quick_check_a_set_provider_is_still_seen(
    connect: Connect, otel: otel_kit.Recorded, monkeypatch: pytest.MonkeyPatch
) -> None:
    trace_api, metrics_api, _ = telemetry._load()
    monkeypatch.setattr(telemetry, "_api", (trace_api, metrics_api, None))
    async with connect(wizard_server(), "2025-11-25", ScriptedUser(accept(age=5))) as client:
        await call(client, "age")
    assert [s.name for s in otel.questions()] == ["elicit Age"]
