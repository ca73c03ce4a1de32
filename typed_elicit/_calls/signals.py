"""The internal signals that end a round or a call early, and the record of those created.

Each derives from `BaseException`, so that a tool's `except Exception:` cannot
swallow it; `@elicits` turns it into what the client receives.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from typing import Final, Literal, TypeAlias

from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, CallToolResult, InputRequiredResult

from typed_elicit._core.suspension import Suspension


class InputRequired(Suspension):
    """Ends a 2026-07-28 round because a question has no answer yet.

    `@elicits` turns it into the round's `InputRequiredResult`: `result`, or what `build`
    makes of the round when it is first read. Concurrent questions of one round (`elicit_all`)
    each raise one, carrying the `size` of the round so far; only the fullest is built, once
    (built by each, the round would cost time in the square of its questions).
    """

    outcome = "input_required"

    def __init__(
        self,
        result: InputRequiredResult | None = None,
        *,
        build: Callable[[], InputRequiredResult] | None = None,
        size: int | None = None,
    ) -> None:
        super().__init__("a question awaits the client's answer")
        assert (result is None) != (build is None), "a result, or how to build it"
        self._result = result
        self._build = build
        self.size = size if size is not None else len(result.input_requests or ()) if result else 0
        """How many questions the round held when this was raised."""
        _record(self)

    @property
    def result(self) -> InputRequiredResult:
        """The round's `InputRequiredResult` (built when first read)."""
        if self._result is None:
            assert self._build is not None
            self._result = self._build()
        return self._result


class RoundRefused(BaseException):
    """Ends a call whose round was already answered (single-use rounds).

    `@elicits` raises its `error`, a JSON-RPC error -32602 with `data.reason`
    `"round_already_answered"`, to the client. `Refusal` names each case.
    """

    def __init__(self, function: str, why: Refusal = "answered") -> None:
        """The refusal of a round of `function`, worded for `why` (see `Refusal`)."""
        super().__init__("this round was already answered")
        message = _REFUSALS[why].format(function=function)
        self.error = MCPError(code=INVALID_PARAMS, message=message, data={"reason": "round_already_answered"})


Refusal: TypeAlias = Literal["answered", "page_taken", "page_released"]
"""Why a round is refused: its answer was taken already (a resent or replayed `requestState`), a
page's answer was taken by another round of the call, or is no longer held (its call has ended)."""

_REFUSALS: Final[dict[Refusal, str]] = {
    "answered": "this round of {function} was already answered: each requestState takes one answer, and a "
    "resent or replayed round is refused (single-use rounds). Answer the latest question with the "
    "requestState that came with it, or call the tool again without requestState to start afresh.",
    "page_taken": "the page answer of {function} was already taken by another round: each page is "
    "answered once. Call the tool again without requestState to start afresh.",
    "page_released": "the page answer of {function} is no longer held: the call it belongs to has ended "
    "(a page answer is deleted when its call returns or fails), so this round was answered already. "
    "Call the tool again without requestState to start afresh.",
}


class FallbackRequired(Suspension):
    """Ends a tool call because a question goes to the model (`on_unsupported="fallback"`).

    `@elicits` turns it into the call's result.
    """

    outcome = "fallback"

    def __init__(self, result: CallToolResult) -> None:
        super().__init__("a question awaits the model's relayed answer")
        self.result = result
        _record(self)


suspensions: ContextVar[list[BaseException] | None] = ContextVar("typed_elicit_suspensions", default=None)
"""Every `InputRequired`/`FallbackRequired` created during the running `@elicits` call.

`@elicits` sets a fresh list per call; task groups inside the call share it (a child
task's context copy holds the same list). The wrapper compares it with what the
function raised: a suspension that never reached it was swallowed, two in one round
were asked concurrently.
"""


def _record(suspension: BaseException) -> None:
    created = suspensions.get()
    if created is not None:
        created.append(suspension)
