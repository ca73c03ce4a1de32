"""The push asker (2025-06-18, 2025-11-25): each question is an `elicitation/create` request.

The server sends the request during the tool call and waits for the client's
result; an invalid answer is asked again, stating the problems, while `retries`
allow. A client that cannot be asked gets the question's `on_unsupported` policy,
and `"fallback"` hands it to the model (`_fallback.ask_the_model`).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, TypeVar

from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp.shared.message import ServerMessageMetadata
from mcp_types import REQUEST_TIMEOUT, ElicitRequest, ElicitRequestParams
from mcp_types import ElicitResult as WireResult
from pydantic import ValidationError

from typed_elicit._calls.call import Call
from typed_elicit._calls.policy import Settings
from typed_elicit._calls.questions import Question, out_of_retries, reask
from typed_elicit._calls.state import Pending, ReplayState, new_round
from typed_elicit._core import clock as _clock
from typed_elicit._core.results import ElicitResult, UrlResult
from typed_elicit._observe import telemetry as _telemetry
from typed_elicit._observe.heartbeat import Heartbeat, progress_token
from typed_elicit._observe.hooks import run_question_hooks
from typed_elicit.errors import ClientError, ElicitationTimeout, InvalidResponse
from typed_elicit.fallback._companion import ask_the_model

R = TypeVar("R", bound=ElicitResult[Any] | UrlResult)


class UnreachableAsker:
    """The asker of a call with no elicitation era: outside a request, or a protocol before 2025-06-18."""

    __slots__ = ("call",)

    def __init__(self, call: Call) -> None:
        self.call = call

    async def ask(self, question: Question[R], settings: Settings) -> R:
        """The question's `on_unsupported` outcome; `"fallback"` hands it to the model in a request.

        Raises:
            ElicitationUnsupported: If the policy is `"raise"` (or cannot apply).
            FallbackRequired: If the question goes to the model (internal signal).
        """
        version = self.call.sdk.protocol_version
        if version is None:
            reason = "it is not running inside a request"
        elif question.mode == "url":
            reason = f"the negotiated protocol {version} has no elicitation"
        else:
            reason = f"the negotiated protocol {version} has no elicitation (it starts with 2025-06-18)"
        in_request = version is not None
        return await refused(self.call, question, settings, reason, tool=in_request and self.call.in_tool)


async def refused(call: Call, question: Question[R], settings: Settings, reason: str, *, tool: bool) -> R:
    """What a question the client cannot be asked becomes: its policy's outcome, or the fallback.

    Raises:
        ElicitationUnsupported: If the policy is `"raise"` (or cannot apply).
        FallbackRequired: If a form question goes to the model (`"fallback"` in a request).
    """
    if question.mode == "form" and settings.on_unsupported == "fallback" and call.request is not None:
        pending = Pending(question=question.id, asked_at=_clock.now(), round=new_round())
        state = ReplayState(
            started=call.started,
            answers=call.answers(),
            pending=pending,
            once=dict(call.once),
            rounds=1,
            trace=_telemetry.traceparent_now(),
        )
        await ask_the_model(call, question, state, question.message, 0, reason)
    outcome = question.unsupported(settings.on_unsupported, reason, tool=tool)
    question.settle(call, outcome)
    return outcome


class PushAsker:
    """Asks by sending `elicitation/create` and waiting for the result."""

    __slots__ = ("call",)

    def __init__(self, call: Call) -> None:
        self.call = call

    async def ask(self, question: Question[R], settings: Settings) -> R:
        """Ask `question` now and return its typed result (see `ElicitContext.elicit`).

        Raises:
            ElicitationUnsupported: If the client cannot be asked and the policy says so.
            ElicitationTimeout: If no answer arrived within `settings.timeout`.
            ClientError: If the client answered with a JSON-RPC error.
            InvalidResponse: If the answers stay invalid past `settings.retries`.
            FallbackRequired: If the question goes to the model (internal signal).
        """
        call = self.call
        refusal = call.cannot_ask(question.mode)
        if refusal is not None:
            return await refused(call, question, settings, refusal, tool=call.in_tool)
        hooks = call.hooks
        request = call.request
        assert request is not None, "cannot_ask answered, so this runs inside a request"
        # Heartbeats only when the client asked for progress; the span only when tracing is on.
        meta = request.meta
        beat = call.policy.heartbeat if meta and progress_token(meta) is not None else None
        trace = _telemetry.current()
        text = question.message
        attempt = 0
        while True:
            params = question.params(text)
            event = call.event(question, params, attempt, "client") if hooks else None
            if event is not None:
                await run_question_hooks(hooks, event)
            if beat is None and trace is _telemetry.OFF:
                wire = await self._send(question, params, settings.timeout)
            else:
                wire = await self._send_beating(request, question, params, settings.timeout, beat, trace)
            try:
                question.check_size(wire, call.policy.max_answer_bytes)
                if event is not None:
                    # Answer events name a re-asked question by its base message, as on 2026-07-28.
                    if attempt:
                        event = dataclasses.replace(event, message=question.message)
                    wire = await call.answered(hooks, event, wire)
                outcome = question.outcome(wire.action, wire.content)
            except InvalidResponse as problem:
                if attempt >= settings.retries:
                    raise out_of_retries(problem, settings.retries) from None
                attempt += 1
                text = reask(question.message, problem)
                trace.reask(attempt, len(problem.errors))
                question = question.again(problem)
                continue
            call.answered_now(question, wire.action, question.kept(wire))
            return outcome

    async def _send_beating(
        self,
        request: ServerRequestContext[Any, Any],
        question: Question[Any],
        params: ElicitRequestParams,
        timeout: float,
        beat: float | None,
        trace: _telemetry.QuestionTrace,
    ) -> WireResult:
        """`_send` with progress heartbeats every `beat` seconds, and its wait added to `trace`."""
        began = _telemetry.monotonic()
        try:
            async with Heartbeat(request.session, request.meta, beat):
                return await self._send(question, params, timeout)
        finally:
            trace.waited_more(_telemetry.monotonic() - began)

    async def _send(self, question: Question[Any], params: ElicitRequestParams, timeout: float) -> WireResult:
        """Send one `elicitation/create` request and wait for its result.

        Raises:
            ElicitationTimeout: If no result arrived within `timeout`.
            ClientError: If the client answered with any other JSON-RPC error.
            InvalidResponse: If the client's result is malformed.
        """
        request = self.call.request
        assert request is not None, "only sent inside a request (a negotiated era)"
        subject = question.subject
        try:
            return await request.session.send_request(
                ElicitRequest(params=params),
                WireResult,
                request_read_timeout_seconds=None if math.isinf(timeout) else timeout,
                metadata=ServerMessageMetadata(related_request_id=request.request_id),
            )
        except MCPError as exc:
            if exc.code != REQUEST_TIMEOUT:
                named = subject if question.mode == "url" else f"the question for {subject}"
                raise ClientError(named, exc.code, exc.message) from exc
            raise ElicitationTimeout.unanswered(subject, timeout, question.asker) from None
        except ValidationError:
            raise InvalidResponse(
                subject,
                [("(result)", "the client's elicitation result is malformed")],
                None,
                advice=(
                    "This is the client's failure, not the user's answer, and is never asked again: "
                    "fix the client, or catch InvalidResponse to carry on without the answer."
                ),
            ) from None
