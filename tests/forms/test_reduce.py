"""The reducer: every annotation row of docs/models.md, on every revision, checked strictly."""

from __future__ import annotations

import enum
from datetime import date, datetime, timezone
from typing import Annotated, Any, Literal

import pytest
from pydantic import AnyUrl, BaseModel, EmailStr, Field, HttpUrl

from tests.spec_check import assert_spec_valid, matching_kinds
from typed_elicit import PROTOCOL_VERSIONS, Titles, form, reduce_schema
from typed_elicit._forms.reduce import form_message, is_form
from typed_elicit.errors import ElicitationUnsupported, SchemaError

MODERN = ("2025-11-25", "2026-07-28")


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Level(str, enum.Enum):
    LOW = "low"
    HIGH = "high"


def prop_of(annotation: Any, version: str, default: Any = ..., **field: Any) -> dict[str, Any]:
    """Reduce a one-field model and return that field's wire property, checked strictly."""
    model = type(
        "One",
        (BaseModel,),
        {"__annotations__": {"x": annotation}, "x": Field(default, **field)},
    )
    schema = reduce_schema(model, protocol_version=version)
    assert_spec_valid(schema, version)
    return schema["properties"]["x"]


# (annotation, Field kwargs, expected property on 2025-11-25 and later)
ROWS: list[tuple[str, Any, dict[str, Any], dict[str, Any]]] = [
    ("str", str, {}, {"type": "string"}),
    (
        "str lengths",
        str,
        {"min_length": 1, "max_length": 5},
        {"type": "string", "minLength": 1, "maxLength": 5},
    ),
    ("int", int, {}, {"type": "integer"}),
    ("int ge/le", int, {"ge": 1, "le": 9}, {"type": "integer", "minimum": 1, "maximum": 9}),
    (
        "int gt/lt become adjacent bounds",
        int,
        {"gt": 0, "lt": 10},
        {"type": "integer", "minimum": 1, "maximum": 9},
    ),
    ("float", float, {}, {"type": "number"}),
    ("float ge/le", float, {"ge": 0.5, "le": 2.5}, {"type": "number", "minimum": 0.5, "maximum": 2.5}),
    (
        "int negative exclusive bounds",
        int,
        {"gt": -3, "lt": -1},
        {"type": "integer", "minimum": -2, "maximum": -2},
    ),
    # Constraints the wire cannot carry travel as a hint in the description (issue 13).
    (
        "float gt becomes a hint",
        float,
        {"gt": 0.0},
        {"type": "number", "description": "Must be more than 0."},
    ),
    ("bool", bool, {}, {"type": "boolean"}),
    ("email", EmailStr, {}, {"type": "string", "format": "email"}),
    ("AnyUrl", AnyUrl, {}, {"type": "string", "format": "uri"}),
    ("HttpUrl", HttpUrl, {}, {"type": "string", "format": "uri"}),
    ("date", date, {}, {"type": "string", "format": "date"}),
    ("datetime", datetime, {}, {"type": "string", "format": "date-time"}),
    (
        "pattern becomes a hint",
        str,
        {"pattern": "^a+$"},
        {"type": "string", "description": "Must be in the expected format."},
    ),
    (
        "multiple_of becomes a hint",
        int,
        {"multiple_of": 5},
        {"type": "integer", "description": "Must be a multiple of 5."},
    ),
    (
        "title and description",
        str,
        {"title": "Name", "description": "Yours"},
        {"type": "string", "title": "Name", "description": "Yours"},
    ),
    ("Literal", Literal["a", "b"], {}, {"type": "string", "enum": ["a", "b"]}),
    ("Enum", Color, {}, {"type": "string", "enum": ["red", "green"]}),
    ("str Enum", Level, {}, {"type": "string", "enum": ["low", "high"]}),
]


@pytest.mark.parametrize("version", PROTOCOL_VERSIONS)
@pytest.mark.parametrize(("row", "annotation", "field", "expected"), ROWS, ids=[r[0] for r in ROWS])
def test_each_annotation_reduces_to_its_spec_kind(
    version: str, row: str, annotation: Any, field: dict[str, Any], expected: dict[str, Any]
) -> None:
    assert prop_of(annotation, version, **field) == expected


@pytest.mark.parametrize("version", PROTOCOL_VERSIONS)
def test_enum_classes_render_inline_never_as_ref(version: str) -> None:
    class M(BaseModel):
        color: Color

    schema = reduce_schema(M, protocol_version=version)
    assert "$defs" not in schema
    assert "$ref" not in repr(schema)
    assert schema["properties"]["color"]["enum"] == ["red", "green"]


DEFAULT_ROWS: list[tuple[str, Any, Any, Any]] = [
    ("str", str, "x", "x"),
    ("int", int, 3, 3),
    ("float", float, 1.5, 1.5),
    ("bool", bool, True, True),
    ("Literal", Literal["a", "b"], "b", "b"),
    ("Enum member", Color, Color.GREEN, "green"),
    ("date", date, date(2026, 1, 2), "2026-01-02"),
    ("datetime", datetime, datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc), "2026-01-02T03:04:05Z"),
]


@pytest.mark.parametrize("version", PROTOCOL_VERSIONS)
@pytest.mark.parametrize(
    ("row", "annotation", "default", "wire"), DEFAULT_ROWS, ids=[r[0] for r in DEFAULT_ROWS]
)
def test_defaults_are_json_values_sent_only_where_the_revision_allows(
    version: str, row: str, annotation: Any, default: Any, wire: Any
) -> None:
    prop = prop_of(annotation, version, default)
    if version == "2025-06-18" and annotation is not bool:
        assert "default" not in prop
    else:
        assert prop["default"] == wire


@pytest.mark.parametrize("version", PROTOCOL_VERSIONS)
def test_titled_options_use_oneof_or_legacy_enum_names(version: str) -> None:
    titled = Annotated[Literal["s", "l"], Titles(s="Small", l="Large")]
    prop = prop_of(titled, version, "s")
    if version == "2025-06-18":
        assert prop == {"type": "string", "enum": ["s", "l"], "enumNames": ["Small", "Large"]}
        assert matching_kinds(prop, version) == ["LegacyTitledEnumSchema"]
    else:
        assert prop == {
            "type": "string",
            "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}],
            "default": "s",
        }


@pytest.mark.parametrize("version", PROTOCOL_VERSIONS)
def test_legacy_titles_send_enum_names_on_every_revision(version: str) -> None:
    prop = prop_of(Annotated[Literal["a", "b"], Titles(a="A", b="B", legacy=True)], version)
    assert prop == {"type": "string", "enum": ["a", "b"], "enumNames": ["A", "B"]}
    assert matching_kinds(prop, version) == ["LegacyTitledEnumSchema"]


def test_legacy_titles_on_a_multi_select_are_rejected() -> None:
    model = type(
        "Form",
        (BaseModel,),
        {"__annotations__": {"x": Annotated[list[Literal["a"]], Titles(a="A", legacy=True)]}},
    )
    with pytest.raises(SchemaError, match=r"Form\.x: Titles\(legacy=True\) has no multi-select form"):
        reduce_schema(model)


@pytest.mark.parametrize("version", PROTOCOL_VERSIONS)
def test_titles_accept_enum_members_as_keys(version: str) -> None:
    prop = prop_of(Annotated[Color, Titles({Color.RED: "Red", Color.GREEN: "Green"})], version)
    titles = prop["enumNames"] if version == "2025-06-18" else [o["title"] for o in prop["oneOf"]]
    assert titles == ["Red", "Green"]


@pytest.mark.parametrize("version", MODERN)
@pytest.mark.parametrize("container", [list, set, frozenset])
def test_collections_of_options_are_multi_select_with_item_bounds(version: str, container: Any) -> None:
    prop = prop_of(container[Literal["a", "b", "c"]], version, min_length=1, max_length=2)
    assert prop == {
        "type": "array",
        "items": {"type": "string", "enum": ["a", "b", "c"]},
        "minItems": 1,
        "maxItems": 2,
    }


@pytest.mark.parametrize("version", MODERN)
def test_titled_multi_select_uses_items_anyof_and_json_defaults(version: str) -> None:
    prop = prop_of(Annotated[set[Color], Titles(red="Red", green="Green")], version, {Color.RED})
    assert prop == {
        "type": "array",
        "items": {"anyOf": [{"const": "red", "title": "Red"}, {"const": "green", "title": "Green"}]},
        "default": ["red"],
    }


@pytest.mark.parametrize("version", MODERN)
def test_titles_may_sit_on_the_item_type(version: str) -> None:
    prop = prop_of(list[Annotated[Literal["a"], Titles(a="A")]], version, ["a"])
    assert prop["items"] == {"anyOf": [{"const": "a", "title": "A"}]}
    assert prop["default"] == ["a"]


def test_multi_select_on_2025_06_18_is_a_schema_error_naming_the_revision() -> None:
    class Toppings(BaseModel):
        extras: list[Literal["ham", "olives"]]

    assert reduce_schema(Toppings, protocol_version="2025-11-25")["properties"]["extras"]["type"] == "array"
    with pytest.raises(SchemaError, match=r"Toppings\.extras: multi-select fields need protocol 2025-11-25"):
        reduce_schema(Toppings, protocol_version="2025-06-18")


def test_an_unknown_revision_is_a_value_error_at_the_call() -> None:
    class M(BaseModel):
        x: str

    with pytest.raises(ValueError, match=r"2025-03-26.*has no elicitation; pass one of 2025-06-18") as caught:
        reduce_schema(M, protocol_version="2025-03-26")  # type: ignore[arg-type]
    assert not isinstance(caught.value, ElicitationUnsupported)


def test_unresolvable_forward_reference_is_a_schema_error() -> None:
    class M(BaseModel):
        x: Undefined  # type: ignore[name-defined]  # noqa: F821

    with pytest.raises(SchemaError, match="M: its annotations cannot be resolved"):
        reduce_schema(M)


def test_reduce_schema_is_cached_per_model_and_revision() -> None:
    @form
    class M(BaseModel):
        x: str = "a"

    assert reduce_schema(M) is reduce_schema(M)
    assert reduce_schema(M, protocol_version="2025-06-18") is not reduce_schema(M)
    assert reduce_schema(M, protocol_version="2025-06-18") == {
        "type": "object",
        "properties": {"x": {"type": "string"}},
    }


def test_form_message_prefers_the_decorator_then_the_docstring_then_a_default() -> None:
    @form(message="Pick a date")
    class A(BaseModel):
        """Ignored."""

        x: str

    @form
    class B(BaseModel):
        """Tell us your
        name.

        Details that are not shown.
        """

        x: str

    @form
    class C(BaseModel):
        x: str

    assert is_form(A)
    assert form_message(A) == "Pick a date"
    assert form_message(B) == "Tell us your name."
    assert form_message(C) == "Please provide C."


@pytest.mark.parametrize("version", PROTOCOL_VERSIONS)
def test_a_model_with_every_single_kind_is_spec_valid(version: str) -> None:
    class Everything(BaseModel):
        name: str = Field(min_length=1, max_length=10, title="Name")
        age: int = Field(ge=0, le=130, default=30)
        ratio: float = 0.5
        ok: bool = False
        email: EmailStr
        site: AnyUrl | None = None
        day: date
        at: datetime | None = None
        color: Color = Color.RED
        size: Annotated[Literal["s", "l"], Titles(s="Small", l="Large")] = "s"

    schema = reduce_schema(Everything, protocol_version=version)
    assert_spec_valid(schema, version)
    assert schema["required"] == ["name", "email", "day"]


def test_schema_problems_lists_a_models_problems_per_revision_without_raising() -> None:
    from typed_elicit._forms.reduce import schema_problems

    class Loose(BaseModel):
        blob: bytes

    class Topics(BaseModel):
        topics: list[Literal["a", "b"]] = Field(default_factory=list)

    assert schema_problems(Loose, protocol_version="2026-07-28")[0].startswith("Loose.blob: bytes")
    assert schema_problems(Topics, protocol_version="2025-11-25") == ()
    assert schema_problems(Topics, protocol_version="2025-06-18")[0].startswith("Topics.topics: multi-select")
    with pytest.raises(SchemaError, match=r"Third\.blob"):

        @form
        class Third(BaseModel):
            blob: bytes
