"""The replay askers: 2026-07-28 rounds (`ReplayAsker`), and calls resumed through the model (`ModelAsker`).

Questions are answered by running the call again: a round ends with an
`InputRequiredResult` (or, through the fallback, a result for the model) when a question
has no answer yet, and the retry brings the answer with the sealed state
(`state.ReplayState`). The body then runs from the top; each question already answered is
answered from the record, pinned to its position, model and digest (`ReplayMismatch`
otherwise), and the pending one takes this round's response: in time, once (its round id
is claimed in the server's store), through the one answer path (`answer.take`). Ending a
round raises; concurrent questions of one call (`elicit_all`, a task group) end it together.

A question answered beside the client (a page, `Beside`) has its consent asked like a URL
question; once consented, each round waits a while for the answer (`Beside.poll_seconds`)
and ends with a round that carries only `requestState` until it comes. The round that finds
the answer takes it once and, if the call goes on past that round, has it held until the call
ends (`Call.on_suspend`); later rounds read it there, never from the state.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar, Final, NoReturn, cast

import anyio.lowlevel
from mcp_types import ElicitRequest, InputRequest, InputRequiredResult
from mcp_types import ElicitResult as WireResult

from typed_elicit._calls.answer import Reask, asked, take, take_beside
from typed_elicit._calls.call import Call
from typed_elicit._calls.policy import Settings, get_default_timeout
from typed_elicit._calls.questions import Beside, Question, R, Via
from typed_elicit._calls.reach import Travel, reach, watched
from typed_elicit._calls.refusal import fresh, refuse, to_the_model
from typed_elicit._calls.signals import InputRequired, RoundRefused
from typed_elicit._calls.state import Pending, ReplayState
from typed_elicit._core import clock
from typed_elicit._core.foreign import request_state_security
from typed_elicit._core.results import Consented
from typed_elicit.errors import (
    ElicitArgumentError,
    ElicitationTimeout,
    ReplayMismatch,
)
from typed_elicit.stores._config import store_for

CLAIM_MARGIN: Final = 60.0
"""Seconds a claimed round id is kept past the round's last possible answer (clock skew)."""


class ReplayAsker:
    """Answers from the sealed record or this round's responses, else ends the round."""

    __slots__ = ("_answered", "_awaited", "_round", "call", "responses", "state")

    via: ClassVar[Via] = "client"
    travel: ClassVar[Travel] = "rounds"

    def __init__(self, call: Call, state: ReplayState, responses: dict[str, Any]) -> None:
        self.call = call
        self.state = state
        self.responses = responses
        self._round: list[tuple[Pending, ElicitRequest]] = []
        # By key, read once: each question looks itself up (a scan per question is quadratic).
        self._answered = {answer.question.key: answer for answer in reversed(state.answers)}
        self._awaited = {pending.question.key: pending for pending in reversed(state.awaiting())}
        call.restore(state)

    async def ask(self, question: Question[R], settings: Settings, /) -> R:
        """Answer `question` from the record or this round, else end the round (see `ElicitContext.elicit`).

        A round without an answer to the pending question ends with the same pending
        record (same asked time, attempt and round id), once it is checked in time. A
        question answered from the record gets no span: nothing new happens to it.

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
        beside = question.beside
        if beside is not None:  # whatever this round does, the call's end closes the page
            call.on_end(beside.close)
            call.on_suspend(beside.hold)
        answer = self._answered.get(question.key)
        if answer is not None:
            if answer.question != question.id:
                raise ReplayMismatch.between_rounds(_position(question), answer.question, question.id)
            call.record(answer)
            if beside is not None and answer.action == "accept":  # consented: now the answer beside it
                return await self._beside(question, beside, settings)
            return question.outcome(answer.action, answer.content)
        return await watched(call, question, self._ask(question, settings), call.rounds)

    async def complete(self, elicitation_id: str, /) -> bool:
        """Nothing to send: 2026-07-28 has no `notifications/elicitation/complete`."""
        return False

    async def _ask(self, question: Question[R], settings: Settings) -> R:
        call = self.call
        pending = self._awaited.get(question.key)
        if pending is not None and pending.question != question.id:
            raise ReplayMismatch.between_rounds(_position(question), pending.question, question.id)
        if pending is not None:
            response = self.responses.get(question.key)
            if isinstance(response, WireResult):
                return await self._take(question, settings, pending, response)
            self._check_in_time(question, pending, settings.timeout, answered=False)
        reason = reach(call, question, self.travel)
        if reason is not None:
            outcome = await refuse(call, question, settings, reason, pending=pending)
            if pending is not None:  # the tool goes on with an outcome for this round
                await self._claim(pending, settings.timeout)
            return outcome
        if pending is None:
            self._check_state_ttl(question, settings.timeout)
            if question.beside is not None:
                await question.beside.open(call.function)
        await self._send(question, question.message, 0 if pending is None else pending.attempt, pending)

    async def _take(
        self, question: Question[R], settings: Settings, pending: Pending, response: WireResult
    ) -> R:
        """Take this round's answer to the pending question: in time, once, then the answer path."""
        call = self.call
        self._check_in_time(question, pending, settings.timeout, answered=True)
        claimed = await self._claim(pending, settings.timeout)
        if call.channel.listeners:
            call.channel.wait(clock.now() - pending.asked_at)
        beside = question.beside
        if beside is not None:
            consent = await take(call, beside.consent, settings, response, pending.attempt, self.via)
            if isinstance(consent, Consented):
                return await self._beside(question, beside, settings, claimed=claimed)
            assert not isinstance(consent, Reask), "a consent is never invalid"
            return cast("R", consent)
        taken = await take(call, question, settings, response, pending.attempt, self.via)
        if isinstance(taken, Reask):
            await self._send(taken.question, taken.text, taken.attempt, None)
        return taken

    async def _beside(
        self, question: Question[R], beside: Beside, settings: Settings, *, claimed: bool = False
    ) -> R:
        """After consent: take the answer beside the client once, and have it held while the call goes on.

        `claimed`: this run claimed the round that brought the consent (see `Beside.take`).

        Raises:
            ElicitationTimeout: If the answer did not come in time, or the call is past its deadline.
            InputRequired: To end a round while the answer has not come yet (`requestState` only).
            RoundRefused: If the answer was taken by another round, or its call has ended already.
        """
        call = self.call
        self._check_call(question, clock.now())
        found, record = await beside.take(
            beside.poll_seconds, call.started + call.policy.call_timeout, call.function, claimed=claimed
        )
        if found is None:
            if clock.now() >= beside.expires_at:
                raise ElicitationTimeout.page_not_submitted(
                    question.subject, settings.timeout, poll_seconds=beside.poll_seconds
                )
            raise InputRequired(InputRequiredResult(request_state=call.state().encode()))
        call.pages[question.key] = record
        return await take_beside(call, question, settings, found)

    async def _send(
        self, question: Question[Any], text: str, attempt: int, pending: Pending | None
    ) -> NoReturn:
        """End this round with an `InputRequiredResult` holding every question pending now.

        `pending` is the record of a question asked before and not yet answered: it is
        kept as is (asked time, attempt, round id). Otherwise the question is asked now,
        as attempt `attempt`, in a fresh round.
        """
        call = self.call
        params = question.params(text, with_id=False)  # 2026-07-28 URL requests carry no elicitationId
        await asked(call, question, params, attempt, self.via)
        self._round.append((fresh(question, attempt, pending), ElicitRequest(params=params)))
        # Let concurrent questions of this call (a task group, `elicit_all`) register too:
        # the round ends with every question pending now, each under its own stable key. Its
        # result is built once, from the fullest round, when the round is settled.
        await anyio.lowlevel.checkpoint()
        raise InputRequired(build=self._result, size=len(self._round))

    def _result(self) -> InputRequiredResult:
        """The round's result: every question registered in it, and the state the call carries on."""
        first, *others = (sent for sent, _ in self._round)
        requests: dict[str, InputRequest] = {sent.question.key: request for sent, request in self._round}
        state = self.call.state(first, tuple(others))
        return InputRequiredResult(input_requests=requests, request_state=state.encode())

    def _check_in_time(
        self, question: Question[Any], pending: Pending, timeout: float, *, answered: bool
    ) -> None:
        """Raise `ElicitationTimeout` if the pending question, or the call, has run out of time.

        Checked when a round answers the question and when it only refreshes it, so a
        question past its timeout, or a call past its `call_timeout`, can never be
        answered, however often it is refreshed.
        """
        now = clock.now()
        waited = now - pending.asked_at
        if waited > timeout:
            raise ElicitationTimeout.too_late(
                question.subject, timeout, waited, question.asker, answered=answered
            )
        self._check_call(question, now)

    def _check_call(self, question: Question[Any], now: float) -> None:
        """Raise `ElicitationTimeout` if the call has outlived its `call_timeout` by `now`."""
        call = self.call
        limit, age = call.policy.call_timeout, now - call.started
        if age > limit:
            raise ElicitationTimeout.call_expired(call.function, question.subject, limit, age)

    async def _claim(self, pending: Pending, timeout: float) -> bool:
        """Claim the pending round's id, so that the round takes one answer (single-use rounds).

        Returns:
            Whether this run claimed it (False: rounds are not single use here).

        Raises:
            RoundRefused: If the round was answered already; the client gets -32602.
        """
        call = self.call
        if not call.policy.single_use_rounds:
            return False
        # The round cannot be answered after this (`_check_in_time`), so its id need not be kept longer.
        last = min(pending.asked_at + timeout, call.started + call.policy.call_timeout)
        if not await store_for(call.sdk.mcp_server).claim(f"round:{pending.round}", last + CLAIM_MARGIN):
            raise RoundRefused(call.function)
        return True

    def _check_state_ttl(self, question: Question[Any], timeout: float) -> None:
        """Refuse to ask a question whose timeout outlives the server's request state.

        Raises:
            ElicitArgumentError: If the finite `timeout` exceeds the state's TTL, naming the fix.
        """
        call = self.call
        if math.isinf(timeout) or (call.policy.timeout is None and timeout == get_default_timeout()):
            # The process-wide default was checked by `set_default_timeout()` (a warning); a
            # server with a deliberately short ttl still asks, and an answer within it works.
            return
        security = request_state_security(call.sdk.mcp_server)
        if security is not None and timeout > security.ttl:
            raise ElicitArgumentError.longer_than_state(question.asker, call.function, timeout, security.ttl)


class ModelAsker(ReplayAsker):
    """A call the fallback's companion tool runs again: replays the record, asks forms through the model."""

    __slots__ = ()

    via: ClassVar[Via] = "fallback"
    travel: ClassVar[Travel] = "model"

    def _check_state_ttl(self, question: Question[Any], timeout: float) -> None:
        """The fallback's token has its own lifetime: no request state to outlive."""

    async def _send(
        self, question: Question[Any], text: str, attempt: int, pending: Pending | None
    ) -> NoReturn:
        """End the call with a result that hands `question` to the model."""
        await to_the_model(self.call, question, text, "", attempt=attempt, pending=pending)


def _position(question: Question[Any]) -> int:
    """The 0-based position of `question` among its call's questions (from its key `q<n>`)."""
    return int(question.key[1:])
