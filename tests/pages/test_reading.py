"""Reading one submitted field: what a browser sent for an input, as its field's wire value or a problem."""

from __future__ import annotations

from typing import Any

import pytest

from typed_elicit._views.words import PAGE_WORDS
from typed_elicit._wire.parse import parse_requested_schema
from typed_elicit._wire.spec import FieldSpec
from typed_elicit.pages._reading import LEFT_OUT, read_leaf


def spec_of(prop: dict[str, Any], *, required: bool = True) -> FieldSpec:
    schema = {"type": "object", "properties": {"x": prop}, "required": ["x"] if required else []}
    return parse_requested_schema(schema).fields[0]


def read(prop: dict[str, Any], *values: str, required: bool = True) -> tuple[Any, str | None]:
    return read_leaf(spec_of(prop, required=required), list(values), PAGE_WORDS)


@pytest.mark.parametrize(("sent", "ticked"), [("on", True), ("TRUE", True), ("1", True), ("off", False)])
def test_a_check_box_reads_as_ticked_or_not(sent: str, ticked: bool) -> None:
    assert read({"type": "boolean"}, sent) == (ticked, None)


def test_an_unticked_check_box_that_sent_nothing_reads_as_not_ticked() -> None:
    assert read({"type": "boolean"}) == (False, None)


def test_a_check_box_that_says_something_else_is_told_in_words() -> None:
    assert read({"type": "boolean"}, "maybe") == (LEFT_OUT, PAGE_WORDS["boolean"])


@pytest.mark.parametrize(("sent", "value"), [("42", 42), (" 7 ", 7), ("4.0", 4), ("1e3", 1000), ("-0", 0)])
def test_a_whole_number_reads_as_an_int(sent: str, value: int) -> None:
    got, problem = read({"type": "integer"}, sent)
    assert (got, type(got), problem) == (value, int, None)


@pytest.mark.parametrize("sent", ["4.5", "four", "nan", "inf", "1e400"])
def test_what_is_no_whole_number_is_told_in_words(sent: str) -> None:
    assert read({"type": "integer"}, sent) == (LEFT_OUT, PAGE_WORDS["integer"])


def test_a_number_reads_as_a_float_and_text_is_told_in_words() -> None:
    assert read({"type": "number"}, " 2.5 ") == (2.5, None)
    assert read({"type": "number"}, "two") == (LEFT_OUT, PAGE_WORDS["number"])


def test_a_formatted_text_is_checked_in_its_format() -> None:
    assert read({"type": "string", "format": "email"}, "ada@example.com") == ("ada@example.com", None)
    assert read({"type": "string", "format": "email"}, "ada") == (LEFT_OUT, PAGE_WORDS["email"])


def test_an_empty_field_is_left_out_and_the_last_value_sent_counts() -> None:
    assert read({"type": "string"}, "") == (LEFT_OUT, None)
    assert read({"type": "integer"}) == (LEFT_OUT, None)
    assert read({"type": "string"}, "first", "last") == ("last", None)


def test_a_multi_select_reads_every_option_picked_and_an_optional_one_left_empty_is_left_out() -> None:
    prop = {"type": "array", "items": {"type": "string", "enum": ["a", "b", "c"]}}
    assert read(prop, "a", "", "c") == (["a", "c"], None)
    assert read(prop, required=True) == ([], None)
    assert read(prop, required=False) == (LEFT_OUT, None)
