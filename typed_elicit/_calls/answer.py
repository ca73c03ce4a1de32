"""The one answer path: what every asker does with an answer that arrived, and what it reports.

`take` is the same on every era: the answer's size is checked, the observers hear it (a
hook may rewrite its content), the question turns it into its typed outcome, and the
answer is recorded on the call. An invalid answer is asked again while `retries` allow
(`Reask`: how the asker shows it next), and raises `InvalidResponse` after that.
`asked` reports a question sent. Only askers call these.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from mcp_types import ElicitRequestParams, ElicitRequestURLParams
from mcp_types import ElicitResult as WireResult

from typed_elicit._calls.call import Call
from typed_elicit._calls.policy import Settings
from typed_elicit._calls.questions import Question, Via
from typed_elicit._core.results import ElicitResult, UrlResult
from typed_elicit._observe.hooks import AnswerEvent, QuestionEvent, private
from typed_elicit.errors import InvalidResponse

R = TypeVar("R", bound=ElicitResult[Any] | UrlResult)


@dataclass(slots=True, frozen=True)
class Reask(Generic[R]):
    """An invalid answer's question, as it is asked next.

    Attributes:
        question: The question with the valid part of the answer pre-filled.
        text: Its message with the problems stated.
        attempt: The next attempt's number (1 for the first re-ask).
    """

    question: Question[R]
    text: str
    attempt: int


async def take(
    call: Call, question: Question[R], settings: Settings, wire: WireResult, attempt: int, via: Via
) -> R | Reask[R]:
    """Take `wire`, the answer to attempt `attempt` of `question`: its outcome, recorded; or its re-ask.

    Args:
        call: The call asking.
        question: The question answered.
        settings: The question's settings (its `retries`).
        wire: The answer as it arrived.
        attempt: Which attempt it answers (0 for the first).
        via: Whether it came from the client or through the model.

    Returns:
        The typed outcome, or how to ask again.

    Raises:
        InvalidResponse: If the answer is invalid and no re-ask is left.
        HookError: If a hook fails.
    """
    channel = call.channel
    try:
        question.check_size(wire, call.policy.max_answer_bytes)
        if channel.listeners:
            # The answer event names the question by its base message (a re-ask's text is not recorded).
            event = question_event(call, question, question.params(), attempt, via)
            content = await channel.answer(AnswerEvent(event, wire.action, private(wire.content)))
            if content != wire.content:
                wire = WireResult(action=wire.action, content=content)
        outcome = question.outcome(wire.action, wire.content)
    except InvalidResponse as problem:
        if attempt >= settings.retries:
            raise problem.out_of_retries(settings.retries) from None
        channel.reask(attempt + 1, len(problem.errors))
        return Reask(question.again(problem), reask_text(question.message, problem), attempt + 1)
    call.answered_now(question, wire.action, question.kept(wire))
    return outcome


async def asked(
    call: Call, question: Question[Any], params: ElicitRequestParams, attempt: int, via: Via
) -> None:
    """Report `question` sent with `params` (attempt `attempt`) to the call's observers.

    Raises:
        HookError: If a hook fails.
    """
    if call.channel.listeners:
        await call.channel.question(question_event(call, question, params, attempt, via))


def question_event(
    call: Call, question: Question[Any], params: ElicitRequestParams, attempt: int, via: Via
) -> QuestionEvent:
    """The observers' event of asking `question` with `params`: no answer value in it.

    The schema is the question's own (a re-ask's pre-filled one carries the last answer's
    values), as a private copy when hooks listen.
    """
    if isinstance(params, ElicitRequestURLParams):
        return QuestionEvent(
            function=call.function,
            mode="url",
            model=None,
            message=params.message,
            schema=None,
            url=params.url,
            protocol_version=call.era,
            attempt=attempt,
            via=via,
        )
    return QuestionEvent(
        function=call.function,
        mode="form",
        model=question.model,
        message=params.message,
        schema=private(question.schema),
        url=None,
        protocol_version=call.era,
        attempt=attempt,
        via=via,
    )


def reask_text(message: str, problem: InvalidResponse) -> str:
    """The message of a re-ask: the question's own, then what was wrong (paths and rules, no values)."""
    details = "; ".join(f"{path}: {text}" for path, text in problem.errors)
    return f"{message}\n\nYour previous answer could not be used ({details}). Please answer again."
