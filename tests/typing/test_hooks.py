"""Hook types: checked by mypy --strict and pyright strict in CI; never run."""

from __future__ import annotations

from typing import Any

from typing_extensions import assert_type

from typed_elicit import ElicitContext, elicits
from typed_elicit.hooks import AnswerEvent, ElicitHook, QuestionEvent, add_hooks


class Audit(ElicitHook):
    async def on_question(self, event: QuestionEvent) -> None:
        assert_type(event.attempt, int)

    async def on_answer(self, event: AnswerEvent) -> None:
        assert_type(event.question, QuestionEvent)


class Sanitise(ElicitHook):
    async def on_answer(self, event: AnswerEvent) -> dict[str, Any] | None:
        return None if event.content is None else dict(event.content)


class Structural:
    """Not a subclass: any object with both async methods is a hook."""

    async def on_question(self, event: QuestionEvent) -> None:
        return None

    async def on_answer(self, event: AnswerEvent) -> dict[str, Any] | None:
        return None


class Synchronous:
    def on_question(self, event: QuestionEvent) -> None:
        return None

    def on_answer(self, event: AnswerEvent) -> dict[str, Any] | None:
        return None


class ReturnsAString(ElicitHook):
    async def on_answer(self, event: AnswerEvent) -> str:  # type: ignore[override]  # pyright: ignore[reportIncompatibleMethodOverride]
        return "no"


def hooks_are_accepted_where_hooks_are_expected() -> None:
    add_hooks(Audit(), Sanitise(), Structural())


def a_synchronous_hook_is_rejected() -> None:
    add_hooks(Synchronous())  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType]


def events_are_frozen(event: QuestionEvent) -> None:
    event.attempt = 2  # type: ignore[misc]  # pyright: ignore[reportAttributeAccessIssue]


@elicits(hooks=[Audit(), Structural()], on_unsupported="fallback")
async def decorated(ctx: ElicitContext) -> str:
    return "ok"
