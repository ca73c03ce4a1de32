"""The one observer channel: what an asker reports about a question, and who listens.

An asker reports four things, and nothing else reaches an observer: a question sent and an
answer arrived, to the channel's `hooks` (`hooks.run_question_hooks`, `hooks.run_answer_hooks`:
a hook may rewrite the content), a re-ask after an invalid answer (`reask`), and time spent
waiting for the client (`wait`). Around the whole question, `reach.watched` opens its span.

Two listeners exist: the hooks of `add_hooks` and `@elicits(hooks=...)`, which hear questions and
answers, and the question's OpenTelemetry span (`typed_elicit._observe.telemetry`), which records
re-asks and waits. A call gets a channel with the listeners that apply to it (`Channel.of`); with
neither, the channel is falsy, and an asker reports nothing (no event is even built).
"""

from __future__ import annotations

from typing import Final

from typed_elicit._observe import telemetry
from typed_elicit._observe.hooks import ElicitHook, active_hooks


class Channel:
    """A call's observer channel: its hooks, in order, and whether its questions get a span."""

    __slots__ = ("hooks", "listeners", "traced")

    def __init__(self, hooks: tuple[ElicitHook, ...], *, traced: bool) -> None:
        self.hooks = hooks
        """The hooks that run: the process-wide ones, then the function's own."""
        self.traced = traced
        """Whether questions get a span (an OpenTelemetry provider is set)."""
        self.listeners = bool(hooks) or traced
        """Whether anyone listens: when nobody does, askers report nothing."""

    @classmethod
    def of(cls, own_hooks: tuple[ElicitHook, ...]) -> Channel:
        """The channel of a call whose function has `own_hooks`: who listens is decided here, once.

        Args:
            own_hooks: The decorated function's `@elicits(hooks=...)`.

        Returns:
            The channel; `SILENT` when nothing listens.
        """
        hooks = active_hooks(own_hooks)
        traced = telemetry.enabled()
        if not hooks and not traced:
            return SILENT
        return cls(hooks, traced=traced)

    def __bool__(self) -> bool:
        return self.listeners

    def reask(self, attempt: int, problems: int) -> None:
        """Add the `typed_elicit.reask` event to the span (the problems' count, never their text).

        Hooks see a re-ask as the next question they are sent.
        """
        if self.traced:
            telemetry.current().reask(attempt, problems)

    def wait(self, seconds: float) -> None:
        """Add `seconds` spent waiting for the client to the question's wait time (hooks are not told)."""
        if self.traced:
            telemetry.current().waited_more(seconds)


SILENT: Final = Channel((), traced=False)
"""The channel of a call nobody observes: falsy, so askers build no event at all."""
