"""The root of the tree, its three branches, and the bounds every error's text keeps."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Final, TypeVar

from typed_elicit._core.text import escaped


class TypedElicitError(Exception):
    """Base class of every error typed_elicit raises.

    Each message says what failed, why, and how to fix it, and never quotes an answer.
    """


class DeclarationError(TypedElicitError):
    """The code declares or asks for something that cannot work: fix the code.

    Raised as early as it can be known: when a model is declared, when `@elicits`
    decorates, before a question is sent; never because of what a user answered.
    """


class NoAnswerError(TypedElicitError):
    """A question got no usable answer: carry on without it.

    The client cannot be asked, did not answer in time, answered with an error or with
    content that does not fit, or a hook failed; each subclass says which.
    """


class ServerStateError(TypedElicitError):
    """What a call carries between requests cannot be used: call the tool again to start afresh.

    A 2026-07-28 state that no longer fits the code, a fallback token that is not usable,
    or the store behind them that did not answer.
    """


MAX_PROBLEMS: Final = 20

"""An error lists at most this many problems; the last one then counts the rest (`bounded`)."""


MAX_PATH_LENGTH: Final = 64

"""Longest field path `InvalidResponse` keeps (a stray key is client-controlled text)."""


MAX_PROBLEM_LENGTH: Final = 200

"""Longest problem text `InvalidResponse` keeps (a model's own validator may quote the value)."""


T = TypeVar("T")


def bounded(problems: Iterable[T], shown: Callable[[T], T], counted: Callable[[str], T]) -> tuple[T, ...]:
    """At most `MAX_PROBLEMS` of `problems`, each as `shown` makes it; the last counts any others.

    The one bound on the problems an error lists (`InvalidResponse`, and the client's
    `RequestedSchemaError`). Only the kept problems are shown, however many there are.

    Args:
        problems: The problems, in order.
        shown: Makes one problem fit a message (cuts and escapes its texts).
        counted: Makes the last problem out of "and N more problems".

    Returns:
        The problems to keep.
    """
    kept: list[T] = []
    more = 0
    for problem in problems:
        if len(kept) < MAX_PROBLEMS:
            kept.append(shown(problem))
        else:
            more += 1
    if more:
        more += 1  # the last kept problem makes way for the count
        kept[-1] = counted(f"and {more} more problem{'s' if more != 1 else ''}")
    return tuple(kept)


def bounded_errors(errors: Iterable[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    """`errors` bounded as `InvalidResponse` promises; already bounded errors come back unchanged."""
    return bounded(
        errors,
        lambda error: (escaped(error[0], MAX_PATH_LENGTH), escaped(error[1], MAX_PROBLEM_LENGTH)),
        lambda more: ("(form)", more),
    )


def listed(what: str, count: int, problems: Iterable[str]) -> str:
    """`what (N problems):` and then one `  - problem` line each (`SchemaError`, `OptionsError`, ...)."""
    header = f"{what} ({count} problem{'s' if count != 1 else ''}):"
    return "\n".join([header, *(f"  - {p}" for p in problems)])


def either(options: Sequence[str]) -> str:
    """`a`, `a or b`, `a, b or c`."""
    return options[0] if len(options) == 1 else f"{', '.join(options[:-1])} or {options[-1]}"
