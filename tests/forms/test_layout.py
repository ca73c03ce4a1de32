"""A whole model laid out: required fields, no title or dialect unless asked, every bad field told at once."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from pydantic import BaseModel, create_model

from tests.forms.test_fields import Address
from tests.spec_check import assert_spec_valid
from typed_elicit import PROTOCOL_VERSIONS, TypedElicitError, form, reduce_schema
from typed_elicit.errors import SchemaError


@pytest.mark.parametrize("version", PROTOCOL_VERSIONS)
def test_optional_field_is_left_out_of_required_without_null_or_anyof(version: str) -> None:
    class M(BaseModel):
        name: str
        nick: str | None = None
        age: int | None = None

    schema = reduce_schema(M, protocol_version=version)
    assert_spec_valid(schema, version)
    assert schema["required"] == ["name"]
    assert schema["properties"]["nick"] == {"type": "string"}
    assert schema["properties"]["age"] == {"type": "integer"}


@pytest.mark.parametrize("version", PROTOCOL_VERSIONS)
def test_schema_has_no_top_level_title_and_no_dialect_unless_asked(version: str) -> None:
    class Booking(BaseModel):
        """A booking."""

        name: str

    schema = reduce_schema(Booking, protocol_version=version)
    assert set(schema) == {"type", "properties", "required"}
    with_dialect = reduce_schema(Booking, protocol_version=version, include_dialect=True)
    assert with_dialect["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert_spec_valid(with_dialect, version, dialect=True)


def test_a_model_without_fields_is_rejected() -> None:
    with pytest.raises(SchemaError, match="Empty: a model without fields asks nothing"):

        @form
        class Empty(BaseModel):
            pass


def test_a_bad_model_fails_at_definition_with_one_error_naming_every_bad_field() -> None:
    with pytest.raises(SchemaError) as caught:

        @form
        class Booking(BaseModel):
            name: str
            address: Address
            tags: list[str]
            when: date
            password: str

    error = caught.value
    assert isinstance(error, TypeError)
    assert isinstance(error, TypedElicitError)
    assert error.model_name == "Booking"
    assert [p.split(":")[0] for p in error.problems] == [
        "Booking.address",
        "Booking.tags",
        "Booking.password",
    ]
    assert str(error).startswith(
        "Booking cannot be elicited (3 problems):\n  - Booking.address: nested model"
    )


def test_form_rejects_non_models_with_a_clear_type_error() -> None:
    with pytest.raises(TypeError, match=r"pydantic\.BaseModel subclasses, not <class 'int'>"):
        form(int)  # type: ignore[type-var]


@pytest.mark.parametrize("page", [False, True], ids=["form", "page"])
def test_a_model_with_too_many_fields_is_refused_with_its_bad_fields_named_too(page: bool) -> None:
    fields: dict[str, Any] = {f"q{i}": (bool, ...) for i in range(201)}
    model = create_model("Survey", bad=(dict[str, list[int]], ...), **fields)
    with pytest.raises(SchemaError) as caught:
        form(page=page)(model)
    whole, field = caught.value.problems
    assert whole.startswith("Survey: 202 fields are more than the 200 clients accept")
    assert field.startswith("Survey.bad: ")
