"""The 2026-07-28 request state's layout 3: compact, exact, bounded per answer, never compressed.

The layout (`ReplayState.encode`): `[3, started, rounds, awaiting, answers, once, trace, pages]`
as JSON, trailing empty items left out; times in whole milliseconds (a question's asked time
counted from the call's start); a question written `"<schema digest> <model>"` the first
time and by its number after; actions as 0, 1, 2.
"""

from __future__ import annotations

import json
import logging
import math
from typing import Any

import anyio
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.bench import state_bytes
from typed_elicit._calls.state import (
    STATE_VERSION,
    URL_QUESTION,
    Answer,
    PageRecord,
    Pending,
    QuestionId,
    ReplayState,
    question_key,
)

pytestmark = pytest.mark.anyio

START = 1_795_000_000.25


def asked(index: int, model: str = "shop.forms.Account", digest: str = "NDybOuckTSBO", **at: Any) -> Pending:
    question = QuestionId(key=question_key(index), model=model, digest=digest)
    return Pending(
        question=question, asked_at=at.get("at", START + 0.5), round="r" * 22, attempt=at.get("n", 0)
    )


def answered(
    index: int, content: dict[str, Any] | None, model: str = "shop.forms.Step", digest: str = "8VeoCRRHq7XD"
) -> Answer:
    question = QuestionId(key=question_key(index), model=model, digest=digest)
    return Answer(question=question, action="accept", content=content)


def test_a_first_round_is_the_version_the_start_the_round_count_and_the_question_asked():
    state = ReplayState(started=START, rounds=1, pending=asked(0))
    assert state.encode() == f'[3,1795000000250,1,[[0,"NDybOuckTSBO shop.forms.Account",500,"{"r" * 22}"]]]'


def test_a_question_asked_again_is_written_by_number_and_actions_as_small_numbers():
    state = ReplayState(
        started=START,
        rounds=4,
        answers=(
            answered(0, {"choice": "b"}),
            answered(1, {"choice": "a"}),
            Answer(question=answered(2, None).question, action="cancel"),
        ),
        pending=asked(3, "shop.forms.Step", "8VeoCRRHq7XD", n=1),
    )
    text = state.encode()
    assert text.count("shop.forms.Step") == 1
    assert text.endswith('[[0,0,0,{"choice":"b"}],[1,0,0,{"choice":"a"}],[2,0,2]]]')
    assert ',"r' + "r" * 21 + '",1]]' in text  # attempt 1, written only when not 0
    assert ReplayState.decode(text) == state


def test_times_are_kept_to_the_millisecond_rounded_down_so_no_deadline_moves_later():
    for started in (START + 0.0004, 1_795_000_000.9999999, 1_000_000.0, 0.001, 1_795_642_290.4168832):
        state = ReplayState(started=started, rounds=1, pending=asked(0, at=started + 120.0007))
        read = ReplayState.decode(state.encode())
        assert read.started is not None
        assert read.pending is not None
        assert started - 0.001 < read.started <= started
        assert started + 120.0007 - 0.001 < read.pending.asked_at <= started + 120.0007
        assert ReplayState.decode(read.encode()) == read  # stable from the second round on


times = st.integers(min_value=0, max_value=4_000_000_000_000).map(lambda ms: ms / 1000)
keys = st.integers(min_value=0, max_value=400).map(question_key) | st.sampled_from(
    ["q01", "x", "", "q-1", "q\u00b2"]
)
pins = st.sampled_from(
    [
        ("shop.forms.Account", "NDybOuckTSBO"),
        ("shop.forms.Plan", "OFmFNRs0O7UQ"),
        (URL_QUESTION, "WFhWzkQxKJn5"),
        ("odd model \u00e9 [0]", "a digest with spaces"),
    ]
)
values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=8,
)


@st.composite
def states(draw: st.DrawFn) -> ReplayState:
    def question(index: str) -> QuestionId:
        model, digest = draw(pins)
        return QuestionId(key=index, model=model, digest=digest)

    def pending() -> Pending:
        return Pending(
            question=question(draw(keys)),
            asked_at=draw(times),
            attempt=draw(st.integers(min_value=0, max_value=9)),
            round=draw(st.text(min_size=1, max_size=30)),
        )

    awaiting = [pending() for _ in range(draw(st.integers(min_value=0, max_value=3)))]
    answers = tuple(
        Answer(
            question=question(draw(keys)),
            action=draw(st.sampled_from(["accept", "decline", "cancel"])),
            content=draw(st.none() | st.dictionaries(st.text(), values, max_size=4)),
        )
        for _ in range(draw(st.integers(min_value=0, max_value=5)))
    )
    pages = draw(
        st.dictionaries(
            st.text(max_size=5),
            st.builds(
                PageRecord,
                id=st.text(max_size=10),
                expires_at=st.floats(min_value=0, max_value=4e9),
                elicitation_id=st.text(max_size=10),
                request=st.text(max_size=10),
                taken=st.booleans(),
            ),
            max_size=2,
        )
    )
    return ReplayState(
        started=draw(st.none() | times),
        answers=answers,
        pending=awaiting[0] if awaiting else None,
        others=tuple(awaiting[1:]),
        once=draw(st.dictionaries(st.text(), values, max_size=3)),
        rounds=draw(st.integers(min_value=0, max_value=10_000)),
        trace=draw(st.none() | st.text(max_size=60)),
        pages=pages,
    )


@given(states())
def test_every_state_with_millisecond_times_reads_back_equal(state):
    text = state.encode()
    assert json.loads(text)[0] == STATE_VERSION
    assert ReplayState.decode(text) == state


@pytest.mark.parametrize(
    "text",
    [
        "[3]",
        "[3,null,null]",
        "[3,1,1,{}]",
        "[3,1,1,[[0]]]",
        '[3,1,1,[[0,"d m",0,"r"]],[[1,0,7]]]',  # action 7
        '[3,1,1,[[0,"d m",0,"r"]],[[1,5,0]]]',  # a question number never written
        '[3,1,1,[[0,"d m",0,"r"]],[[1,-1,0]]]',
        '[3,1,1,[[0,"no-space",0,"r"]]]',
        '[3,1,1,[[-1,"d m",0,"r"]]]',
        '[3,1,1,[[null,"d m",0,"r"]]]',
        '[3,1,1,[[true,"d m",0,"r"]]]',
        '[3,1.5,1,[[0,"d m",0,"r"]]]',  # times are whole milliseconds
        '[3,1,1,[[0,"d m",0.5,"r"]]]',
        "[3,1,1,[],[],[],null,{}]",  # once is an object
        '[3,1,1,[],[],{},null,{"q0":[1]}]',
        '[3,1,1,[],[],{},null,{},"more"]',
        '[3,1,1,[[0,"d m",0,"r",1,2]]]',
    ],
)
def test_a_malformed_layout_3_state_starts_the_call_afresh_logged(text, caplog):
    with caplog.at_level(logging.INFO):
        assert ReplayState.decode(text) == ReplayState()
    assert "ignoring an unreadable request_state; the call starts afresh" in caplog.text


def test_a_malformed_state_is_logged_without_what_it_holds(caplog):
    text = '[3,1,1,[[0,"d m",0,"r"]],[[0,0,0,{"pin":"SECRET-4242"},"extra"]]]'
    with caplog.at_level(logging.DEBUG):
        assert ReplayState.decode(text) == ReplayState()
    assert "SECRET" not in caplog.text


def bytes_for(answers: int, content: dict[str, Any]) -> int:
    state = ReplayState(
        started=START, rounds=1000, answers=tuple(answered(i, content) for i in range(answers))
    )
    return len(state.encode())


@pytest.mark.parametrize("content", [{"choice": "b", "note": "n"}, {"text": "x" * 300}, {}])
def test_each_answer_to_a_question_asked_before_adds_its_content_and_at_most_ten_bytes(content):
    size = len(json.dumps(content, separators=(",", ":")))
    for n in (1, 9, 10, 99, 100):  # the n-th answer's index has len(str(n)) digits
        added = bytes_for(n + 1, content) - bytes_for(n, content)
        assert added == size + 8 + len(str(n)), (n, added)  # `,[n,0,0,` and `]`
        assert added <= size + 10 + math.floor(math.log10(n))


def test_the_first_answer_to_a_model_adds_its_name_and_schema_digest_once():
    model = "shop.forms.Account"
    one = ReplayState(started=START, rounds=2, answers=(answered(0, {"a": 1}),))
    two = ReplayState(
        started=START, rounds=2, answers=(*one.answers, answered(1, {"a": 1}, model, "NDybOuckTSBO"))
    )
    added = len(two.encode()) - len(one.encode())
    assert added == len(',[1,"NDybOuckTSBO shop.forms.Account",0,{"a":1}]')
    assert added == len('{"a":1}') + len(model) + 12 + 11


def test_equal_answers_of_different_lengths_are_written_at_their_own_lengths_never_compressed():
    short = bytes_for(3, {"text": "a"})
    repeated = bytes_for(3, {"text": "a" * 200})
    varied = bytes_for(3, {"text": "".join(chr(97 + i % 26) for i in range(200))})
    assert repeated == varied == short + 3 * 199  # what a sealed length reveals is the answers' lengths


async def test_the_three_step_wizard_state_is_at_most_1_2x_the_sdk_resolvers_per_round():
    with anyio.fail_after(60):
        results = await state_bytes.measure([1, 2, 4])
    for index in (0, 1):  # resolvers in closures (wizard.py), and at module level
        ours, sdk = results["typed_elicit"][index], results["resolvers"][index]
        assert len(ours.sealed) == len(sdk.sealed) == 3
        for mine, theirs in zip(ours.sealed, sdk.sealed, strict=True):
            assert mine <= 1.2 * theirs, (ours, sdk)
    growth = [(r.k, r.plain[-1]) for r in results["typed_elicit"] if r.k]
    per_answer = state_bytes.slope(growth)
    # `,[1,0,0,{"choice":"b","note":"n"}]` (34), plus the pending question's asked time and
    # round count, whose digits grow with the wall time and the rounds the call has taken.
    assert 34 <= per_answer < 45, growth
