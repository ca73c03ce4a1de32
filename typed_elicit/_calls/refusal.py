"""The one refusal path: what a question becomes when the client cannot be asked it.

Every asker that finds the client unreachable for a question (`askers.reach`) hands it
here, with the reason. The question's `on_unsupported` policy decides: `"fallback"` sends a
form question through the model (`to_the_model`, via the server's `install_fallback`
route); otherwise the question's kind gives the outcome (`Declined()`, the defaults) or
raises `ElicitationUnsupported`. An outcome a policy gave is recorded like an answer, so a
call resumed through the fallback replays it instead of asking again.
"""

from __future__ import annotations

from typing import Any, NoReturn

from typed_elicit._calls.answer import asked
from typed_elicit._calls.call import Call
from typed_elicit._calls.plugs import route_for
from typed_elicit._calls.policy import Settings
from typed_elicit._calls.questions import Question, R
from typed_elicit._calls.state import Pending, new_round
from typed_elicit._core import clock
from typed_elicit._core.results import Declined
from typed_elicit.errors import ElicitArgumentError, FallbackNotInstalled


async def refuse(
    call: Call,
    question: Question[R],
    settings: Settings,
    reason: str,
    *,
    pending: Pending | None = None,
) -> R:
    """The outcome of `question` when the client cannot be asked it, for `reason`.

    Args:
        call: The call asking.
        question: The question.
        settings: Its settings (`on_unsupported`).
        reason: Why the client cannot be asked.
        pending: Its record when an earlier round asked it already (2026-07-28).

    Returns:
        What the policy gives (`Declined()`, or `Accepted` of the defaults), recorded.

    Raises:
        ElicitationUnsupported: If the policy gives no outcome (`"raise"`, or `"defaults"`
            without a default for every field).
        FallbackRequired: If a form question goes to the model (internal signal).
        FallbackNotInstalled: If it should, and the server has no `install_fallback`.
        ElicitArgumentError: If it should, and the call is no tool call.
    """
    in_request = call.request is not None
    if settings.on_unsupported == "fallback" and question.kind == "form" and in_request:
        await to_the_model(call, question, question.message, reason, pending=pending)
    outcome = question.unsupported(settings.on_unsupported, reason, tool=in_request and call.in_tool)
    if isinstance(outcome, Declined):
        call.answered_now(question, "decline", None)
    else:
        call.answered_now(question, "accept", {})  # {}: the model's defaults
    return outcome


def check_fallback(call: Call, owner: str) -> None:
    """Refuse `on_unsupported="fallback"` where the fallback cannot run the call again: the one decision.

    The companion tool re-runs tool calls only, so a prompt or a resource cannot fall back.
    `@elicits` checks its own policy before the body runs, a question its own before it is asked.

    Raises:
        ElicitArgumentError: If the call is a prompt or a resource.
    """
    request = call.request
    if call.resume is None and request is not None and request.method != "tools/call":
        raise ElicitArgumentError.fallback_outside_tool(owner, call.function, request.method)


async def to_the_model(
    call: Call,
    question: Question[Any],
    text: str,
    reason: str,
    *,
    attempt: int = 0,
    pending: Pending | None = None,
) -> NoReturn:
    """End the call with a result that hands `question` to the model (`on_unsupported="fallback"`).

    Args:
        call: The call asking.
        question: The form question.
        text: The text to show (a re-ask's carries the problems).
        reason: Why the client is not asked directly (empty on a resumed call).
        attempt: The question's attempt, for the observers.
        pending: Its record when it was asked before (kept as is), else a fresh one is made.

    Raises:
        FallbackRequired: Always, when the fallback applies (`@elicits` makes it the result).
        FallbackNotInstalled: If the server has no companion tool (`install_fallback`).
    """
    resume = call.resume
    if resume is not None:
        tool, arguments = resume.tool, resume.arguments
    else:
        request = call.sdk.request_context
        assert request.method == "tools/call", "check_fallback refused the policy before the question"
        params = request.params or {}
        tool, arguments = str(params.get("name", "")), dict(params.get("arguments") or {})
    model_route = route_for(call.sdk.mcp_server)
    if model_route is None:
        raise FallbackNotInstalled.for_function(call.function, reason)
    state = call.state(fresh(question, attempt, pending))
    shown = question.params(text)
    await asked(call, question, shown, attempt, "fallback")
    model_route.hand_over(call.sdk, tool, arguments, state, shown.message, dict(question.schema or {}))


def fresh(question: Question[Any], attempt: int, pending: Pending | None) -> Pending:
    """`pending` if the question was asked before (kept as is), else a record of asking it now."""
    if pending is not None:
        return pending
    return Pending(question=question.id, asked_at=clock.now(), attempt=attempt, round=new_round())
