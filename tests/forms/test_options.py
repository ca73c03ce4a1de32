"""Options at class definition: `Choices()` fields, titles and option lists, checked at declaration."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel, Field, SecretStr

from tests.counting import CountingMapping
from typed_elicit import Choices, Titles, form, reduce_schema
from typed_elicit._core.versions import LATEST_PROTOCOL_VERSION as LATEST
from typed_elicit._forms.reduce import schema_problems, shaped
from typed_elicit._forms.validate import validate_answer
from typed_elicit._wire.spec import (
    MAX_OPTION_LENGTH,
    MAX_OPTIONS,
    MAX_QUESTION_SCHEMA_LENGTH,
    MAX_TEXT_LENGTH,
)
from typed_elicit.errors import InvalidResponse, OptionsError, SchemaError

ERAS = ("2025-06-18", "2025-11-25", "2026-07-28")


class Pick(BaseModel):
    account: Annotated[str, Choices()]
    tags: Annotated[list[str], Choices(), Field(min_length=1, max_length=2)]
    amount: int = Field(default=10, ge=1, le=100)
    code: str = Field(default="000000", pattern=r"^[0-9]{6}$")
    urgent: bool = False


OPTIONS: dict[str, Any] = {"account": {"a": "Alpha", "b": "Beta"}, "tags": ["x", "y", "z"]}


def problems_of(**call: Any) -> tuple[str, ...]:
    call.setdefault("options", OPTIONS)
    version = call.pop("version", "2026-07-28")
    with pytest.raises(OptionsError) as caught:
        shaped(Pick, version, **call)
    assert caught.value.model_name == "Pick"
    assert len(caught.value.fields) == len(caught.value.problems)
    return caught.value.problems


# --- at import --------------------------------------------------------------------------------


def test_a_choices_model_reduces_at_import_but_cannot_be_asked_without_options() -> None:
    assert schema_problems(Pick, protocol_version="2026-07-28") == ()
    with pytest.raises(OptionsError, match=r"Pick\.account: is a Choices\(\) field") as caught:
        reduce_schema(Pick)
    assert caught.value.fields == ("account", "tags")


def test_a_choices_multi_select_is_refused_before_2025_11_25_like_any_multi_select() -> None:
    (problem,) = schema_problems(Pick, protocol_version="2025-06-18")
    assert problem.startswith("Pick.tags: multi-select fields need protocol 2025-11-25")


@pytest.mark.parametrize(
    ("annotation", "default", "problem"),
    [
        (Annotated[int, Choices()], ..., "Choices() marks a str field (one option) or a list[str] field"),
        (Annotated[list[int], Choices()], ..., "Choices() marks a str field"),
        (Annotated[str, Choices], ..., "Choices is a marker to instantiate"),
        (Annotated[str, Choices()], "a", "a Choices() field takes no default in the class"),
        (
            Annotated[str, Choices(), Titles(a="A")],
            ...,
            "Titles(...) cannot title options given per question",
        ),
    ],
)
def test_a_choices_field_that_cannot_work_is_refused_at_import(
    annotation: Any, default: Any, problem: str
) -> None:
    model = type("Bad", (BaseModel,), {"__annotations__": {"x": annotation}, "x": Field(default)})
    with pytest.raises(SchemaError) as caught:
        reduce_schema(model, options={"x": ["a"]})
    assert caught.value.problems[0].startswith(f"Bad.x: {problem}")


def test_an_optional_choices_field_may_be_left_out() -> None:
    class Maybe(BaseModel):
        x: Annotated[str, Choices()] | None = None
        many: Annotated[list[str], Choices()] = []

    record = shaped(Maybe, "2026-07-28", options={"x": ["a"], "many": ["b"]})
    assert record.schema == {
        "type": "object",
        "properties": {
            "x": {"type": "string", "enum": ["a"]},
            "many": {"type": "array", "items": {"type": "string", "enum": ["b"]}, "default": []},
        },
    }
    assert validate_answer(Maybe, record, {}) == Maybe()


def test_a_page_form_takes_choices_fields_and_asks_for_their_options_per_page() -> None:
    from typed_elicit import form
    from typed_elicit._forms.reduce import check_page, page_reduced

    @form(page=True)
    class Paged(BaseModel):
        account: Annotated[str, Choices()]
        api_key: SecretStr

    check_page(Paged)  # fine at import: options come with each page
    with pytest.raises(OptionsError, match=r"account.*ctx\.elicit_page"):
        page_reduced(Paged)
    record = shaped(Paged, "2025-06-18", options={"account": {"a1": "Main", "a2": "Savings"}}, page=True)
    assert record.protocol_version == LATEST  # a page is shaped in the newest revision, whatever asked
    assert record.offered == {"account": frozenset({"a1", "a2"})}
    assert [o.title for o in record.form.by_name["account"].options] == ["Main", "Savings"]
    assert record.form.by_name["api_key"].kind == "string"  # a secret stays a page's field
    answer = validate_answer(Paged, record, {"account": "a2", "api_key": "k"})
    assert answer.account == "a2"
    with pytest.raises(InvalidResponse, match="not one of the offered options"):
        validate_answer(Paged, record, {"account": "a9", "api_key": "k"})


def test_titles_past_the_option_limit_are_refused_at_class_definition_reading_one_past_it() -> None:
    titles = CountingMapping(10**6)

    with pytest.raises(SchemaError, match=f"Titles\\(...\\) names more than {MAX_OPTIONS} options"):

        @form
        class Sizes(BaseModel):
            size: Annotated[Literal["s", "l"], Titles(titles)]

    assert titles.read <= MAX_OPTIONS + 1


@pytest.mark.parametrize(
    ("annotation", "problem"),
    [
        (
            Annotated[Literal["s", "l"], Titles(s="Small", l="L" * (MAX_OPTION_LENGTH + 1))],
            f"titles an option with 1001 characters, more than {MAX_OPTION_LENGTH}",
        ),
        (
            Literal["s", "l" * (MAX_OPTION_LENGTH + 1)],
            f"offers an option of 1001 characters, more than {MAX_OPTION_LENGTH}",
        ),
    ],
    ids=["title", "value"],
)
def test_an_option_or_title_over_the_length_limit_is_refused_at_class_definition(
    annotation: Any, problem: str
) -> None:
    model = type("Long", (BaseModel,), {"__annotations__": {"size": annotation}})

    (found,) = schema_problems(model, protocol_version="2026-07-28")

    assert problem in found


@pytest.mark.parametrize("key", ["title", "description"])
def test_a_field_text_the_client_would_refuse_is_refused_at_class_definition(key: str) -> None:
    model = type("Texts", (BaseModel,), {"__annotations__": {"x": str}, "x": Field(**{key: "t" * 10_001})})

    (found,) = schema_problems(model, protocol_version="2026-07-28")

    assert found == (
        f"Texts.x: its {key} has 10001 characters, more than the {MAX_TEXT_LENGTH} clients accept; shorten it"
    )


def test_a_class_whose_schema_is_over_64_kib_is_refused_at_class_definition() -> None:
    fields = {f"f{i}": Field(default="", description="d" * 1_000) for i in range(70)}
    model = type("Wide", (BaseModel,), {"__annotations__": dict.fromkeys(fields, str), **fields})

    problems = schema_problems(model, protocol_version="2025-06-18")

    assert len(problems) == 1
    assert problems[0].startswith(f"Wide: its schema takes more than the {MAX_QUESTION_SCHEMA_LENGTH} bytes")
