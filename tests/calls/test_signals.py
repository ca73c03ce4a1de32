"""The internal signals that end a round or a call early: never an `Exception`, each recorded in its call."""

from __future__ import annotations

import pytest
from mcp_types import INVALID_PARAMS, CallToolResult, InputRequiredResult

from typed_elicit._calls.signals import FallbackRequired, InputRequired, Refusal, RoundRefused, suspensions


def test_a_suspension_is_no_exception_so_a_tools_except_exception_cannot_swallow_it() -> None:
    round_ = InputRequired(InputRequiredResult(input_requests={}, request_state="s"))
    handed = FallbackRequired(CallToolResult(content=[]))
    for signal in (round_, handed, RoundRefused("book")):
        assert not isinstance(signal, Exception)
    assert (round_.outcome, handed.outcome) == ("input_required", "fallback")


def test_each_suspension_is_recorded_in_the_running_call_and_nowhere_outside_one() -> None:
    InputRequired(InputRequiredResult(input_requests={}, request_state="s"))  # outside a call: not kept
    created: list[BaseException] = []
    token = suspensions.set(created)
    try:
        round_ = InputRequired(InputRequiredResult(input_requests={}, request_state="s"))
        handed = FallbackRequired(CallToolResult(content=[]))
    finally:
        suspensions.reset(token)
    assert created == [round_, handed]


@pytest.mark.parametrize(
    ("why", "said"),
    [
        ("answered", "this round of book was already answered"),
        ("page_taken", "the page answer of book was already taken by another round"),
        ("page_released", "the page answer of book is no longer held"),
    ],
)
def test_a_refused_round_is_an_invalid_params_error_saying_why_and_to_start_afresh(
    why: Refusal, said: str
) -> None:
    error = RoundRefused("book", why).error
    assert error.code == INVALID_PARAMS
    assert error.data == {"reason": "round_already_answered"}
    assert str(error).startswith(said)
    assert "without requestState to start afresh" in str(error)
