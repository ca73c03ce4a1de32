"""The push asker (2025-06-18, 2025-11-25): each question is an `elicitation/create` request.

The server sends the request during the tool call and waits for the client's result; an
invalid answer is asked again, stating the problems, while `retries` allow (`answer.take`).
A question answered beside the client (a page, `Beside`) sends its consent request and
watches for the answer at the same time: some clients (the MCP Inspector) hold their reply
to a URL request until the flow is done, so the completion notification goes out as soon as
the answer comes, and the two may come in either order. A client that cannot be asked gets
the refusal path (`refusal`).
"""

from __future__ import annotations

import math
import time
from typing import Any, cast

import anyio
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp.shared.message import ServerMessageMetadata
from mcp_types import REQUEST_TIMEOUT, ElicitRequest, ElicitRequestParams
from mcp_types import ElicitResult as WireResult
from pydantic import ValidationError

from typed_elicit._calls.answer import Reask, asked, take, take_beside
from typed_elicit._calls.call import Call
from typed_elicit._calls.policy import Settings
from typed_elicit._calls.questions import Beside, Question, R, Reply
from typed_elicit._calls.reach import reach, watched
from typed_elicit._calls.refusal import refuse
from typed_elicit._core.eras import has_elicit_complete
from typed_elicit._core.results import Consented
from typed_elicit._observe.heartbeat import Heartbeat, progress_token
from typed_elicit.errors import ClientError, ElicitationTimeout, InvalidResponse


class PushAsker:
    """Asks by sending `elicitation/create` and waiting for the result."""

    __slots__ = ("call",)

    def __init__(self, call: Call) -> None:
        self.call = call

    async def complete(self, elicitation_id: str, /) -> bool:
        """Send `notifications/elicitation/complete` (2025-11-25 has it; 2025-06-18 has no URL mode)."""
        call = self.call
        assert call.era is not None, "a push asker serves a negotiated era"
        if not has_elicit_complete(call.era):
            return False
        await call.sdk.session.send_elicit_complete(elicitation_id, related_request_id=call.sdk.request_id)
        return True

    async def ask(self, question: Question[R], settings: Settings, /) -> R:
        """Ask `question` now: send it, and again with the problems stated while its answers are invalid.

        A question the client can be sent, in a call nobody observes (no hooks, no tracing, no
        progress heartbeats), waits in this one frame: a call holds one per pending question,
        so it is kept small (`_ask` does the rest).

        Raises:
            ElicitationUnsupported: If the client cannot be asked and the policy says so.
            ElicitationTimeout: If no answer arrived within `settings.timeout`.
            ClientError: If the client answered with a JSON-RPC error.
            InvalidResponse: If the answers stay invalid past `settings.retries`.
            FallbackRequired: If the question goes to the model (internal signal).
        """
        call = self.call
        request = call.request
        if request is None or _observed(call, request) or question.beside is not None:
            return await watched(call, question, self._ask(question, settings), None)
        if reach(call, question, "push") is not None:
            return await self._ask(question, settings)
        text, attempt = question.message, 0
        while True:
            try:
                wire = await request.session.send_request(
                    ElicitRequest(params=question.params(text)),
                    WireResult,
                    request_read_timeout_seconds=None if math.isinf(settings.timeout) else settings.timeout,
                    metadata=ServerMessageMetadata(related_request_id=request.request_id),
                )
            except MCPError as exc:
                raise _failed(question, exc, settings.timeout) from (None if _timed_out(exc) else exc)
            except ValidationError:
                raise InvalidResponse.malformed_result(question.subject) from None
            taken = await take(call, question, settings, wire, attempt, "client")
            if not isinstance(taken, Reask):
                return taken
            question, text, attempt = taken.question, taken.text, taken.attempt

    async def _ask(self, question: Question[R], settings: Settings) -> R:
        """`ask` for every case: refused, answered beside the client, or observed (hooks, traces, beats)."""
        call = self.call
        reason = reach(call, question, "push")
        if reason is not None:
            return await refuse(call, question, settings, reason)
        beside = question.beside
        if beside is not None:
            return await self._beside(question, beside, settings)
        request = call.request
        assert request is not None, "reach() answered, so this runs inside a request"
        # Heartbeats only when the client asked for progress; wait times only when traced.
        meta = request.meta
        beat = call.policy.heartbeat if meta and progress_token(meta) is not None else None
        channel = call.channel
        text = question.message
        attempt = 0
        while True:
            params = question.params(text)
            if channel.listeners:
                await asked(call, question, params, attempt, "client")
            if beat is None and not channel.traced:
                wire = await self._send(question, params, settings.timeout)
            else:
                wire = await self._send_beating(request, question, params, settings.timeout, beat)
            taken = await take(call, question, settings, wire, attempt, "client")
            if not isinstance(taken, Reask):
                return taken
            question, text, attempt = taken.question, taken.text, taken.attempt

    async def _beside(self, question: Question[R], beside: Beside, settings: Settings) -> R:
        """Send the consent request while watching for the answer beside it; either may come first.

        A Decline or Cancel replied before the answer wins; an answer that comes first is taken,
        whatever the reply (even none within the timeout), through the one answer path.

        Raises:
            ElicitationTimeout: If neither the reply nor the answer came in time.
            StoreUnavailable: If the store failed while the page was watched.
        """
        call = self.call
        await beside.open(call.function)
        came: list[Reply] = []
        try:
            return await self._race(question, beside, settings, came)
        finally:
            if not came:  # declined, cancelled, timed out or failed: the page takes no answer any more
                with anyio.CancelScope(shield=True):
                    await beside.close()

    async def _race(self, question: Question[R], beside: Beside, settings: Settings, came: list[Reply]) -> R:
        """`_beside`'s race between the consent's reply and the answer; what came is put in `came`."""
        call = self.call
        failures: list[Exception] = []
        refused: R | None = None

        async with anyio.create_task_group() as group:

            async def watch() -> None:
                try:
                    answer = await beside.watch(settings.timeout)
                    if answer is not None:
                        came.append(answer)
                        await self.complete(beside.consent.elicitation_id)
                except Exception as exc:  # the store failed: the call fails with it
                    failures.append(exc)
                    group.cancel_scope.cancel()

            group.start_soon(watch)
            try:
                reply = await self._ask(beside.consent, settings)  # inside the question's span
            except ElicitationTimeout as exc:
                if not came:  # no reply and no answer: the consent's timeout
                    failures.append(exc)
                    group.cancel_scope.cancel()
            except Exception as exc:
                failures.append(exc)
                group.cancel_scope.cancel()
            else:
                if not came and not isinstance(reply, Consented):
                    refused = cast("R", reply)  # a Decline or Cancel before any answer
                    group.cancel_scope.cancel()
        if failures:
            raise failures[0]
        if refused is not None:
            return refused
        if not came:
            raise ElicitationTimeout.page_not_submitted(question.subject, settings.timeout)
        return await take_beside(call, question, settings, came[0])

    async def _send_beating(
        self,
        request: ServerRequestContext[Any, Any],
        question: Question[Any],
        params: ElicitRequestParams,
        timeout: float,
        beat: float | None,
    ) -> WireResult:
        """`_send` with progress heartbeats every `beat` seconds, its wait reported to the observers."""
        began = time.monotonic()
        try:
            async with Heartbeat(request.session, request.meta, beat):
                return await self._send(question, params, timeout)
        finally:
            self.call.channel.wait(time.monotonic() - began)

    async def _send(self, question: Question[Any], params: ElicitRequestParams, timeout: float) -> WireResult:
        """Send one `elicitation/create` request and wait for its result.

        Raises:
            ElicitationTimeout: If no result arrived within `timeout`.
            ClientError: If the client answered with any other JSON-RPC error.
            InvalidResponse: If the client's result is malformed.
        """
        request = self.call.request
        assert request is not None, "only sent inside a request (a negotiated era)"
        try:
            return await request.session.send_request(
                ElicitRequest(params=params),
                WireResult,
                request_read_timeout_seconds=None if math.isinf(timeout) else timeout,
                metadata=ServerMessageMetadata(related_request_id=request.request_id),
            )
        except MCPError as exc:
            raise _failed(question, exc, timeout) from (None if _timed_out(exc) else exc)
        except ValidationError:
            raise InvalidResponse.malformed_result(question.subject) from None


def _observed(call: Call, request: ServerRequestContext[Any, Any]) -> bool:
    """Whether hooks or tracing observe the call, or the client asked for progress (heartbeats)."""
    if call.channel.listeners:
        return True
    meta = request.meta
    return bool(meta) and progress_token(meta) is not None


def _timed_out(error: MCPError) -> bool:
    return error.code == REQUEST_TIMEOUT


def _failed(question: Question[Any], error: MCPError, timeout: float) -> Exception:
    """What a JSON-RPC error in reply to `question` becomes: `ElicitationTimeout` or `ClientError`."""
    subject = question.subject
    if _timed_out(error):
        return ElicitationTimeout.unanswered(subject, timeout, question.asker)
    named = subject if question.mode == "url" else f"the question for {subject}"
    return ClientError(named, error.code, error.message)
