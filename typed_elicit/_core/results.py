"""The outcomes of a question.

A form question (`ctx.elicit`) ends as `Accepted[M] | Declined | Cancelled`; a URL-mode
question (`ctx.elicit_url`) as `Consented | Declined | Cancelled`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeAlias, TypeVar

from pydantic import BaseModel
from typing_extensions import final  # sets `__final__` on Python 3.10 too (typing's does from 3.11)

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
class Consented:
    """The user agreed to open the URL of a URL-mode question.

    Consent only: nothing the user does on that page travels back through the
    client, and consent does not mean they finished there. The server learns the
    outcome out of band (e.g. its own OAuth callback).
    """


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

UrlResult: TypeAlias = Consented | Declined | Cancelled
"""What `ctx.elicit_url(url, message)` returns: match it exhaustively."""
