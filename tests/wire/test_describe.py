"""A field shown to a person: one description per field kind for every reader, its range, an example value."""

from __future__ import annotations

from typing import Any

import pytest

from tests.wire.test_spec import EveryKind
from typed_elicit import reduce_schema
from typed_elicit.client._handler import parse_requested_schema


def _spec(prop: dict[str, Any], *, required: bool = False) -> Any:
    schema = {"type": "object", "properties": {"x": prop}, "required": ["x"] if required else []}
    return parse_requested_schema(schema).fields[0]


@pytest.mark.parametrize(
    ("prop", "required", "line", "person"),
    [
        (
            {"type": "string", "title": "City", "minLength": 1},
            True,
            "x (City): string, required, at least 1 character",
            "text",
        ),
        (
            {"type": "string", "format": "email", "maxLength": 2, "description": "Work"},
            False,
            "x: string (email), optional, at most 2 characters. Work",
            "email",
        ),
        (
            {"type": "integer", "minimum": 1, "maximum": 30, "default": 2},
            False,
            "x: integer, optional, at least 1, at most 30, default 2",
            "whole number",
        ),
        (
            {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 0.5},
            True,
            "x: number, required, more than 0, less than 0.5",
            "number",
        ),
        ({"type": "boolean", "default": False}, False, "x: boolean, optional, default false", "yes/no"),
        (
            {"type": "string", "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "L"}]},
            True,
            'x: one of: "s" (Small), "l" (L), required',
            "one of the options",
        ),
        (
            {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}, "minItems": 1, "maxItems": 1},
            False,
            'x: a list of any of: "a", "b", optional, at least 1 item, at most 1 item',
            "any of the options",
        ),
    ],
)
def test_one_description_of_each_field_kind_for_every_reader(prop, required, line, person):
    from typed_elicit._wire.describe import describe

    about = describe(_spec(prop, required=required))
    assert str(about) == line
    assert about.person_kind == person


def test_the_fallback_and_the_terminal_describe_fields_with_describe():
    from typed_elicit._wire.describe import describe
    from typed_elicit.client._terminal import _type_text  # pyright: ignore[reportPrivateUsage]
    from typed_elicit.fallback._companion import describe_fields

    schema = reduce_schema(EveryKind)
    form = parse_requested_schema(schema)
    assert describe_fields(schema) == [str(describe(spec)) for spec in form.fields]
    for spec in form.fields:
        about = describe(spec)
        hint = _type_text(spec)
        assert hint.endswith("required" if about.required else "optional")
        assert all(limit in hint for limit in about.limits)


OPEN_RANGES = {
    "type": "object",
    "properties": {
        "ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
        "count": {"type": "integer", "exclusiveMinimum": 2.5, "maximum": 9, "exclusiveMaximum": 7},
        "when": {"type": "string", "format": "date-time"},
    },
    "required": ["ratio", "count", "when"],
}


def test_one_range_for_every_value_generator_with_exclusive_bounds_moved_inward():
    from typed_elicit._wire.describe import number_bounds

    ratio, count, _ = parse_requested_schema(OPEN_RANGES).fields
    assert number_bounds(ratio) == (5e-324, 0.9999999999999999)
    assert number_bounds(count) == (3, 6)


def test_the_demo_value_of_every_field_fits_it():
    from typed_elicit._wire.describe import example_value

    form = parse_requested_schema(OPEN_RANGES)
    assert form.content({spec.name: example_value(spec) for spec in form.fields}) == {
        "ratio": 0.5,
        "count": 4,
        "when": "2026-07-28T09:30:00Z",
    }
    every = parse_requested_schema(reduce_schema(EveryKind))
    for spec in every.fields:
        every.instance({"text": "abc", spec.name: example_value(spec)})  # raises if it does not fit


def test_hypothesis_answers_honour_exclusive_bounds():
    from hypothesis import given, settings

    from tests.conftest import examples
    from typed_elicit.testing import valid_answers

    form = parse_requested_schema(OPEN_RANGES)

    @settings(max_examples=examples(60), deadline=None, database=None)
    @given(valid_answers(OPEN_RANGES))
    def every_answer_fits(answer: dict[str, Any]) -> None:
        form.instance(answer)

    every_answer_fits()
