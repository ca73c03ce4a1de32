"""`FieldShape`: a field's annotation unwrapped once, for the reducer and the page tree alike."""

from __future__ import annotations

import enum
from typing import Annotated, Literal, Optional, Union

import annotated_types as at
import pytest
from pydantic import BaseModel, Field

from typed_elicit import Titles, reduce_schema
from typed_elicit._forms.fieldinfo import FieldShape, field_shape, shape_of


@pytest.mark.parametrize("optional", [int | None, Optional[int], Union[None, int]])  # noqa: UP007, UP045
def test_an_optional_type_is_unwrapped_and_said_to_be_nullable(optional: object) -> None:
    assert shape_of(optional) == FieldShape(int, nullable=True)


def test_a_plain_type_is_kept_and_not_nullable() -> None:
    shape = shape_of(Literal["a", "b"])
    assert (shape.annotation, shape.nullable, shape.members) == (Literal["a", "b"], False, ())
    assert shape.options == ["a", "b"]


def test_annotated_metadata_is_flattened_after_the_fields_own_at_any_depth() -> None:
    shape = shape_of(Annotated[int, Field(ge=1), "note"] | None, [at.Le(9)])
    assert shape == FieldShape(int, True, (at.Le(9), at.Ge(1), "note"))


@pytest.mark.parametrize("union", [int | str, int | str | None])
def test_a_union_of_several_types_keeps_its_members_bare(union: object) -> None:
    shape = shape_of(union)
    assert shape.annotation is union
    assert shape.members == (int, str)
    assert shape.nullable is (union != int | str)


def test_a_discriminator_inside_annotated_is_found() -> None:
    class A(BaseModel):
        kind: Literal["a"]

    class B(BaseModel):
        kind: Literal["b"]

    shape = shape_of(Annotated[A | B, Field(discriminator="kind")] | None)
    assert (shape.members, shape.discriminator, shape.nullable) == ((A, B), "kind", True)


def test_a_lists_items_lose_annotated_only() -> None:
    titles = Titles(a="A")
    item = shape_of(list[Annotated[Literal["a"], titles]]).item
    assert item == FieldShape(Literal["a"], False, (titles,))
    assert shape_of(list[int | None]).item == FieldShape(int | None, False)
    assert shape_of(set).item is None
    assert shape_of(str).item is None


def test_enum_options_are_their_values_and_other_types_have_none() -> None:
    class Size(str, enum.Enum):
        S = "s"
        L = "l"

    assert shape_of(Size).options == ["s", "l"]
    assert shape_of(str).options is None


def test_a_pydantic_fields_shape_takes_its_metadata_and_discriminator() -> None:
    class M(BaseModel):
        n: Annotated[int, at.Interval(ge=1, le=5)] = 3

    assert field_shape(M.model_fields["n"]) == FieldShape(int, False, (at.Ge(1), at.Le(5)))


def test_grouped_and_nested_constraints_travel_on_the_wire() -> None:
    class M(BaseModel):
        n: Annotated[int, at.Interval(ge=1, le=5)] = 3
        m: Annotated[int, Field(ge=2)] | None = None

    properties = reduce_schema(M)["properties"]
    assert (properties["n"]["minimum"], properties["n"]["maximum"]) == (1, 5)
    assert properties["m"]["minimum"] == 2
