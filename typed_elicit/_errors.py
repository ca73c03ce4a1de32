"""Every error typed_elicit raises derives from `TypedElicitError`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final, Literal

from ._text import escaped


class TypedElicitError(Exception):
    """Base class of every error typed_elicit raises.

    Each message says what failed, why, and how to fix it.
    """


class SchemaError(TypedElicitError, TypeError):
    """A model cannot be elicited as declared.

    Raised when `@form` decorates the class (import time) or when `reduce_schema`
    first meets a model. The message lists every bad field, one per line, as
    `Model.field: what is wrong; how to fix it`.

    Attributes:
        model_name: The model's class name.
        problems: One line per bad field, in declaration order.
    """

    def __init__(self, model_name: str, problems: Sequence[str]) -> None:
        self.model_name = model_name
        self.problems = tuple(problems)
        count = len(self.problems)
        header = f"{model_name} cannot be elicited ({count} problem{'s' if count != 1 else ''}):"
        super().__init__("\n".join([header, *(f"  - {p}" for p in self.problems)]))


RETRY_ADVICE = "Pass retries=N to ctx.elicit to ask the user again with these problems stated."
"""What `InvalidResponse` advises unless its raiser knows better."""


MAX_PROBLEMS: Final = 20
"""`InvalidResponse` keeps at most this many problems; the last one then counts the rest."""
MAX_PATH_LENGTH: Final = 64
"""Longest field path `InvalidResponse` keeps (a stray key is client-controlled text)."""
MAX_PROBLEM_LENGTH: Final = 200
"""Longest problem text `InvalidResponse` keeps (a model's own validator may quote the value)."""


class InvalidResponse(TypedElicitError, ValueError):
    """The client accepted, but its content does not satisfy the model.

    Also raised when the client's result is not a valid elicitation result at all.

    The message names each bad field and its problem, never the answer's values: it is
    logged by the SDK (INFO) and shown to the model as the tool's error. Problem texts
    are bounded: at most `MAX_PROBLEMS` problems (the last counting any others), paths
    cut to `MAX_PATH_LENGTH` and texts to `MAX_PROBLEM_LENGTH` characters (ending in
    `...`), lone surrogates and other unprintable characters escaped. Only a model's own
    validator message can quote a value (typed_elicit's checks name the kind instead:
    "expected a number, got a string"); keep such messages value-free.

    Attributes:
        model_name: The model the answer was validated against.
        errors: One `(field path, message)` pair per problem, bounded as above.
        content: The raw content the client sent, unchanged: for the tool's own code only.
    """

    def __init__(
        self,
        model_name: str,
        errors: Iterable[tuple[str, str]],
        content: Mapping[str, Any] | None,
        *,
        advice: str = RETRY_ADVICE,
    ) -> None:
        """Build the error.

        Args:
            model_name: The model the answer was validated against.
            errors: One `(field path, message)` pair per problem.
            content: The raw content the client sent (kept as `content`, never shown).
            advice: The last sentence of the message: how to fix it.
        """
        self.model_name = model_name
        self.errors = _bounded(errors)
        self.content = content
        lines = "; ".join(f"{path}: {msg}" for path, msg in self.errors)
        super().__init__(
            f"the answer to {model_name} is invalid: {lines}. (The answer's values are not shown; "
            f"the tool reads them as InvalidResponse.content.) {advice}"
        )


def _bounded(errors: Iterable[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    """`errors` bounded as `InvalidResponse` promises; already bounded errors come back unchanged."""
    kept: list[tuple[str, str]] = []
    more = 0
    for path, text in errors:
        if len(kept) < MAX_PROBLEMS:
            kept.append((_shown(path, MAX_PATH_LENGTH), _shown(text, MAX_PROBLEM_LENGTH)))
        else:
            more += 1
    if more:
        more += 1  # the last kept problem makes way for the count
        kept[-1] = ("(form)", f"and {more} more problem{'s' if more != 1 else ''}")
    return tuple(kept)


def _shown(text: str, limit: int) -> str:
    """`text` with unprintable characters escaped, cut to `limit` characters (`_text.escaped`)."""
    return escaped(text, limit)


class ElicitationUnsupported(TypedElicitError):
    """The client did not declare the elicitation capability this question needs.

    Attributes:
        mode: The elicitation mode the question needed (`"form"` or `"url"`).
    """

    def __init__(self, message: str, *, mode: Literal["form", "url"] = "form") -> None:
        super().__init__(message)
        self.mode: Literal["form", "url"] = mode


class ClientError(TypedElicitError, RuntimeError):
    """The client answered a question with a JSON-RPC error instead of a result.

    This is the client's failure, not the user's answer (a timeout is
    `ElicitationTimeout` instead). The SDK's `MCPError` is the `__cause__`.

    Attributes:
        code: The client's JSON-RPC error code.
        client_message: The client's error message.
    """

    def __init__(self, question: str, code: int, client_message: str) -> None:
        """Build the error.

        Args:
            question: Which question failed, e.g. `"the question for Confirm"`.
            code: The client's JSON-RPC error code.
            client_message: The client's error message.
        """
        self.code = code
        self.client_message = client_message
        super().__init__(
            f"the client answered {question} with an error instead of a result (code {code}: "
            f"{client_message!r}). This is the client's failure, not the user's answer: catch "
            "ClientError to carry on without the answer, or retry the call."
        )


class ElicitationTimeout(TypedElicitError, TimeoutError):
    """The user did not answer in time, or a 2026-07-28 round's state expired."""


class ReplayMismatch(TypedElicitError, RuntimeError):
    """On a 2026-07-28 retry, the tool asked a different question than the one recorded.

    Between rounds the tool body runs again from the top; the code before each
    `ctx.elicit` must ask the same questions in the same order.
    """


class HookError(TypedElicitError, RuntimeError):
    """An elicitation hook raised, or returned something it may not.

    The hook's own exception, if any, is the `__cause__`. Nothing is retried: the
    question (or answer) the hook was looking at is abandoned and the call fails.

    Attributes:
        hook: The `repr` of the failing hook.
        stage: `"on_question"` or `"on_answer"`.
    """

    def __init__(self, hook: str, stage: str, problem: str) -> None:
        self.hook = hook
        self.stage = stage
        super().__init__(
            f"the elicitation hook {hook}.{stage} failed: {problem}. Fix the hook, or remove it "
            "(remove_hooks, or the hooks= of @elicits)."
        )


class FallbackNotInstalled(TypedElicitError, RuntimeError):
    """`on_unsupported="fallback"` was used on a server without the companion tool."""


class InvalidFallbackToken(TypedElicitError, ValueError):
    """A token handed to the fallback companion tool is unusable.

    It was tampered with, has expired, was already used, or is not for this server.
    """


class ElicitUsageError(TypedElicitError, RuntimeError):
    """typed_elicit is used in a way that cannot work; the message says how to fix it.

    Raised when the SDK meets a parameter annotated `ElicitContext` without
    `@elicits` (at registration), when `on_unsupported="fallback"` is set for a prompt
    or resource (before its body runs), when one call asks questions concurrently on
    2026-07-28, and when a function swallows the internal signal with which
    `ctx.elicit` ends a round (`except BaseException:` or a bare `except:`).
    """
