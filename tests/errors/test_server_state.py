"""The errors of state kept between rounds or replicas: each keeps its data, its message worded from it."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from typed_elicit.errors import (
    InvalidFallbackToken,
    ReplayMismatch,
)
from typed_elicit.errors._server_state import TokenProblem


@dataclass(frozen=True)
class Recorded:
    """A stand-in for a recorded question: it describes itself, nothing more."""

    text: str

    def describe(self) -> str:
        return self.text


def test_a_replay_mismatch_carries_the_index_and_both_questions() -> None:
    recorded, asked = Recorded("Confirm (key 'q0', schema ab12)"), Recorded("Address (key 'q0', schema cd34)")
    error = ReplayMismatch.between_rounds(1, recorded, asked)
    assert (error.index, error.recorded, error.asked) == (1, recorded, asked)
    assert str(error).startswith(
        "question #2 of this call was Confirm (key 'q0', schema ab12) when the client answered it, but "
        "this round asked Address (key 'q0', schema cd34) there. On protocol 2026-07-28"
    )
    assert str(error).endswith(
        "Wrap side effects and changing reads (time, random, databases) in `await ctx.once(key, fn)`."
    )
    assert ReplayMismatch("differs").index is None


@pytest.mark.parametrize(
    ("problem", "wording"),
    [
        (
            "altered",
            "the token is not one this server issued, or it was altered; "
            "pass the token from the question unchanged.",
        ),
        ("other_server", "the token was issued by another server."),
        ("other_user", "the token was issued to another user."),
        ("expired", "the token has expired (tokens are valid for 600 s)."),
    ],
)
def test_an_unusable_fallback_token_says_which_problem_it_has(problem: TokenProblem, wording: str) -> None:
    error = InvalidFallbackToken.because(problem, ttl=600.0)
    assert error.problem == problem
    assert error.ttl == (600.0 if problem == "expired" else None)
    assert str(error) == f"{wording} Ask the tool again to get a fresh question and token."


def test_a_used_fallback_token_carries_its_tool() -> None:
    error = InvalidFallbackToken.because("used", tool="book")
    assert (error.problem, error.tool, error.ttl) == ("used", "book", None)
    assert str(error).startswith("the token was already used: each token delivers one answer, once,")
    assert "call the tool 'book' again" in str(error)
