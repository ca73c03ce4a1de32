"""The three outcomes of a question: `Accepted[M] | Declined | Cancelled`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeAlias, TypeVar, final

from pydantic import BaseModel

M_co = TypeVar("M_co", bound=BaseModel, covariant=True)


@final
@dataclass(frozen=True, slots=True)
class Accepted(Generic[M_co]):
    """The user submitted the form; `data` is the validated model instance.

    Built for `match`: `case Accepted(Booking(date=d)):`.
    """

    data: M_co


@final
@dataclass(frozen=True, slots=True)
class Declined:
    """The user explicitly refused to answer."""


@final
@dataclass(frozen=True, slots=True)
class Cancelled:
    """The user dismissed the question without choosing."""


ElicitResult: TypeAlias = Accepted[M_co] | Declined | Cancelled
"""What `ctx.elicit(Model)` returns: match it exhaustively."""
