"""The result union works with `match` at runtime, and is immutable."""

from __future__ import annotations

import dataclasses

import pytest
from pydantic import BaseModel

from typed_elicit import Accepted, Cancelled, Declined, ElicitResult


class Booking(BaseModel):
    date: str
    guests: int = 1


def describe(result: ElicitResult[Booking]) -> str:
    match result:
        case Accepted(Booking(date=d, guests=g)):
            return f"{d} for {g}"
        case Declined():
            return "declined"
        case Cancelled():
            return "cancelled"


@pytest.mark.parametrize(
    ("result", "expected"),
    [
        (Accepted(Booking(date="2026-12-01", guests=2)), "2026-12-01 for 2"),
        (Declined(), "declined"),
        (Cancelled(), "cancelled"),
    ],
)
def test_match_destructures_the_accepted_model(result: ElicitResult[Booking], expected: str) -> None:
    assert describe(result) == expected


def test_results_are_frozen_and_slotted() -> None:
    accepted = Accepted(Booking(date="d"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        accepted.data = Booking(date="e")  # type: ignore[misc]
    assert not hasattr(accepted, "__dict__")
    assert Accepted.__match_args__ == ("data",)


def test_results_compare_by_value() -> None:
    assert Accepted(Booking(date="d")) == Accepted(Booking(date="d"))
    assert Declined() == Declined()
    assert Declined() != Cancelled()


def test_results_cannot_be_subclassed_by_convention() -> None:
    assert getattr(Accepted, "__final__", False) is True
