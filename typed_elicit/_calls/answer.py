"""The one answer path: what every asker does with an answer that arrived, and what it reports.

`take` is the same on every era and for every kind of question: the answer's size is
checked, the observers hear it (a hook may rewrite a form's content), the question turns it
into its typed outcome, and the answer is recorded on the call. An invalid answer is asked
again while `retries` allow (`Reask`: how the asker shows it next), and raises
`InvalidResponse` after that. An answer that came beside the client (a page's) takes the
same path (`take_beside`): its observers hear that it came, never its values, and its
record is its consent's. `asked` reports a question sent. Only askers call these.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic

from mcp_types import ElicitRequestParams, ElicitRequestURLParams
from mcp_types import ElicitResult as WireResult

from typed_elicit._calls.call import Call
from typed_elicit._calls.policy import Settings
from typed_elicit._calls.questions import Question, R, Reply, Via
from typed_elicit._observe.hooks import (
    AnswerEvent,
    QuestionEvent,
    private,
    run_answer_hooks,
    run_question_hooks,
)
from typed_elicit.errors import InvalidResponse


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
    call: Call, question: Question[R], settings: Settings, wire: Reply, attempt: int, via: Via
) -> R | Reask[R]:
    """Take `wire`, the answer to attempt `attempt` of `question`: its outcome, recorded; or its re-ask.

    Args:
        call: The call asking.
        question: The question answered.
        settings: The question's settings (its `retries`).
        wire: The answer as it arrived.
        attempt: Which attempt it answers (0 for the first).
        via: Whether it came from the client, through the model, or from a page.

    Returns:
        The typed outcome, or how to ask again.

    Raises:
        InvalidResponse: If the answer is invalid and no re-ask is left (a page's answer is
            never asked again).
        HookError: If a hook fails.
    """
    channel = call.channel
    action, content = wire.action, wire.content
    try:
        question.check_size(wire, call.policy.max_answer_bytes)
        if channel.listeners:
            # The answer event names the question by its base message (a re-ask's text is not recorded);
            # a page's answer is heard without its values (secrets, files).
            event = question_event(call, question, question.params(), attempt, via)
            heard = None if via == "page" else private(content)
            rewritten = await run_answer_hooks(channel.hooks, AnswerEvent(event, action, heard))
            if via != "page" and rewritten != content:
                content = rewritten
                wire = WireResult(action=action, content=content)
        outcome = question.outcome(action, content)
    except InvalidResponse as problem:
        if via == "page" or attempt >= settings.retries:
            raise problem.out_of_retries(settings.retries) from None
        channel.reask(attempt + 1, len(problem.errors))
        return Reask(question.again(problem), reask_text(question.message, problem), attempt + 1)
    if via != "page":  # a page's record is its consent's, taken when the client consented
        call.answered_now(question, action, question.kept(wire))
    return outcome


async def take_beside(call: Call, question: Question[R], settings: Settings, wire: Reply) -> R:
    """Take the answer that came beside the client (a page's): `take`, never asked again, not recorded twice.

    Raises:
        InvalidResponse: If the answer does not fit the model (only if the model changed
            since the page checked it).
        HookError: If a hook fails.
    """
    taken = await take(call, question, settings, wire, 0, "page")
    assert not isinstance(taken, Reask), "a page's answer is never asked again"
    return taken


async def asked(
    call: Call, question: Question[Any], params: ElicitRequestParams, attempt: int, via: Via
) -> None:
    """Report `question` sent with `params` (attempt `attempt`) to the call's observers.

    Raises:
        HookError: If a hook fails.
    """
    if call.channel.listeners:
        await run_question_hooks(call.channel.hooks, question_event(call, question, params, attempt, via))


def question_event(
    call: Call, question: Question[Any], params: ElicitRequestParams, attempt: int, via: Via
) -> QuestionEvent:
    """The observers' event of asking `question` with `params`: no answer value in it.

    The schema is the question's own (a re-ask's pre-filled one carries the last answer's
    values), as a private copy when hooks listen.
    """
    url = isinstance(params, ElicitRequestURLParams)
    return QuestionEvent(
        function=call.function,
        mode="url" if url else "form",
        model=None if url else question.model,
        message=params.message,
        schema=None if url else private(question.schema),
        url=params.url if isinstance(params, ElicitRequestURLParams) else None,
        protocol_version=call.era,
        attempt=attempt,
        via=via,
    )


def reask_text(message: str, problem: InvalidResponse) -> str:
    """The message of a re-ask: the question's own, then what was wrong (paths and rules, no values)."""
    details = "; ".join(f"{path}: {text}" for path, text in problem.errors)
    return f"{message}\n\nYour previous answer could not be used ({details}). Please answer again."
