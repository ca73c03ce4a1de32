"""The reducer's inverse: requested schemas in, checked forms and pydantic models out."""

from __future__ import annotations

import enum
from datetime import date
from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel, EmailStr, Field

from tests.wire.test_spec import EveryKind
from typed_elicit import PROTOCOL_VERSIONS, Titles, form, reduce_schema
from typed_elicit._forms.validate import validate_content
from typed_elicit._wire.spec import MAX_FIELDS, MAX_OPTIONS
from typed_elicit.client import (
    Option,
    RequestedSchemaError,
    model_from_schema,
    parse_requested_schema,
)
from typed_elicit.errors import InvalidResponse as InvalidResponse

CONTACT: dict[str, Any] = {
    "type": "object",
    "title": "Contact form",
    "properties": {
        "name": {"type": "string", "title": "Name", "minLength": 1, "maxLength": 20},
        "email": {"type": "string", "format": "email"},
        "age": {"type": "integer", "minimum": 0, "maximum": 150, "default": 25},
        "score": {"type": "number", "minimum": 0.5},
        "subscribe": {"type": "boolean", "default": False},
        "plan": {
            "type": "string",
            "oneOf": [{"const": "free", "title": "Free"}, {"const": "pro", "title": "Pro"}],
        },
        "size": {"type": "string", "enum": ["s", "m"], "enumNames": ["Small", "Medium"], "default": "m"},
        "tags": {
            "type": "array",
            "items": {"type": "string", "enum": ["a", "b", "c"]},
            "minItems": 1,
            "maxItems": 2,
        },
        "langs": {"type": "array", "items": {"anyOf": [{"const": "py", "title": "Python"}]}},
    },
    "required": ["name", "email"],
}


class Plan(str, enum.Enum):
    FREE = "free"
    PRO = "pro"


@form
class Signup(BaseModel):
    name: str = Field(min_length=1, title="Full name", description="As on your passport")
    email: EmailStr
    born: date | None = None
    seats: int = Field(default=1, ge=1, le=50)
    plan: Plan = Plan.FREE
    topics: list[Literal["news", "security"]] = Field(default_factory=list, max_length=2)
    terms: bool = False


def test_every_field_kind_is_read_with_its_title_constraints_and_default() -> None:
    spec = parse_requested_schema(CONTACT)
    by_name = {f.name: f for f in spec.fields}

    assert [f.name for f in spec.fields] == list(CONTACT["properties"])
    assert spec.title == "Contact form"
    assert (by_name["name"].kind, by_name["name"].min_length, by_name["name"].max_length) == ("string", 1, 20)
    assert by_name["name"].required
    assert not by_name["age"].required
    assert by_name["email"].format == "email"
    assert (by_name["age"].kind, by_name["age"].default, by_name["age"].has_default) == ("integer", 25, True)
    assert by_name["score"].kind == "number"
    assert by_name["score"].minimum == 0.5
    assert by_name["plan"].options == (Option("free", "Free"), Option("pro", "Pro"))
    assert by_name["size"].options == (Option("s", "Small"), Option("m", "Medium"))
    assert by_name["tags"].kind == "multi_choice"
    assert (
        by_name["tags"].min_items,
        by_name["tags"].max_items,
    ) == (1, 2)
    assert by_name["langs"].options == (Option("py", "Python"),)


def test_content_applies_schema_defaults_for_omitted_fields_and_leaves_out_unset_optionals() -> None:
    content = parse_requested_schema(CONTACT).content(
        {"name": "Ada", "email": "ada@example.com", "tags": ["a"]}
    )

    assert content == {
        "name": "Ada",
        "email": "ada@example.com",
        "age": 25,
        "subscribe": False,
        "size": "m",
        "tags": ["a"],
    }


def test_invalid_answers_list_every_problem_by_wire_name() -> None:
    spec = parse_requested_schema(CONTACT)

    with pytest.raises(InvalidResponse) as caught:
        spec.content({"name": "", "email": "nope", "age": True, "plan": "gold", "tags": [], "extra": 1})

    fields = {name for name, _ in caught.value.errors}
    assert fields == {"name", "email", "age", "plan", "tags", "extra"}
    assert caught.value.content["extra"] == 1


def test_missing_required_fields_are_reported() -> None:
    with pytest.raises(InvalidResponse) as caught:
        parse_requested_schema(CONTACT).content({})

    assert {name for name, _ in caught.value.errors} == {"name", "email"}


@pytest.mark.parametrize(
    ("kind", "good", "bad"),
    [
        ("email", "a@example.org", "a.example.org"),
        ("uri", "https://example.com/x", "example dot com"),
        ("date", "2024-02-29", "2023-02-29"),
        ("date-time", "2024-01-02T03:04:05Z", "yesterday"),
    ],
)
def test_string_formats_are_checked_and_the_text_is_sent_unchanged(kind: str, good: str, bad: str) -> None:
    spec = parse_requested_schema({"type": "object", "properties": {"v": {"type": "string", "format": kind}}})

    assert spec.content({"v": good}) == {"v": good}
    with pytest.raises(InvalidResponse):
        spec.content({"v": bad})


def test_numbers_refuse_booleans_and_integers_refuse_fractions() -> None:
    spec = parse_requested_schema(
        {"type": "object", "properties": {"i": {"type": "integer"}, "n": {"type": "number"}}}
    )

    assert spec.content({"i": 3, "n": 2}) == {"i": 3, "n": 2}
    for bad in ({"i": True}, {"n": False}, {"i": 1.5}):
        with pytest.raises(InvalidResponse):
            spec.content(bad)


@pytest.mark.parametrize("bad", [" 7 ", "1_000", "+1", "01", "NaN", "Infinity", "1e400", float("nan"), "2.5"])
def test_numbers_are_checked_by_the_servers_wire_rule_before_sending(bad: object) -> None:
    spec = parse_requested_schema(
        {"type": "object", "properties": {"i": {"type": "integer"}, "n": {"type": "number"}}}
    )

    assert spec.content({"i": "7", "n": "-1.5e3"}) == {"i": 7, "n": -1500.0}
    for answer in ({"i": bad}, {"n": bad} if bad != "2.5" else {"i": "2.5"}):
        with pytest.raises(InvalidResponse, match="expected a"):
            spec.content(answer)


def test_property_names_that_are_not_identifiers_get_an_alias_and_round_trip() -> None:
    schema = {
        "type": "object",
        "properties": {
            "first-name": {"type": "string"},
            "class": {"type": "string"},
            "model_config": {"type": "string"},
        },
        "required": ["first-name"],
    }

    spec = parse_requested_schema(schema)
    instance = spec.instance({"first-name": "Ada", "class": "x", "model_config": "y"})

    assert [f.attr for f in spec.fields] == ["field_first_name", "field_class", "field_model_config"]
    assert instance.model_dump(by_alias=True) == {"first-name": "Ada", "class": "x", "model_config": "y"}


@pytest.mark.parametrize("version", PROTOCOL_VERSIONS[1:])
def test_the_inverse_of_a_reduced_model_accepts_what_the_model_accepts(version: Any) -> None:
    model = model_from_schema(reduce_schema(Signup, protocol_version=version))
    answer = {"name": "Ada", "email": "ada@example.com", "plan": "pro", "topics": ["news"]}

    built = model.model_validate(answer)

    assert Signup.model_validate(built.model_dump(by_alias=True, exclude_none=True)).plan is Plan.PRO
    assert model.model_fields["name"].title == "Full name"
    assert model.model_fields["name"].description == "As on your passport"
    assert model.model_fields["seats"].default == 1


def test_titled_options_from_the_reducer_keep_their_titles() -> None:
    @form
    class Pick(BaseModel):
        plan: Annotated[Plan, Titles({Plan.FREE: "Free", Plan.PRO: "Professional"})] = Plan.FREE

    spec = parse_requested_schema(reduce_schema(Pick))

    assert spec.fields[0].options == (Option("free", "Free"), Option("pro", "Professional"))
    assert spec.content({}) == {"plan": "free"}


def test_results_are_cached_per_schema() -> None:
    assert parse_requested_schema(CONTACT) is parse_requested_schema(dict(CONTACT))


HOSTILE: list[tuple[object, str]] = [
    ("not a schema", "must be a JSON object"),
    ({"type": "array", "properties": {}}, "type: must be 'object'"),
    ({"type": "object", "properties": []}, "properties: must be an object"),
    (
        {"type": "object", "properties": {"a": {"type": "string"}}, "required": "a"},
        "required: must be a list",
    ),
    ({"type": "object", "properties": {}, "required": ["ghost"]}, "'ghost', which is not a property"),
    ({"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}}, "$ref not allowed"),
    ({"type": "object", "properties": {"a": {"type": "object", "properties": {}}}}, "properties not allowed"),
    ({"type": "object", "properties": {"a": {"type": ["string", "null"]}}}, "properties.a.type"),
    ({"type": "object", "properties": {"a": {"type": "null"}}}, "properties.a.type"),
    (
        {"type": "object", "properties": {"a": {"type": "string", "enum": [1, 2]}}},
        "enum values must be strings",
    ),
    ({"type": "object", "properties": {"a": {"type": "string", "enum": []}}}, "non-empty list"),
    ({"type": "object", "properties": {"a": {"type": "string", "enum": ["x", "x"]}}}, "must be unique"),
    ({"type": "object", "properties": {"a": {"type": "integer", "enum": ["1"]}}}, "numeric enums"),
    ({"type": "object", "properties": {"a": {"type": "string", "format": "hostname"}}}, "format"),
    ({"type": "object", "properties": {"a": {"type": "string", "minLength": 5, "maxLength": 2}}}, "greater"),
    ({"type": "object", "properties": {"a": {"type": "string", "minLength": -1}}}, "integer from 0"),
    ({"type": "object", "properties": {"a": {"type": "integer", "minimum": "0"}}}, "finite number"),
    ({"type": "object", "properties": {"a": {"type": "integer", "minimum": True}}}, "finite number"),
    ({"type": "object", "properties": {"a": {"type": "integer", "default": "x"}}}, "does not fit"),
    (
        {"type": "object", "properties": {"a": {"type": "integer", "maximum": 3, "default": 9}}},
        "does not fit",
    ),
    (
        {"type": "object", "properties": {"a": {"type": "string", "enum": ["x"], "default": "y"}}},
        "does not fit",
    ),
    ({"type": "object", "properties": {"a": {"type": "array", "items": {"type": "integer"}}}}, "items"),
    ({"type": "object", "properties": {"a": {"type": "array"}}}, "items"),
    ({"type": "object", "properties": {"a": {"type": "string", "oneOf": [{"const": 1}]}}}, "const: string"),
    ({"type": "object", "properties": {"a": {"type": "string", "title": 3}}}, "title: must be a string"),
    ({"type": "object", "properties": {"a\x1b[31m": {"type": "string"}}}, "printable"),
    ({"type": "object", "properties": {"a": "string"}}, "must be a JSON object"),
    ({"type": "object", "properties": {"a": {"type": "number", "minimum": float("nan")}}}, "not JSON"),
]


@pytest.mark.parametrize(("schema", "expected"), HOSTILE)
def test_malformed_or_hostile_schemas_raise_a_typed_error_naming_the_problem(
    schema: object, expected: str
) -> None:
    with pytest.raises(RequestedSchemaError) as caught:
        parse_requested_schema(schema)

    assert expected in str(caught.value)


def test_every_problem_of_a_schema_is_listed_at_once() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"type": "string", "enum": [1]}, "b": {"$ref": "#"}, "c": {"type": "bool"}},
    }

    with pytest.raises(RequestedSchemaError) as caught:
        parse_requested_schema(schema)

    assert len(caught.value.problems) == 3


def test_huge_schemas_are_refused_before_any_model_is_built() -> None:
    many_fields = {
        "type": "object",
        "properties": {f"f{i}": {"type": "string"} for i in range(MAX_FIELDS + 1)},
    }
    many_options = {
        "type": "object",
        "properties": {"a": {"type": "string", "enum": [str(i) for i in range(MAX_OPTIONS + 1)]}},
    }

    for schema in (many_fields, many_options):
        with pytest.raises(RequestedSchemaError, match="allowed"):
            parse_requested_schema(schema)


def test_deeply_nested_json_is_refused_not_crashed_on() -> None:
    nested: dict[str, Any] = {}
    for _ in range(100_000):
        nested = {"x": nested}

    with pytest.raises(RequestedSchemaError, match="not JSON"):
        parse_requested_schema({"type": "object", "properties": {"a": nested}})


def test_unknown_annotation_keywords_are_ignored() -> None:
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {"a": {"type": "string", "examples": ["x"], "pattern": "^x$"}},
        "additionalProperties": False,
    }

    assert parse_requested_schema(schema).content({"a": "y"}) == {"a": "y"}


def test_a_form_with_no_fields_is_a_plain_confirmation() -> None:
    spec = parse_requested_schema({"type": "object", "properties": {}})

    assert spec.fields == ()
    assert spec.content({}) == {}


# --- liberal where the spec is (issue 9, item 8) -------------------------------------------------


def one(prop: dict[str, Any], *, required: bool = True) -> dict[str, Any]:
    return {"type": "object", "properties": {"x": prop}, "required": ["x"] if required else []}


def test_an_enum_without_type_is_a_string_choice() -> None:
    spec = parse_requested_schema(one({"enum": ["a", "b"], "title": "Pick"}))

    assert (spec.fields[0].kind, spec.fields[0].options) == ("choice", (Option("a", "a"), Option("b", "b")))
    assert spec.content({"x": "b"}) == {"x": "b"}
    with pytest.raises(InvalidResponse):
        spec.content({"x": "c"})


def test_an_untyped_enum_of_non_strings_is_still_refused() -> None:
    with pytest.raises(RequestedSchemaError, match="enum values must be strings"):
        parse_requested_schema(one({"enum": [1, "a"]}))


def test_multi_select_items_without_type_are_string_options() -> None:
    spec = parse_requested_schema(one({"type": "array", "items": {"enum": ["a", "b"]}, "maxItems": 1}))

    assert spec.content({"x": ["a"]}) == {"x": ["a"]}
    with pytest.raises(InvalidResponse):
        spec.content({"x": ["a", "b"]})


@pytest.mark.parametrize(
    "prop",
    [{"const": "yes", "title": "Confirm"}, {"type": "string", "const": "yes", "title": "Confirm"}],
    ids=["untyped", "typed"],
)
def test_a_const_property_is_a_one_option_choice(prop: dict[str, Any]) -> None:
    spec = parse_requested_schema(one(prop))

    assert spec.fields[0].options == (Option("yes", "Confirm"),)
    assert spec.content({"x": "yes"}) == {"x": "yes"}
    for bad in ({"x": "no"}, {}):
        with pytest.raises(InvalidResponse):
            spec.content(bad)


@pytest.mark.parametrize(
    ("prop", "good", "bad"),
    [
        ({"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 10}, [0.001, 9.5], [0, 10, -1]),
        ({"type": "integer", "exclusiveMinimum": 0}, [1, 50], [0, -3]),
        ({"type": "integer", "exclusiveMaximum": 5, "minimum": 2}, [2, 4], [5, 1]),
        ({"type": "number", "minimum": 3, "exclusiveMinimum": 1}, [3], [2, 1]),
        ({"type": "number", "minimum": 0, "exclusiveMinimum": True}, [0.5], [0]),
        ({"type": "number", "maximum": 5, "exclusiveMaximum": True}, [4.9], [5]),
        ({"type": "number", "maximum": 5, "exclusiveMaximum": False}, [5], [5.1]),
    ],
)
def test_exclusive_bounds_are_honoured(prop: dict[str, Any], good: list[float], bad: list[float]) -> None:
    spec = parse_requested_schema(one(prop))

    for value in good:
        assert spec.content({"x": value}) == {"x": value}
    for value in bad:
        with pytest.raises(InvalidResponse):
            spec.content({"x": value})


def test_a_pydantic_json_schema_with_const_untyped_enum_and_exclusive_bounds_is_answered() -> None:
    class Order(BaseModel):
        confirm: Literal["yes"]
        size: Literal["s", "m"] = "m"
        qty: int = Field(gt=0, lt=10)
        ratio: float = Field(default=0.5, gt=0, le=1)

    schema = Order.model_json_schema()
    schema["properties"]["size"].pop("type")
    assert schema["properties"]["confirm"]["const"] == "yes"
    assert schema["properties"]["qty"] == {
        "exclusiveMaximum": 10,
        "exclusiveMinimum": 0,
        "title": "Qty",
        "type": "integer",
    }

    spec = parse_requested_schema(schema)
    content = spec.content({"confirm": "yes", "qty": 9})

    assert content == {"confirm": "yes", "size": "m", "qty": 9, "ratio": 0.5}
    assert Order.model_validate(content).qty == 9
    for bad in ({"qty": 10}, {"qty": 0}, {"ratio": 0}):
        with pytest.raises(InvalidResponse):
            spec.content({"confirm": "yes", "qty": 1, **bad})


def test_answers_with_lone_surrogates_are_refused_before_sending() -> None:
    spec = parse_requested_schema(one({"type": "string"}))

    with pytest.raises(InvalidResponse, match="lone surrogate"):
        spec.content({"x": "a\ud800"})


def test_unusual_property_names_get_safe_attributes() -> None:
    names = ["model_dump_json_x", "\u00e9t\u00e9", "\ufb01", "fi"]
    spec = parse_requested_schema({"type": "object", "properties": {n: {"type": "string"} for n in names}})

    assert spec.content({n: n for n in names}) == {n: n for n in names}
    assert [f.attr for f in spec.fields] == ["field_model_dump_json_x", "field_t", "field_field", "fi"]


def test_extreme_exponents_that_denote_zero_read_as_zero_as_a_json_parser_reads_them() -> None:
    spec = parse_requested_schema({"type": "object", "properties": {"n": {"type": "number"}}})

    assert spec.content({"n": "0e99999999999999999999"}) == {"n": 0}
    assert spec.content({"n": "1e-99999999999999999999"}) == {"n": 0.0}


@pytest.mark.parametrize("value", ["9" * 5000, 10**400, "1" + "0" * 400, "1e400"])
def test_numbers_beyond_what_the_client_handles_are_invalid_answers_not_crashes(value: object) -> None:
    spec = parse_requested_schema(
        {"type": "object", "properties": {"i": {"type": "integer"}, "n": {"type": "number"}}}
    )

    for name in ("i", "n"):
        with pytest.raises(InvalidResponse, match="expected a number") as caught:
            spec.content({name: value})
        assert "999999" not in str(caught.value)


def test_long_option_lists_are_checked_by_membership_as_literals_are() -> None:
    values = [f"{i}-".ljust(100, "v") for i in range(30)]
    schema = {
        "type": "object",
        "properties": {
            "one": {"enum": values},
            "maybe": {"enum": values},
            "many": {"type": "array", "items": {"enum": values}, "maxItems": 2},
            "some": {"type": "array", "items": {"enum": values}},
        },
        "required": ["one", "many"],
    }
    spec = parse_requested_schema(schema)

    assert spec.content({"one": values[1], "many": values[:2]}) == {"one": values[1], "many": values[:2]}
    assert spec.content({"one": values[0], "many": [], "maybe": values[2], "some": [values[3]]})["some"] == [
        values[3]
    ]
    with pytest.raises(InvalidResponse) as caught:
        spec.content({"one": "x", "maybe": "y", "many": values[:3], "some": ["z"]})
    assert {name for name, _ in caught.value.errors} == {"one", "maybe", "many", "some"}
    assert "expected one of the 30 options" in str(caught.value)
    assert "x" * 5 not in str(caught.value)


def test_the_server_parses_a_reduced_schema_once_not_per_answer(monkeypatch):
    import typed_elicit._wire.parse as form_module
    from typed_elicit._forms.reduce import reduced

    schema = reduce_schema(EveryKind)
    reduced(EveryKind, "2026-07-28").form  # noqa: B018  (parsed once, here)

    def no_parse(key: str) -> Any:
        raise AssertionError("parsed again")

    monkeypatch.setattr(form_module, "_parse", no_parse)
    monkeypatch.setattr(form_module, "_parse_cached", no_parse)
    for _ in range(3):
        assert validate_content(EveryKind, schema, {"text": "abc"}).text == "abc"
    with pytest.raises(form_module.RequestedSchemaError):  # the parse ran (its safety net caught us)
        validate_content(EveryKind, dict(schema), {"text": "abc"})  # a copy is not the record's schema
