"""The replay asker (2026-07-28, and a call resumed by the fallback's companion tool).

Questions are answered by running the call again: a round ends with an
`InputRequiredResult` (or, through the fallback, a result for the model) when a
question has no answer yet, and the client's retry brings the answer with the
sealed state (`_state.ReplayState`). The body then runs from the top; each
question already answered is answered from the record, pinned to its position,
model and digest (`ReplayMismatch` otherwise), and the pending one takes this
round's response: in time, once (its round id is claimed in the server's store),
within the size limit, re-asked while `retries` allow. Ending a round raises;
concurrent questions of one call (`elicit_all`, a task group) end it together.
"""

from __future__ import annotations

import math
from typing import Any, Final, NoReturn, TypeVar

import anyio.lowlevel
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, ElicitRequest, InputRequest, InputRequiredResult
from mcp_types import ElicitResult as WireResult

from typed_elicit._calls.call import Call
from typed_elicit._calls.policy import Settings, get_default_timeout, state_ttl
from typed_elicit._calls.questions import Question, Via, out_of_retries, reask
from typed_elicit._calls.signals import InputRequired, RoundRefused
from typed_elicit._calls.state import Answer, Pending, QuestionId, ReplayState, new_round
from typed_elicit._core import clock as _clock
from typed_elicit._core.results import ElicitResult, UrlResult
from typed_elicit._observe import telemetry as _telemetry
from typed_elicit._observe.hooks import run_question_hooks
from typed_elicit.errors import ElicitArgumentError, ElicitationTimeout, InvalidResponse, ReplayMismatch
from typed_elicit.fallback._companion import ask_the_model
from typed_elicit.stores._memory import store_for

R = TypeVar("R", bound=ElicitResult[Any] | UrlResult)

CLAIM_MARGIN: Final = 60.0
"""Seconds a claimed round id is kept past the round's last possible answer (clock skew)."""

_NO_FALLBACK_FOR_URLS: Final = (
    "URL-mode questions never fall back to the model, and the fallback cannot reach the client"
)


class ReplayAsker:
    """Answers from the sealed record or this round's responses, else ends the round."""

    __slots__ = ("_round", "call", "number", "responses", "state", "trace")

    def __init__(self, call: Call, state: ReplayState, responses: dict[str, Any]) -> None:
        self.call = call
        self.state = state
        self.responses = responses
        self._round: list[tuple[Pending, ElicitRequest]] = []
        self.number = state.rounds + 1
        """This round's number (1 for the call's first request)."""
        self.trace = state.trace
        """The trace later rounds join (see `_telemetry.resume_round`)."""
        if state.rounds == 0:
            self.trace = _telemetry.traceparent_now()
        if state.started is not None:
            call.started = state.started
        if state.once:
            call.once.update(state.once)

    async def ask(self, question: Question[R], settings: Settings) -> R:
        """Answer `question` from the record or this round, else end the round (see `ElicitContext.elicit`).

        A round without an answer to the pending question ends with the same pending
        record (same asked time, attempt and round id), once it is checked in time.

        Raises:
            ReplayMismatch: If the record holds another question at this position.
            ElicitationTimeout: If the question, or the call, has run out of time.
            InvalidResponse: If the answers stay invalid past `settings.retries`.
            ElicitationUnsupported: If the client cannot be asked and the policy says so.
            InputRequired: To end the round (internal signal).
            FallbackRequired: To hand the question to the model (internal signal).
            RoundRefused: If this round was answered already (internal signal).
        """
        call = self.call
        asked = question.id
        answer = self.state.answer_to(question.key)
        if answer is not None:
            if answer.question != asked:
                raise ReplayMismatch.between_rounds(_position(question), answer.question, asked)
            call.record(answer)
            return question.outcome(answer.action, answer.content)
        pending = self._pending(question, asked)
        if pending is not None:
            response = self.responses.get(question.key)
            if isinstance(response, WireResult):
                return await self._take(question, settings, pending, response)
            self._check_in_time(question, pending, settings.timeout, answered=False)
        attempt = 0 if pending is None else pending.attempt
        if call.resume is not None:
            if question.mode == "form":
                await self._ask_the_model(question, question.message, attempt, "", pending)
            reason: str | None = _NO_FALLBACK_FOR_URLS
        else:
            reason = call.cannot_ask(question.mode)
        if reason is not None:
            if question.mode == "form" and settings.on_unsupported == "fallback":
                await self._ask_the_model(question, question.message, attempt, reason, pending)
            outcome = question.unsupported(settings.on_unsupported, reason, tool=None)
            question.settle(call, outcome)
            if pending is not None:  # the tool goes on with an outcome for this round
                await self._claim(pending, settings.timeout)
            return outcome
        if pending is None:
            self._check_state_ttl(question, settings.timeout)
        await self._end_round(question, question.message, attempt, pending)

    async def _take(
        self, question: Question[R], settings: Settings, pending: Pending, response: WireResult
    ) -> R:
        """Take this round's answer to the pending question: in time, once, within the size limit."""
        call = self.call
        self._check_in_time(question, pending, settings.timeout, answered=True)
        await self._claim(pending, settings.timeout)
        _telemetry.current().waited_more(_clock.now() - pending.asked_at)
        via: Via = "fallback" if call.resume is not None else "client"
        # The answer event names the question by its base message (a re-ask's text is not recorded).
        hooks = call.hooks
        try:
            question.check_size(response, call.policy.max_answer_bytes)
            if hooks:
                event = call.event(question, question.params(with_id=False), pending.attempt, via)
                response = await call.answered(hooks, event, response)
            outcome = question.outcome(response.action, response.content)
        except InvalidResponse as problem:
            if pending.attempt >= settings.retries:
                raise out_of_retries(problem, settings.retries) from None
            text = reask(question.message, problem)
            _telemetry.current().reask(pending.attempt + 1, len(problem.errors))
            question = question.again(problem)
            if via == "fallback":
                await self._ask_the_model(question, text, pending.attempt + 1, "", None)
            await self._end_round(question, text, pending.attempt + 1, None)
        call.record(
            Answer(question=pending.question, action=response.action, content=question.kept(response))
        )
        return outcome

    def _pending(self, question: Question[Any], asked: QuestionId) -> Pending | None:
        """The pending record if the last round awaits this question, else None.

        Raises:
            ReplayMismatch: If the record awaits another question at this position.
        """
        for pending in self.state.awaiting():
            if pending.question.key == question.key:
                if pending.question != asked:
                    raise ReplayMismatch.between_rounds(_position(question), pending.question, asked)
                return pending
        return None

    def _check_in_time(
        self, question: Question[Any], pending: Pending, timeout: float, *, answered: bool
    ) -> None:
        """Raise `ElicitationTimeout` if the pending question, or the call, has run out of time.

        Checked when a round answers the question and when it only refreshes it, so a
        question past its timeout, or a call past its `call_timeout`, can never be
        answered, however often it is refreshed.
        """
        call = self.call
        now = _clock.now()
        waited = now - pending.asked_at
        if waited > timeout:
            raise ElicitationTimeout.too_late(
                question.subject, timeout, waited, question.asker, answered=answered
            )
        limit = call.policy.call_timeout
        age = now - call.started
        if age > limit:
            raise ElicitationTimeout.call_expired(call.function, question.subject, limit, age)

    async def _claim(self, pending: Pending, timeout: float) -> None:
        """Claim the pending round's id, so that the round takes one answer (single-use rounds).

        Raises:
            RoundRefused: If the round was answered already; the client gets -32602.
        """
        call = self.call
        if not call.policy.single_use_rounds:
            return
        # The round cannot be answered after this (`_check_in_time`), so its id need not be kept longer.
        last = min(pending.asked_at + timeout, call.started + call.policy.call_timeout)
        if await store_for(call.sdk.mcp_server).claim(f"round:{pending.round}", last + CLAIM_MARGIN):
            return
        raise RoundRefused(
            MCPError(
                code=INVALID_PARAMS,
                message=(
                    f"this round of {call.function} was already answered: each requestState takes "
                    "one answer, and a resent or replayed round is refused (single-use rounds). Answer "
                    "the latest question with the requestState that came with it, or call the tool "
                    "again without requestState to start afresh."
                ),
                data={"reason": "round_already_answered"},
            )
        )

    def _check_state_ttl(self, question: Question[Any], timeout: float) -> None:
        """On 2026-07-28, refuse to ask a question whose timeout outlives the server's request state.

        Raises:
            ElicitArgumentError: If the finite `timeout` exceeds the state's TTL, naming the fix
                (a `ValueError`).
        """
        call = self.call
        if not call.uses_input_required or math.isinf(timeout):
            return
        if call.policy.timeout is None and timeout == get_default_timeout():
            # The process-wide default was checked by `set_default_timeout()` (a warning); a
            # server with a deliberately short ttl still asks, and an answer within it works.
            return
        ttl = state_ttl(call.sdk.mcp_server)
        if ttl is not None and timeout > ttl:
            raise ElicitArgumentError(
                question.asker,
                "timeout",
                f"in {call.function} has a {timeout:g} s timeout, longer than the {ttl:g} s this server's "
                "2026-07-28 request state lives (its RequestStateSecurity ttl): the SDK would refuse a "
                "later answer as 'Invalid or expired requestState'",
                f"Pass a timeout of at most {ttl:g} s, or give the server a longer ttl: MCPServer(..., "
                "request_state_security=RequestStateSecurity.ephemeral(ttl=...)) for one process, or "
                "RequestStateSecurity(keys=[secret], ttl=...) for several replicas.",
            )

    def _state(self, pending: Pending, others: tuple[Pending, ...] = ()) -> ReplayState:
        call = self.call
        return ReplayState(
            started=call.started,
            answers=call.answers(),
            pending=pending,
            others=others,
            once=dict(call.once),
            rounds=self.number,
            trace=self.trace,
        )

    def _fresh(self, question: Question[Any], attempt: int, pending: Pending | None) -> Pending:
        """`pending` if the question was asked before (kept as is), else a record of asking it now."""
        if pending is not None:
            return pending
        return Pending(question=question.id, asked_at=_clock.now(), attempt=attempt, round=new_round())

    async def _ask_the_model(
        self, question: Question[Any], text: str, attempt: int, reason: str, pending: Pending | None
    ) -> NoReturn:
        state = self._state(self._fresh(question, attempt, pending))
        await ask_the_model(self.call, question, state, text, attempt, reason)

    async def _end_round(
        self, question: Question[Any], text: str, attempt: int, pending: Pending | None
    ) -> NoReturn:
        """End this round with an `InputRequiredResult` holding every question pending now.

        `pending` is the record of a question asked before and not yet answered: it is
        kept as is (asked time, attempt, round id). Otherwise the question is asked now,
        as attempt `attempt`, in a fresh round.
        """
        call = self.call
        params = question.params(text, with_id=False)  # 2026-07-28 URL requests carry no elicitationId
        await run_question_hooks(call.hooks, call.event(question, params, attempt, "client"))
        self._round.append((self._fresh(question, attempt, pending), ElicitRequest(params=params)))
        # Let concurrent questions of this call (a task group, `elicit_all`) register too:
        # the round ends with every question pending now, each under its own stable key.
        await anyio.lowlevel.checkpoint()
        first, *others = (asked for asked, _ in self._round)
        requests: dict[str, InputRequest] = {asked.question.key: request for asked, request in self._round}
        state = self._state(first, tuple(others))
        raise InputRequired(InputRequiredResult(input_requests=requests, request_state=state.encode()))


def _position(question: Question[Any]) -> int:
    """The 0-based position of `question` among its call's questions (from its key `q<n>`)."""
    return int(question.key[1:])
