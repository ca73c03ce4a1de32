"""The one observer channel: what an asker reports about a question, and who listens.

An asker reports four things, and nothing else reaches an observer: a question sent
(`question`), an answer arrived (`answer`, whose content a listener may rewrite), a re-ask
after an invalid answer (`reask`), and time spent waiting for the client (`wait`). Around
the whole question, `reach.watched` opens the question's span.

Two listeners exist: `HookListener` runs the hooks of `add_hooks` and `@elicits(hooks=...)`,
`TraceListener` records on the question's OpenTelemetry span (`typed_elicit._observe.telemetry`).
A call gets a channel with the listeners that apply to it (`Channel.of`); with neither, the
channel is empty and falsy, and an asker reports nothing (no event is even built).
"""

from __future__ import annotations

from typing import Any, Final, Protocol

from typed_elicit._observe import telemetry
from typed_elicit._observe.hooks import (
    AnswerEvent,
    ElicitHook,
    QuestionEvent,
    active_hooks,
    run_answer_hooks,
    run_question_hooks,
)


class Listener(Protocol):
    """Who listens on the channel: each method gets what an asker reported."""

    async def on_question(self, event: QuestionEvent, /) -> None:
        """A question was sent (pushed, returned in a round, or handed to the model)."""
        ...

    async def on_answer(self, event: AnswerEvent, /) -> dict[str, Any] | None:
        """An answer arrived; returns its content, rewritten or as it came."""
        ...

    def on_reask(self, attempt: int, problems: int, /) -> None:
        """An invalid answer is being asked again, as attempt `attempt`, with `problems` problems."""
        ...

    def on_wait(self, seconds: float, /) -> None:
        """`seconds` were spent waiting for the client."""
        ...


class HookListener:
    """Runs elicitation hooks (`ElicitHook`): the process-wide ones, then the function's own."""

    __slots__ = ("hooks",)

    def __init__(self, hooks: tuple[ElicitHook, ...]) -> None:
        self.hooks = hooks

    async def on_question(self, event: QuestionEvent, /) -> None:
        """Run each hook's `on_question` (`HookError` if one fails)."""
        await run_question_hooks(self.hooks, event)

    async def on_answer(self, event: AnswerEvent, /) -> dict[str, Any] | None:
        """Run each hook's `on_answer` in turn; the content after the last one."""
        return await run_answer_hooks(self.hooks, event)

    def on_reask(self, attempt: int, problems: int, /) -> None:
        """Hooks see a re-ask as the next question they are sent."""

    def on_wait(self, seconds: float, /) -> None:
        """Hooks are not told about waits."""


class TraceListener:
    """Records on the current question's span: re-asks as events, waits as its wait time."""

    __slots__ = ()

    async def on_question(self, event: QuestionEvent, /) -> None:
        """The span is opened around the whole question (`reach.watched`), not per send."""

    async def on_answer(self, event: AnswerEvent, /) -> dict[str, Any] | None:
        """A span never records an answer; the content passes unchanged."""
        return None if event.content is None else dict(event.content)

    def on_reask(self, attempt: int, problems: int, /) -> None:
        """Add the `typed_elicit.reask` event (the problems' count, never their text)."""
        telemetry.current().reask(attempt, problems)

    def on_wait(self, seconds: float, /) -> None:
        """Add `seconds` to the question's wait time."""
        telemetry.current().waited_more(seconds)


_TRACE: Final = TraceListener()


class Channel:
    """A call's observer channel: its listeners, in order (hooks first, then the trace)."""

    __slots__ = ("listeners", "traced")

    def __init__(self, listeners: tuple[Listener, ...], *, traced: bool) -> None:
        self.listeners = listeners
        self.traced = traced
        """Whether questions get a span (an OpenTelemetry provider is set)."""

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
        listeners: tuple[Listener, ...] = (HookListener(hooks),) if hooks else ()
        return cls((*listeners, _TRACE) if traced else listeners, traced=traced)

    def __bool__(self) -> bool:
        return bool(self.listeners)

    async def question(self, event: QuestionEvent) -> None:
        """Report a question sent.

        Raises:
            HookError: If a hook fails.
        """
        for listener in self.listeners:
            await listener.on_question(event)

    async def answer(self, event: AnswerEvent) -> dict[str, Any] | None:
        """Report an answer arrived; returns its content as the listeners leave it.

        Raises:
            HookError: If a hook fails or returns what it may not.
        """
        content = None if event.content is None else dict(event.content)
        for listener in self.listeners:
            content = await listener.on_answer(AnswerEvent(event.question, event.action, content))
        return content

    def reask(self, attempt: int, problems: int) -> None:
        """Report a re-ask (attempt `attempt`, after an answer with `problems` problems)."""
        for listener in self.listeners:
            listener.on_reask(attempt, problems)

    def wait(self, seconds: float) -> None:
        """Report `seconds` spent waiting for the client."""
        for listener in self.listeners:
            listener.on_wait(seconds)


SILENT: Final = Channel((), traced=False)
"""The channel of a call nobody observes: empty, so askers build no event at all."""
