"""An accepted answer re-validated against its model: nulls, options, booleans, and numbers."""

from __future__ import annotations

from typing import Literal

import pytest
from pydantic import BaseModel

from typed_elicit import reduce_schema
from typed_elicit._forms.validate import validate_content
from typed_elicit.errors import InvalidResponse, RequestedSchemaError


class Picks(BaseModel):
    picks: list[Literal["a", "b"]] = []


class Flag(BaseModel):
    on: bool = False


def test_validation_drops_nulls_and_checks_option_lists():
    schema = reduce_schema(Picks)
    assert validate_content(Picks, schema, {"picks": None}) == Picks()
    assert validate_content(Picks, schema, None) == Picks()
    with pytest.raises(InvalidResponse) as caught:
        validate_content(Picks, schema, {"picks": "a"})
    assert caught.value.errors == (("picks", "expected a list of options, got a string"),)
    assert caught.value.content == {"picks": "a"}


def test_a_schema_no_client_could_read_is_a_programmer_error_not_an_invalid_answer():
    schema = {"type": "object", "properties": {"picks": {"type": "array"}}}  # no items
    with pytest.raises(RequestedSchemaError, match=r"properties\.picks\.items"):
        validate_content(Picks, schema, {"picks": ["a"]})


def test_validation_rejects_string_booleans():
    schema = reduce_schema(Flag)
    with pytest.raises(InvalidResponse, match="on: expected true or false, got a string"):
        validate_content(Flag, schema, {"on": "true"})


class Amounts(BaseModel):
    amount: float = 0.0
    count: int = 0


AMOUNTS = {"type": "object", "properties": {"amount": {"type": "number"}, "count": {"type": "integer"}}}


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ({"amount": "nan"}, "amount: expected a number, got a string that is not a JSON number"),
        ({"amount": "NaN"}, "amount: expected a number, got a string that is not a JSON number"),
        ({"amount": "Infinity"}, "amount: expected a number, got a string that is not a JSON number"),
        ({"amount": "-inf"}, "amount: expected a number, got a string that is not a JSON number"),
        ({"count": " 7 "}, "count: expected a number, got a string that is not a JSON number"),
        ({"amount": "1_000"}, "amount: expected a number, got a string that is not a JSON number"),
        ({"count": "+1"}, "count: expected a number, got a string that is not a JSON number"),
        ({"count": "01"}, "count: expected a number, got a string that is not a JSON number"),
        ({"amount": "0x10"}, "amount: expected a number, got a string that is not a JSON number"),
        ({"amount": "1."}, "amount: expected a number, got a string that is not a JSON number"),
        ({"count": "\u0661"}, "count: expected a number, got a string that is not a JSON number"),
        ({"amount": float("nan")}, "amount: expected a finite number, got NaN or an infinity"),
        ({"amount": float("inf")}, "amount: expected a finite number, got NaN or an infinity"),
        ({"amount": "1e400"}, "amount: expected a number a 64-bit float can hold"),
        ({"count": 2.5}, "count: expected a whole number, got a fraction"),
        ({"count": "2.5"}, "count: expected a whole number, got a fraction"),
        ({"amount": True}, "amount: expected a number, got a boolean"),
        ({"count": [1]}, "count: expected a number, got a list"),
        ({"count": "9" * 5000}, "count: expected a number a 64-bit float can hold"),
    ],
)
def test_number_fields_take_only_finite_json_numbers(content, problem):
    with pytest.raises(InvalidResponse) as caught:
        validate_content(Amounts, AMOUNTS, content)
    assert problem in str(caught.value)
    assert caught.value.content == content


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ({"amount": "42", "count": "42"}, Amounts(amount=42, count=42)),
        ({"amount": "-1.5e3", "count": "-0"}, Amounts(amount=-1500.0, count=0)),
        ({"amount": "0.25", "count": "1e3"}, Amounts(amount=0.25, count=1000)),
        ({"amount": 7, "count": 2.0}, Amounts(amount=7.0, count=2)),
        ({"count": "2.0"}, Amounts(count=2)),
    ],
)
def test_strings_in_the_json_number_grammar_count_as_numbers(content, expected):
    assert validate_content(Amounts, AMOUNTS, content) == expected


@pytest.mark.parametrize(
    "value",
    [
        "42",
        "-1.5e3",
        "1e3",
        "2.0",
        2.0,
        2.5,
        7,
        " 7 ",
        "1_000",
        "+1",
        "01",
        "nan",
        "Infinity",
        float("nan"),
        float("-inf"),
        "1e400",
        True,
        False,
        None,
        [1],
        "2.5",
    ],
)
@pytest.mark.parametrize("kind", ["number", "integer"])
def test_both_ends_judge_a_number_alike(kind, value):
    from typed_elicit._wire.spec import check_value
    from typed_elicit.client import parse_requested_schema
    from typed_elicit.errors import InvalidResponse as InvalidResponse

    schema = {"type": "object", "properties": {"x": {"type": kind}}, "required": ["x"]}
    (spec,) = parse_requested_schema(schema).fields
    try:
        sent = check_value(spec, value)
    except InvalidResponse:
        sent = None
    field = "amount" if kind == "number" else "count"
    server_schema = {"type": "object", "properties": {field: {"type": kind}}}
    try:
        received = getattr(validate_content(Amounts, server_schema, {field: value}), field)
    except InvalidResponse:
        received = None
    if value is None:  # null means "left out" on the server; the client refuses it for a required field
        return
    assert (sent is None) == (received is None), f"client sent {sent!r}, server read {received!r}"
    if sent is not None:
        assert sent == received
