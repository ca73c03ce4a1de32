"""Checked by mypy --strict and pyright strict in CI; never run."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from typing_extensions import assert_never, assert_type

from typed_elicit import Accepted, Cancelled, Declined, ElicitResult, form, reduce_schema


@form
class Booking(BaseModel):
    date: str
    guests: int


def accepted_data_keeps_the_model_type(result: Accepted[Booking]) -> None:
    assert_type(result.data, Booking)


def exhaustive_match_narrows_every_arm(result: ElicitResult[Booking]) -> str:
    match result:
        case Accepted(Booking(date=d, guests=g)):
            assert_type(d, str)
            assert_type(g, int)
            return d
        case Declined():
            return "declined"
        case Cancelled():
            return "cancelled"
        case _:
            assert_never(result)


def exhaustive_isinstance_narrowing(result: ElicitResult[Booking]) -> int:
    if isinstance(result, Accepted):
        assert_type(result, Accepted[Booking])
        return result.data.guests
    if isinstance(result, Declined):
        return 0
    assert_type(result, Cancelled)
    return -1


def missing_arm_is_reported(result: ElicitResult[Booking]) -> str:
    match result:
        case Accepted(data):
            return data.date
        case Declined():
            return "declined"
        case _:
            assert_never(result)  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType]


def accepted_is_covariant(result: Accepted[Booking]) -> Accepted[BaseModel]:
    return result


def results_are_frozen(result: Accepted[Booking], other: Booking) -> None:
    result.data = other  # type: ignore[misc]  # pyright: ignore[reportAttributeAccessIssue]


def accepted_holds_models_only() -> None:
    Accepted(3)  # type: ignore[type-var]  # pyright: ignore[reportArgumentType]


def reduce_schema_takes_a_known_revision() -> None:
    assert_type(reduce_schema(Booking), dict[str, Any])
    reduce_schema(Booking, protocol_version="2025-06-18")
    reduce_schema(Booking, protocol_version="2024-11-05")  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType]
