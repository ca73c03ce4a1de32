"""Rolling deploys: a request state written by the previous release (layout 2) is resumed by this one.

`V2_STATES` are real states the previous release sealed (captured from git c1a45af's code
driving `journey` below, the plaintext inside the SDK's envelope). `encode_v2` is a frozen
copy of that release's encoder, written out field by field so that later changes to
`ReplayState` cannot change it: it must reproduce those states byte for byte, and it
plays the old replica in the end-to-end tests. A state of any other version starts the
call afresh, logged by its version only.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.session import ClientSession
from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult, ElicitResult, InputRequiredResult, TextContent
from pydantic import BaseModel, Field

from tests.conftest import BOUND
from typed_elicit import ElicitContext, elicits
from typed_elicit._calls.state import STATE_VERSION, ReplayState
from typed_elicit.testing import ScriptedUser

pytestmark = pytest.mark.anyio


class Name(BaseModel):
    name: str = Field(min_length=2)


class Color(BaseModel):
    color: str


class Size(BaseModel):
    size: int


V2_STATES: tuple[str, ...] = (
    (
        '{"v":2,"started":1795642290.4168832,"answers":[],"pending":{"question":{"key":"q0","model":"test'
        's.calls.test_state_compat.Name","digest":"KTqlL-0Jh9pe"},"asked_at":1795642290.4176693,"attempt"'
        ':0,"round":"P8JCM5aiC_6A5GSa4x3HPQ"},"others":[],"once":{"ticket":{"id":"T-1","n":7}},"rounds":1'
        ',"trace":null,"pages":{}}'
    ),
    (
        '{"v":2,"started":1795642290.4168832,"answers":[],"pending":{"question":{"key":"q0","model":"test'
        's.calls.test_state_compat.Name","digest":"KTqlL-0Jh9pe"},"asked_at":1795642290.4209945,"attempt"'
        ':1,"round":"UtQ8rB0G84WYUxXOnXarDA"},"others":[],"once":{"ticket":{"id":"T-1","n":7}},"rounds":2'
        ',"trace":null,"pages":{}}'
    ),
    (
        '{"v":2,"started":1795642290.4168832,"answers":[],"pending":{"question":{"key":"q0","model":"test'
        's.calls.test_state_compat.Name","digest":"KTqlL-0Jh9pe"},"asked_at":1795642290.4209945,"attempt"'
        ':1,"round":"UtQ8rB0G84WYUxXOnXarDA"},"others":[],"once":{"ticket":{"id":"T-1","n":7}},"rounds":3'
        ',"trace":null,"pages":{}}'
    ),
    (
        '{"v":2,"started":1795642290.4168832,"answers":[{"question":{"key":"q0","model":"tests.calls.test'
        '_state_compat.Name","digest":"KTqlL-0Jh9pe"},"action":"accept","content":{"name":"Ada \\u00e9\\u00'
        'e8 \\"q\\""}}],"pending":{"question":{"key":"q1","model":"tests.calls.test_state_compat.Color","di'
        'gest":"lJa0nx7GWoAT"},"asked_at":1795642290.423108,"attempt":0,"round":"pHH7RBrAt0w4R0jvzkT0VA"}'
        ',"others":[{"question":{"key":"q2","model":"tests.calls.test_state_compat.Size","digest":"hxiaI5'
        'QRydve"},"asked_at":1795642290.423231,"attempt":0,"round":"rmPcmAJMUfVyer3wxRj-hA"}],"once":{"ti'
        'cket":{"id":"T-1","n":7}},"rounds":4,"trace":null,"pages":{}}'
    ),
    (
        '{"v":2,"started":1795642290.4168832,"answers":[{"question":{"key":"q0","model":"tests.calls.test'
        '_state_compat.Name","digest":"KTqlL-0Jh9pe"},"action":"accept","content":{"name":"Ada \\u00e9\\u00'
        'e8 \\"q\\""}},{"question":{"key":"q2","model":"tests.calls.test_state_compat.Size","digest":"hxiaI'
        '5QRydve"},"action":"decline","content":null}],"pending":{"question":{"key":"q1","model":"tests.c'
        'alls.test_state_compat.Color","digest":"lJa0nx7GWoAT"},"asked_at":1795642290.423108,"attempt":0,'
        '"round":"pHH7RBrAt0w4R0jvzkT0VA"},"others":[],"once":{"ticket":{"id":"T-1","n":7}},"rounds":5,"t'
        'race":null,"pages":{}}'
    ),
    (
        '{"v":2,"started":1795642290.4168832,"answers":[{"question":{"key":"q0","model":"tests.calls.test'
        '_state_compat.Name","digest":"KTqlL-0Jh9pe"},"action":"accept","content":{"name":"Ada \\u00e9\\u00'
        'e8 \\"q\\""}},{"question":{"key":"q1","model":"tests.calls.test_state_compat.Color","digest":"lJa0'
        'nx7GWoAT"},"action":"accept","content":{"color":"red"}},{"question":{"key":"q2","model":"tests.c'
        'alls.test_state_compat.Size","digest":"hxiaI5QRydve"},"action":"decline","content":null}],"pendi'
        'ng":{"question":{"key":"q3","model":"url","digest":"WFhWzkQxKJn5"},"asked_at":1795642290.4260304'
        ',"attempt":0,"round":"MXyeUgUMxPO0w2YzLnU4Qg"},"others":[],"once":{"ticket":{"id":"T-1","n":7}},'
        '"rounds":6,"trace":null,"pages":{}}'
    ),
    (
        '{"v":2,"started":1795642290.4168832,"answers":[{"question":{"key":"q0","model":"tests.calls.test'
        '_state_compat.Name","digest":"KTqlL-0Jh9pe"},"action":"accept","content":{"name":"Ada \\u00e9\\u00'
        'e8 \\"q\\""}},{"question":{"key":"q1","model":"tests.calls.test_state_compat.Color","digest":"lJa0'
        'nx7GWoAT"},"action":"accept","content":{"color":"red"}},{"question":{"key":"q2","model":"tests.c'
        'alls.test_state_compat.Size","digest":"hxiaI5QRydve"},"action":"decline","content":null},{"quest'
        'ion":{"key":"q3","model":"url","digest":"WFhWzkQxKJn5"},"action":"accept","content":null}],"pend'
        'ing":{"question":{"key":"q4","model":"tests.calls.test_state_compat.Name","digest":"KTqlL-0Jh9pe'
        '"},"asked_at":1795642290.4270902,"attempt":0,"round":"DaMorMU6yDeCGmhMmSenaw"},"others":[],"once'
        '":{"ticket":{"id":"T-1","n":7}},"rounds":7,"trace":null,"pages":{}}'
    ),
)
"""What the previous release sealed, round by round, for `journey` driven by `SCRIPT`."""


def encode_v2(state: ReplayState) -> str:
    """The previous release's `ReplayState.encode` (layout 2), frozen."""

    def question(q: Any) -> dict[str, Any]:
        return {"key": q.key, "model": q.model, "digest": q.digest}

    def pending(p: Any) -> dict[str, Any]:
        return {
            "question": question(p.question),
            "asked_at": p.asked_at,
            "attempt": p.attempt,
            "round": p.round,
        }

    data = {
        "v": 2,
        "started": state.started,
        "answers": [
            {"question": question(a.question), "action": a.action, "content": a.content}
            for a in state.answers
        ],
        "pending": None if state.pending is None else pending(state.pending),
        "others": [pending(p) for p in state.others],
        "once": state.once,
        "rounds": state.rounds,
        "trace": state.trace,
        "pages": {
            key: {
                "id": page.id,
                "expires_at": page.expires_at,
                "elicitation_id": page.elicitation_id,
                "request": page.request,
                "taken": page.taken,
            }
            for key, page in state.pages.items()
        },
    }
    return json.dumps(data, separators=(",", ":"))


def build() -> MCPServer:
    server = MCPServer("compat")

    @server.tool()
    @elicits(retries=1)
    async def journey(ctx: ElicitContext) -> str:
        ticket = await ctx.once("ticket", lambda: {"id": "T-1", "n": 7})
        first = await ctx.elicit(Name, "Your name?")
        color, size = await ctx.elicit_all(Color, Size)
        consent = await ctx.elicit_url("https://example.com/consent", "Please consent")
        again = await ctx.elicit(Name, "Your name again?")
        return f"{ticket} {first} {color} {size} {consent} {again}"

    return server


SCRIPT: tuple[dict[str, ElicitResult], ...] = (
    {"q0": ElicitResult(action="accept", content={"name": "x"})},  # invalid: asked again (attempt 1)
    {},  # a refresh
    {"q0": ElicitResult(action="accept", content={"name": 'Ada \u00e9\u00e8 "q"'})},
    {"q2": ElicitResult(action="decline")},  # one of the two questions of the round
    {"q1": ElicitResult(action="accept", content={"color": "red"})},
    {"q3": ElicitResult(action="accept")},  # the URL's consent
    {"q4": ElicitResult(action="cancel")},
)
ASKED = (["q0"], ["q0"], ["q0"], ["q1", "q2"], ["q1"], ["q3"], ["q4"])
FINAL = (
    "{'id': 'T-1', 'n': 7} Accepted(data=Name(name='Ada \u00e9\u00e8 \"q\"')) "
    "Accepted(data=Color(color='red')) Declined() Consented() Cancelled()"
)


async def drive(session: ClientSession) -> tuple[list[list[str]], str]:
    """Run `journey` round by round with `SCRIPT`; the keys each round asked, and the final text."""
    asked: list[list[str]] = []
    state: str | None = None
    responses: dict[str, ElicitResult] | None = None
    for step in (*SCRIPT, None):
        with anyio.fail_after(BOUND):
            result = await session.call_tool(
                "journey", {}, input_responses=responses, request_state=state, allow_input_required=True
            )
        if isinstance(result, CallToolResult):
            assert isinstance(result.content[0], TextContent)
            return asked, result.content[0].text
        assert isinstance(result, InputRequiredResult)
        asked.append(sorted(result.input_requests or {}))
        state, responses = result.request_state, step
    raise AssertionError("journey asked more rounds than the script answers")


def old_replica_for(rounds: int, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Make the first `rounds` states this process seals layout 2 (an old replica); the rest layout 3."""
    written: list[str] = []
    new = ReplayState.encode

    def encode(self: ReplayState) -> str:
        text = encode_v2(self) if len(written) < rounds else new(self)
        written.append(text)
        return text

    monkeypatch.setattr(ReplayState, "encode", encode)
    return written


def test_the_frozen_encoder_reproduces_what_the_previous_release_wrote_from_the_decoded_state():
    for text in V2_STATES:
        state = ReplayState.decode(text)
        assert state.v == STATE_VERSION
        assert state.rounds > 0
        assert encode_v2(state) == text


def test_a_previous_release_state_decodes_to_every_field_it_held():
    state = ReplayState.decode(V2_STATES[3])
    assert state.started == 1795642290.4168832
    assert [a.question.key for a in state.answers] == ["q0"]
    assert state.answers[0].content == {"name": 'Ada \u00e9\u00e8 "q"'}
    assert state.pending is not None
    assert state.pending.question.model == "tests.calls.test_state_compat.Color"
    assert state.pending.asked_at == 1795642290.423108
    assert [p.question.key for p in state.others] == ["q2"]
    assert state.once == {"ticket": {"id": "T-1", "n": 7}}
    assert state.rounds == 4
    retried = ReplayState.decode(V2_STATES[1])
    assert retried.pending is not None
    assert retried.pending.attempt == 1


async def test_the_journey_today_asks_what_the_previous_release_asked_and_ends_the_same():
    async with Client(build(), mode="2026-07-28", elicitation_callback=ScriptedUser()) as client:
        asked, final = await drive(client.session)
    assert asked == list(ASKED)
    assert final == FINAL


@pytest.mark.parametrize("old_rounds", range(1, len(SCRIPT) + 1))
async def test_a_call_whose_earlier_rounds_an_old_replica_sealed_resumes_without_asking_again(
    old_rounds, monkeypatch
):
    written = old_replica_for(old_rounds, monkeypatch)
    async with Client(build(), mode="2026-07-28", elicitation_callback=ScriptedUser()) as client:
        asked, final = await drive(client.session)
    assert asked == list(ASKED)  # nothing asked twice: every old state was resumed
    assert final == FINAL
    assert [text[:1] for text in written] == ["{"] * old_rounds + ["["] * (len(written) - old_rounds)


@pytest.mark.parametrize(
    "text",
    [
        '{"v":1,"answers":[{"key":"q0","action":"accept","content":{"pin":"SECRET-4242"}}]}',
        '{"v":4,"answers":[],"once":{"pin":"SECRET-4242"}}',
        '[2,1,1,[],[],{"pin":"SECRET-4242"}]',
        '[9,1,1,[],[],{"pin":"SECRET-4242"}]',
        '["3",1,1,[],[],{"pin":"SECRET-4242"}]',
    ],
    ids=["v1-object", "v4-object", "v2-array", "v9-array", "string-version"],
)
def test_a_state_of_another_version_starts_the_call_afresh_logged_by_version_only(text, caplog):
    with caplog.at_level(logging.DEBUG):
        assert ReplayState.decode(text) == ReplayState()
    (record,) = [r for r in caplog.records if "request_state" in r.getMessage()]
    assert record.levelno == logging.INFO
    assert "the call starts afresh" in record.getMessage()
    assert "SECRET" not in caplog.text


def test_a_layout_2_state_that_does_not_fit_starts_afresh_without_logging_its_content(caplog):
    text = '{"v":2,"answers":[{"question":"SECRET-4242"}],"rounds":1}'
    with caplog.at_level(logging.DEBUG):
        assert ReplayState.decode(text) == ReplayState()
    assert "ignoring an unreadable request_state" in caplog.text
    assert "SECRET" not in caplog.text


async def test_a_call_resumed_from_a_state_of_an_unknown_version_asks_its_first_question_again(
    monkeypatch, caplog
):
    written = old_replica_for(0, monkeypatch)
    new = ReplayState.encode

    def future(self: ReplayState) -> str:  # a newer release's layout this one cannot read
        text = "[99" + new(self)[2:]
        written.append(text)
        return text

    monkeypatch.setattr(ReplayState, "encode", future)
    async with Client(build(), mode="2026-07-28", elicitation_callback=ScriptedUser()) as client:
        session = client.session
        with anyio.fail_after(BOUND):
            first = await session.call_tool("journey", {}, allow_input_required=True)
            assert isinstance(first, InputRequiredResult)
            with caplog.at_level(logging.INFO):
                again = await session.call_tool(
                    "journey",
                    {},
                    input_responses={"q0": ElicitResult(action="accept", content={"name": "Ada"})},
                    request_state=first.request_state,
                    allow_input_required=True,
                )
    assert isinstance(again, InputRequiredResult)
    assert sorted(again.input_requests or {}) == ["q0"]  # restarted: the first question again
    assert "ignoring request_state of version 99; the call starts afresh" in caplog.text
    assert "Ada" not in caplog.text
