"""One pydantic field to one wire property: constraints the wire cannot carry told as hints."""

from __future__ import annotations

import re
from datetime import date, datetime, timezone
from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel, Field, SecretStr, StringConstraints

from tests.forms.test_options import ERAS, OPTIONS, Pick
from tests.spec_check import assert_spec_valid
from typed_elicit import Titles, form, reduce_schema
from typed_elicit.client import parse_requested_schema
from typed_elicit.errors import SchemaError

HINTS: list[tuple[str, Any, dict[str, Any], str | None]] = [
    ("pattern of digits", str, {"pattern": r"^[0-9]{6}$"}, "Must be 6 digits."),
    ("pattern of a digit range", str, {"pattern": r"^\d{4,6}$"}, "Must be 4 to 6 digits."),
    (
        "constr pattern",
        Annotated[str, StringConstraints(pattern=r"^x")],
        {},
        "Must be in the expected format.",
    ),
    (
        "compiled pattern",
        Annotated[str, StringConstraints(pattern=re.compile("a+"))],
        {},
        "Must be in the expected format.",
    ),
    (
        "pattern with examples",
        str,
        {"pattern": "^[A-Z]{2}$", "examples": ["DE", "FR", "NL"]},
        "For example: DE or FR.",
    ),
    (
        "pattern with a description",
        str,
        {"pattern": "^[A-Z]{2}$", "description": "A country code"},
        "A country code",
    ),
    ("int multiple_of", int, {"multiple_of": 5}, "Must be a multiple of 5."),
    ("float multiple_of", float, {"multiple_of": 0.25}, "Must be a multiple of 0.25."),
    ("float gt", float, {"gt": 0}, "Must be more than 0."),
    ("float lt", float, {"lt": 1.5}, "Must be less than 1.5."),
    (
        "float gt lt step",
        float,
        {"gt": 0, "lt": 1, "multiple_of": 0.5},
        "Must be more than 0, less than 1 and a multiple of 0.5.",
    ),
    ("date ge", date, {"ge": date(2026, 1, 1)}, "Must be on or after 2026-01-01."),
    (
        "date gt lt",
        date,
        {"gt": date(2026, 1, 1), "lt": date(2027, 1, 1)},
        "Must be after 2026-01-01 and before 2027-01-01.",
    ),
    ("date le", date, {"le": date(2026, 12, 31)}, "Must be on or before 2026-12-31."),
    (
        "datetime gt",
        datetime,
        {"gt": datetime(2026, 1, 1, tzinfo=timezone.utc)},
        "Must be after 2026-01-01T00:00:00+00:00.",
    ),
    ("int gt travels exactly", int, {"gt": 0, "lt": 10}, None),
    ("float ge travels", float, {"ge": 0, "le": 1}, None),
    ("str lengths travel", str, {"min_length": 1, "max_length": 3}, None),
    ("options need no hint", Literal["a", "b"], {}, None),
]


def hinted(annotation: Any, **field: Any) -> dict[str, Any]:
    model = type("H", (BaseModel,), {"__annotations__": {"x": annotation}, "x": Field(**field)})
    schema = reduce_schema(model)
    for version in ERAS:
        assert_spec_valid(reduce_schema(model, protocol_version=version), version)
    return schema["properties"]["x"]


@pytest.mark.parametrize(
    ("annotation", "field", "hint"), [row[1:] for row in HINTS], ids=[row[0] for row in HINTS]
)
def test_each_constraint_the_wire_cannot_carry_is_told_in_the_description(
    annotation: Any, field: dict[str, Any], hint: str | None
) -> None:
    assert hinted(annotation, **field).get("description") == hint


@pytest.mark.parametrize(
    ("description", "expected"),
    [
        ("Your code", "Your code. Must be a multiple of 5."),
        ("Your code.", "Your code. Must be a multiple of 5."),
        ("Your code: ", "Your code: Must be a multiple of 5."),
    ],
)
def test_a_hint_follows_the_fields_own_description(description: str, expected: str) -> None:
    assert hinted(int, multiple_of=5, description=description)["description"] == expected


def test_a_field_words_or_drops_its_own_hint() -> None:
    own = hinted(str, pattern=r"^[0-9]{6}$", json_schema_extra={"hint": "The 6 digits we emailed you."})
    assert own["description"] == "The 6 digits we emailed you."
    assert "description" not in hinted(str, pattern=r"^[0-9]{6}$", json_schema_extra={"hint": False})
    assert hinted(str, description="Code", json_schema_extra={"hint": False})["description"] == "Code"


@pytest.mark.parametrize(
    ("extra", "problem"),
    [
        ({"hint": True}, 'json_schema_extra={"hint": ...} takes a text'),
        ({"hint": " "}, 'json_schema_extra={"hint": ...} takes a text'),
        ({"hint": "x", "pattern": "a"}, "json_schema_extra cannot travel"),
    ],
)
def test_a_hint_setting_that_is_not_a_text_or_false_is_refused(extra: dict[str, Any], problem: str) -> None:
    with pytest.raises(SchemaError, match=re.escape(problem)):
        hinted(str, json_schema_extra=extra)


def test_a_hint_reaches_the_client_as_the_fields_description() -> None:
    spec = parse_requested_schema(reduce_schema(Pick, options=OPTIONS)).by_name["code"]
    assert spec.description == "Must be 6 digits."


class Address(BaseModel):
    street: str


REJECTED: list[tuple[str, Any, str]] = [
    (
        "nested model",
        Address,
        r"nested model Address cannot be elicited in form mode .*flatten it into primitive fields.*"
        r"ask on a page, which can: declare the model @form\(page=True\) and ask with ctx.elicit_page",
    ),
    (
        "dict",
        dict[str, int],
        r"dict\[str, int\] cannot be elicited.*declare one field per key.*a page can ask for key/value rows",
    ),
    ("bare dict", dict, "dict cannot be elicited"),
    ("free list", list[str], r"free-form lists \(list\[str\]\).*list\[Literal.*a page can ask for rows"),
    ("tuple", tuple[str, str], r"tuple\[str, str\] cannot be elicited, only multi-select options"),
    ("union", int | str, r"a union of several types \(int \| str\).*declare one type"),
    ("bytes", bytes, "bytes cannot be elicited.*an upload on a page with an UploadedFile field"),
    ("Any", Any, "Any cannot be elicited; declare a concrete type"),
    (
        "int enum values",
        Literal[1, 2],
        "option values must be strings on the wire, got 1, 2; use Literal of strings",
    ),
    ("SecretStr", SecretStr, "SecretStr holds a secret; form mode MUST NOT collect.*URL mode"),
    ("other types", complex, "complex cannot be elicited; use str, int"),
    ("Titles on a non-option", Annotated[str, Titles(a="A")], r"Titles\(\.\.\.\) applies to Literal or Enum"),
    (
        "missing title",
        Annotated[Literal["a", "b"], Titles(a="A")],
        r"Titles\(\.\.\.\) must name every option exactly once: no title for 'b'",
    ),
    (
        "unknown title",
        Annotated[Literal["a"], Titles(a="A", z="Z")],
        r"Titles\(\.\.\.\) must name every option exactly once: titles for unknown options 'z'",
    ),
]


@pytest.mark.parametrize(("row", "annotation", "message"), REJECTED, ids=[r[0] for r in REJECTED])
def test_inexpressible_fields_are_rejected_with_the_fix(row: str, annotation: Any, message: str) -> None:
    model = type("Form", (BaseModel,), {"__annotations__": {"x": annotation}})
    with pytest.raises(SchemaError, match=r"Form\.x: " + message):
        reduce_schema(model)


def test_nullable_field_without_default_is_an_error() -> None:
    with pytest.raises(SchemaError, match=r"M\.x: a nullable field needs a default.*X \| None = None"):

        @form
        class M(BaseModel):
            x: str | None


def test_json_schema_extra_is_rejected_because_it_cannot_travel() -> None:
    class M(BaseModel):
        x: str = Field(json_schema_extra={"pattern": "a"})

    with pytest.raises(SchemaError, match=r"M\.x: json_schema_extra cannot travel"):
        reduce_schema(M)
