"""How a question travels: the asker protocol, its askers, and which one a call gets.

`ElicitContext` chooses one asker per call, from the negotiated era, and hands it every
question; nothing else looks at the era. The askers:

- `PushAsker` (`push`): 2025-06-18 and 2025-11-25, an `elicitation/create` request per question;
- `ReplayAsker` (`replay`): 2026-07-28, an `InputRequiredResult` round, answered on the retry;
- `ModelAsker` (`replay`): a call the fallback's companion tool runs again, asking through the model;
- `UnreachableAsker` (here): no elicitation era at all (outside a request, or an older protocol).

`choose` picks one of them; `reach` (`reach`) decides whether the client can be sent a question.
"""

from __future__ import annotations

from typing import Any, Protocol

from mcp.server.mcpserver import Context

from typed_elicit._calls.call import Call
from typed_elicit._calls.plugs import Resume
from typed_elicit._calls.policy import Settings
from typed_elicit._calls.push import PushAsker
from typed_elicit._calls.questions import Question, R
from typed_elicit._calls.reach import reach, watched
from typed_elicit._calls.refusal import refuse
from typed_elicit._calls.replay import ModelAsker, ReplayAsker
from typed_elicit._calls.state import ReplayState
from typed_elicit._core.eras import uses_input_required


class Asker(Protocol):
    """How one call asks; every question of the call goes through it (a new way is a new asker)."""

    async def ask(self, question: Question[R], settings: Settings, /) -> R:
        """Ask `question` and return its typed result (or end the round or the call)."""
        ...

    async def complete(self, elicitation_id: str, /) -> bool:
        """Announce that a URL question's out-of-band flow finished; whether anything was sent."""
        ...


def choose(call: Call, sdk: Context[Any, Any], resume: Resume | None) -> Asker:
    """The call's asker, chosen once: through the model, by rounds, by requests, or none.

    In a traced call (an OpenTelemetry provider is set) each asks a question inside its span
    (`reach.watched`).
    """
    if resume is not None:
        assert resume.state.pending is not None, "a fallback token always holds its pending question"
        responses = {resume.state.pending.question.key: resume.response}
        return ModelAsker(call, resume.state, responses)
    if call.era is None:
        return UnreachableAsker(call)
    if uses_input_required(call.era):
        state = ReplayState.decode(sdk.request_state)
        return ReplayAsker(call, state, dict(sdk.input_responses or {}))
    return PushAsker(call)


class UnreachableAsker:
    """The asker of a call with no elicitation era: outside a request, or a protocol before 2025-06-18."""

    __slots__ = ("call",)

    def __init__(self, call: Call) -> None:
        self.call = call

    async def ask(self, question: Question[R], settings: Settings, /) -> R:
        """The question's `on_unsupported` outcome; `"fallback"` hands a form to the model in a request.

        Raises:
            ElicitationUnsupported: If the policy gives no outcome.
            FallbackRequired: If the question goes to the model (internal signal).
        """
        call = self.call
        reason = reach(call, question, "none")
        assert reason is not None, "a call without an era reaches no client"
        return await watched(call, question, refuse(call, question, settings, reason), None)

    async def complete(self, elicitation_id: str, /) -> bool:
        """Nothing to announce: no URL question was sent."""
        return False
