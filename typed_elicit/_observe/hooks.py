"""Elicitation hooks: observe every question sent and every answer received, and rewrite answers.

A hook is any object with the two async methods of `ElicitHook` (subclass it to
inherit do-nothing defaults). Hooks run process-wide (`add_hooks`) and per
function (`@elicits(hooks=[...])`): the process-wide ones first, in the order
added, then the function's own, in the order given.

- `on_question(event)` runs each time a question is actually sent: pushed as
  `elicitation/create`, returned in an `InputRequiredResult`, or handed to the
  model by the fallback. A re-ask after an invalid answer is a new question
  (`attempt` counts them). A 2026-07-28 re-run that answers a question from the
  record sends nothing, so it runs no hook.
- `on_answer(event)` runs once per answer, when it arrives from the client (or
  through the fallback's companion tool), before the answer is validated. It
  returns `None` to keep the content, or a replacement dict (only for an
  accepted form answer); the next hook sees the replacement. On 2026-07-28 the
  content recorded for later rounds is the rewritten one, so replayed answers run
  no hook and stay rewritten.

A hook that raises, or returns something it may not, fails the call with
`HookError`, which names the hook's class, the stage and the exception's type only (its
text may quote an answer); the exception itself is the `__cause__`, on the server.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from pydantic import BaseModel

from typed_elicit._core.versions import ProtocolVersion
from typed_elicit.errors import ElicitArgumentError, HookError

Action = Literal["accept", "decline", "cancel"]


@dataclass(frozen=True, slots=True)
class QuestionEvent:
    """A question about to be sent (what `ElicitHook.on_question` receives).

    Attributes:
        function: The `__qualname__` of the decorated function asking.
        mode: `"form"` (`ctx.elicit`) or `"url"` (`ctx.elicit_url`).
        model: The model of a form question; None for a URL-mode question.
        message: The text the user reads (with the problems stated on a re-ask).
        schema: The `requestedSchema` sent, a private copy; None for a URL-mode question.
        url: The URL of a URL-mode question; None for a form.
        protocol_version: The negotiated era; None when the client has none
            (a fallback question on an older protocol).
        attempt: 0 for the first time this question is sent, n for the n-th re-ask.
        via: `"client"` (the protocol's own elicitation), `"fallback"` (relayed by the model), or
            `"page"` (an answer submitted on the server's own page; its event carries no content).
    """

    function: str
    mode: Literal["form", "url"]
    model: type[BaseModel] | None
    message: str
    schema: Mapping[str, Any] | None
    url: str | None
    protocol_version: ProtocolVersion | None
    attempt: int
    via: Literal["client", "fallback", "page"]


@dataclass(frozen=True, slots=True)
class AnswerEvent:
    """An answer as it arrived, before validation (what `ElicitHook.on_answer` receives).

    Attributes:
        question: The question it answers; for a re-ask, with its first message
            (the problems stated in the re-ask are not repeated).
        action: `"accept"`, `"decline"` or `"cancel"`, as the client sent it.
        content: The raw content (a private copy), or the previous hook's
            replacement; None when the client sent none.
    """

    question: QuestionEvent
    action: Action
    content: Mapping[str, Any] | None


class ElicitHook(Protocol):
    """Observes questions and answers; subclass it and override what you need.

    Both methods are async; the defaults do nothing.
    """

    async def on_question(self, event: QuestionEvent) -> None:
        """Called when a question is sent."""
        return None

    async def on_answer(self, event: AnswerEvent) -> dict[str, Any] | None:
        """Called when an answer arrives, before validation.

        Returns:
            None to keep the content, or the content to validate instead (accepted
            form answers only).
        """
        return None


_process_hooks: list[ElicitHook] = []


def add_hooks(*hooks: ElicitHook) -> None:
    """Run `hooks` for every question of every `@elicits` function in this process.

    They run before any function's own `hooks=`, in the order added.

    Raises:
        ElicitArgumentError: If a hook is already added.
    """
    for hook in hooks:
        if any(hook is present for present in _process_hooks):
            raise ElicitArgumentError(
                "add_hooks",
                "hooks",
                f"got a {type(hook).__qualname__} hook that is already added",
                "Add each hook once.",
            )
    _process_hooks.extend(hooks)


def remove_hooks(*hooks: ElicitHook) -> None:
    """Stop running `hooks` added with `add_hooks`.

    Raises:
        ElicitArgumentError: If a hook was not added (nothing is removed then).
    """
    for hook in hooks:
        if not any(hook is present for present in _process_hooks):
            raise ElicitArgumentError(
                "remove_hooks",
                "hooks",
                f"got a {type(hook).__qualname__} hook that was never added with add_hooks",
                "Remove only the hooks you added.",
            )
    _process_hooks[:] = [h for h in _process_hooks if not any(h is gone for gone in hooks)]


def active_hooks(own: tuple[ElicitHook, ...]) -> tuple[ElicitHook, ...]:
    """The hooks a question runs: the process-wide ones, then the function's own."""
    return (*_process_hooks, *own) if _process_hooks else own


def private(schema: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    """A deep copy, so that no hook can change a cached schema or the content being recorded."""
    return None if schema is None else copy.deepcopy(dict(schema))


async def run_question_hooks(hooks: tuple[ElicitHook, ...], event: QuestionEvent) -> None:
    """Run every hook's `on_question`.

    Raises:
        HookError: If a hook raises (naming the exception's type only; the exception is chained).
    """
    for hook in hooks:
        try:
            await hook.on_question(event)
        except Exception as exc:
            raise HookError.raised(hook, "on_question", type(exc)) from exc


async def run_answer_hooks(hooks: tuple[ElicitHook, ...], event: AnswerEvent) -> dict[str, Any] | None:
    """Run every hook's `on_answer` in turn; returns the content to validate.

    Raises:
        HookError: If a hook raises (naming the exception's type only; the exception is
            chained), returns content for an answer that carries none (decline, cancel,
            URL mode), or returns something other than a dict with string keys (named by
            its type, never its content).
    """
    content = None if event.content is None else dict(event.content)
    for hook in hooks:
        current = AnswerEvent(event.question, event.action, private(content))
        try:
            replaced = await hook.on_answer(current)
        except Exception as exc:
            raise HookError.raised(hook, "on_answer", type(exc)) from exc
        if replaced is None:
            continue
        if event.action != "accept" or event.question.mode == "url":
            raise HookError.returned(
                hook,
                "on_answer",
                f"content for a {event.question.mode} answer with action {event.action!r}, which "
                "carries none; return None there",
            )
        if not isinstance(replaced, dict):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise HookError.returned(
                hook, "on_answer", f"{type(replaced).__name__}, not None or a dict with string keys"
            )
        strays = [key for key in replaced if not isinstance(key, str)]  # pyright: ignore[reportUnnecessaryIsInstance]
        if strays:
            kind = type(strays[0]).__name__
            raise HookError.returned(
                hook, "on_answer", f"a dict with a key of type {kind}, not None or a dict with string keys"
            )
        content = dict(replaced)
    return content
