"""Questions shaped at call time: the shaped record, every problem of its options and defaults, limits."""

from __future__ import annotations

import json
from typing import Annotated, Any

import pytest
from hypothesis import given, settings
from pydantic import BaseModel, Field

import typed_elicit._forms.defaults as defaults_module
from tests.conftest import examples
from tests.counting import CountingDict, CountingList, CountingMapping, CountingSequence
from tests.forms.test_options import OPTIONS, Pick, problems_of
from tests.spec_check import assert_spec_valid
from typed_elicit import Choices, form, reduce_schema
from typed_elicit._core.versions import LATEST_PROTOCOL_VERSION as LATEST
from typed_elicit._forms.reduce import shaped
from typed_elicit._forms.validate import validate_answer
from typed_elicit._wire.spec import (
    MAX_OPTION_LENGTH,
    MAX_OPTIONS,
    MAX_QUESTION_SCHEMA_LENGTH,
)
from typed_elicit.client import parse_requested_schema
from typed_elicit.errors import OptionsError
from typed_elicit.testing import invalid_answers, valid_answers


@pytest.mark.parametrize("version", ["2025-11-25", "2026-07-28"])
def test_a_shaped_schema_is_spec_valid_and_parses_as_the_client_reads_it(version: Any) -> None:
    schema = reduce_schema(
        Pick, protocol_version=version, options=OPTIONS, defaults={"account": "b", "tags": ["y"]}
    )
    assert_spec_valid(schema, version)
    form = parse_requested_schema(schema)
    account, tags = form.by_name["account"], form.by_name["tags"]
    assert [(o.value, o.title) for o in account.options] == [("a", "Alpha"), ("b", "Beta")]
    assert (account.kind, account.default, account.required) == ("choice", "b", False)
    assert [o.value for o in tags.options] == ["x", "y", "z"]
    assert (tags.kind, tags.min_items, tags.max_items, tags.default) == ("multi_choice", 1, 2, ["y"])


def test_titled_single_choices_fall_back_to_enum_names_on_2025_06_18() -> None:
    class One(BaseModel):
        account: Annotated[str, Choices()]

    schema = reduce_schema(One, protocol_version="2025-06-18", options={"account": {"a": "Alpha"}})
    assert schema["properties"]["account"] == {"type": "string", "enum": ["a"], "enumNames": ["Alpha"]}
    assert_spec_valid(schema, "2025-06-18")


def test_titled_multi_select_options_travel_as_any_of() -> None:
    schema = reduce_schema(Pick, options={"account": ["a"], "tags": {"x": "Ex", "y": "Why"}})
    assert schema["properties"]["tags"]["items"] == {
        "anyOf": [{"const": "x", "title": "Ex"}, {"const": "y", "title": "Why"}]
    }


def test_the_offered_options_are_what_the_answer_is_checked_against() -> None:
    record = shaped(Pick, "2026-07-28", options=OPTIONS)
    assert validate_answer(Pick, record, {"account": "b", "tags": ["x", "z"]}).tags == ["x", "z"]
    with pytest.raises(Exception, match="account: is not one of the offered options") as caught:
        validate_answer(Pick, record, {"account": "c"})
    assert "'c'" not in str(caught.value)


@settings(max_examples=examples(40), deadline=None)
@given(data=valid_answers(reduce_schema(Pick, options=OPTIONS, defaults={"amount": 50})))
def test_every_answer_the_kit_calls_valid_for_a_shaped_schema_is_taken(data: dict[str, Any]) -> None:
    record = shaped(Pick, "2026-07-28", options=OPTIONS, defaults={"amount": 50})
    data.pop("code", None)  # its pattern is not on the wire (only in words), so the kit cannot know it
    answer = validate_answer(Pick, record, data)
    assert answer.account in ("a", "b")
    assert set(answer.tags) <= {"x", "y", "z"}
    assert answer.amount == data.get("amount", 50)


@settings(max_examples=examples(40), deadline=None)
@given(data=invalid_answers(reduce_schema(Pick, options=OPTIONS)))
def test_every_answer_the_kit_calls_invalid_for_a_shaped_schema_is_refused(data: dict[str, Any]) -> None:
    record = shaped(Pick, "2026-07-28", options=OPTIONS)
    with pytest.raises(Exception, match="is invalid"):
        validate_answer(Pick, record, data)


def test_every_problem_of_one_call_is_listed_in_the_models_field_order() -> None:
    problems = problems_of(
        options={"tags": ["x", "x"], "amount": ["1"], "nope": ["a"]},
        defaults={"code": "12", "ghost": 1},
    )
    assert [p.split(":", 1)[0] for p in problems] == [
        "Pick.account",
        "Pick.tags",
        "Pick.amount",
        "Pick.code",
        "Pick.nope",
        "Pick.ghost",
    ]
    assert problems[0].endswith("pass options={name: [...]} to ctx.elicit (or ctx.elicit_page)")
    assert problems[1] == "Pick.tags: offers 'x' more than once; offer each option once"
    assert "is not a Choices() field, so its options are fixed in the class" in problems[2]
    assert "the default '12' is refused by the field's own validation" in problems[3]
    fields = "account, tags, amount, code, urgent"
    assert problems[4] == f"Pick.nope: is no field of Pick (it has {fields}); fix the key in options="
    assert problems[5].endswith("fix the key in defaults=")


@pytest.mark.parametrize(
    ("options", "problem"),
    [
        ({"account": []}, "offers no options, so no answer could be valid"),
        ({"account": {}}, "offers no options"),
        ({"account": "ab"}, "its options must be a list of values or a mapping of value to title, not str"),
        ({"account": [1, 2]}, "its options must be strings (and titles strings), got a int"),
        ({"account": {"a": 1}}, "titled by a int"),
        ({"account": ["a\ud800"]}, "is not valid Unicode text"),
        (
            {"account": [str(i) for i in range(1001)]},
            "offers 1001 options, more than the 1000 clients accept",
        ),
    ],
)
def test_options_that_cannot_be_offered_are_refused(options: dict[str, Any], problem: str) -> None:
    (first, *_) = problems_of(options={"tags": ["x"], **options})
    assert problem in first


def test_fewer_options_than_min_items_are_refused() -> None:
    class AtLeastTwo(BaseModel):
        picks: Annotated[list[str], Choices(), Field(min_length=2)]

    with pytest.raises(OptionsError, match="offers 1 options, fewer than its min_length=2 selections"):
        shaped(AtLeastTwo, "2026-07-28", options={"picks": ["a"]})


@pytest.mark.parametrize(
    ("defaults", "problem"),
    [
        ({"account": "c"}, "the default 'c' offers 'c', which is not one of the options 'a', 'b'"),
        ({"tags": ["x", "w"]}, "offers 'w', which is not one of the options"),
        ({"tags": ["x", "y", "z"]}, "has 3 items, more than max_length=2"),
        ({"tags": ["x", "x"]}, "picks the option 'x' more than once"),
        ({"tags": "x"}, "is not a list of options"),
        ({"amount": 0}, "breaks ge=1"),
        ({"amount": "5"}, "is not a number"),
        ({"urgent": "yes"}, "is not true or false"),
        ({"account": None}, "the default None pre-fills nothing"),
    ],
)
def test_a_default_the_field_or_the_offer_refuses_is_named_with_its_field(
    defaults: dict[str, Any], problem: str
) -> None:
    (first,) = problems_of(defaults=defaults)
    assert first.startswith(f"Pick.{next(iter(defaults))}: ")
    assert problem in first
    if "None" not in first:
        assert first.endswith("or leave the field out of defaults=")


def test_only_bool_defaults_can_be_given_on_2025_06_18() -> None:
    class Old(BaseModel):
        account: Annotated[str, Choices()]
        urgent: bool = False

    with pytest.raises(OptionsError, match="protocol 2025-06-18 carries defaults for yes/no fields only"):
        shaped(Old, "2025-06-18", options={"account": ["a"]}, defaults={"account": "a"})
    record = shaped(Old, "2025-06-18", options={"account": ["a"]}, defaults={"urgent": True})
    assert record.schema["properties"]["urgent"] == {"type": "boolean", "default": True}


def test_checking_an_answer_to_a_shaped_question_builds_no_form_per_question() -> None:
    first = shaped(Pick, "2025-11-25", options=OPTIONS)
    second = shaped(Pick, "2025-11-25", options={"account": ["c"], "tags": ["q"]})
    assert first.kinds is not None
    assert first.kinds is second.kinds  # one per model and revision, kept weakly like the records
    assert validate_answer(Pick, second, {"account": "c", "tags": ["q"]}).account == "c"
    assert "form" not in vars(second)  # the exact form (a pydantic model) was never built
    assert second.form.by_name["account"].options[0].value == "c"  # built when asked for


def test_a_page_questions_options_and_defaults_are_checked_like_a_questions() -> None:
    @form(page=True)
    class Paged(BaseModel):
        account: Annotated[str, Choices()]
        note: str = ""

    with pytest.raises(OptionsError) as caught:
        shaped(Paged, LATEST, options={"account": [], "nope": ["x"]}, defaults={"account": "zz"}, page=True)
    assert caught.value.fields == ("account", "nope")  # a default for ill-offered options is not judged
    record = shaped(Paged, LATEST, options={"account": ["a", "b"]}, defaults={"account": "b"}, page=True)
    assert record.fill == {"account": "b"}
    again = shaped(Paged, LATEST, options={"account": ["a", "b"]}, defaults={"account": "b"}, page=True)
    other = shaped(Paged, LATEST, options={"account": ["a", "c"]}, defaults={"account": "a"}, page=True)
    assert again.digest == record.digest != other.digest  # pinned: other options are another page


def test_a_page_questions_options_may_be_far_longer_than_a_questions_but_are_bounded() -> None:
    from typed_elicit._forms.shaping import MAX_PAGE_SHAPE_LENGTH

    @form(page=True)
    class Paged(BaseModel):
        account: Annotated[str, Choices()]

    many = {
        f"a{i:03d}": f"Account {i:03d} " + "x" * 60 for i in range(1000)
    }  # ~80 KB: too much for a question
    with pytest.raises(OptionsError, match="bytes of JSON"):
        shaped(Paged, LATEST, options={"account": many})
    assert len(shaped(Paged, LATEST, options={"account": many}, page=True).offered["account"]) == 1000
    huge = {f"a{i:03d}": f"Account {i:03d} " + "x" * 300 for i in range(1000)}  # ~320 KB
    with pytest.raises(OptionsError, match=f"more than the {MAX_PAGE_SHAPE_LENGTH} bytes"):
        shaped(Paged, LATEST, options={"account": huge}, page=True)


def test_a_million_options_are_refused_reading_none_of_them() -> None:
    many = CountingSequence(10**6)
    titled = CountingMapping(10**6)

    for offer in (many, titled):
        (problem,) = problems_of(options={"account": offer, "tags": ["x"]})
        assert problem == (
            f"Pick.account: offers 1000000 options, more than the {MAX_OPTIONS} clients accept; offer fewer"
        )
    assert (many.read, titled.read) == (0, 0)


def test_a_sequence_that_understates_its_length_is_read_at_most_one_past_the_limit() -> None:
    liar = CountingSequence(10**6, claimed=3)

    (problem,) = problems_of(options={"account": liar, "tags": ["x"]})

    assert f"more than the {MAX_OPTIONS} clients accept" in problem
    assert liar.read <= MAX_OPTIONS + 1


@pytest.mark.parametrize(
    ("offer", "problem"),
    [
        (
            ["v" * (MAX_OPTION_LENGTH + 1)],
            f"offers an option of 1001 characters, more than {MAX_OPTION_LENGTH}",
        ),
        ({"a": "t" * 100_000}, f"titles an option with 100000 characters, more than {MAX_OPTION_LENGTH}"),
    ],
    ids=["value", "title"],
)
def test_an_option_or_title_over_the_length_limit_is_refused(offer: Any, problem: str) -> None:
    (first,) = problems_of(options={"account": offer, "tags": ["x"]})

    assert problem in first


def test_options_that_would_make_a_schema_over_64_kib_are_refused_after_reading_a_bounded_part() -> None:
    wide = CountingSequence(MAX_OPTIONS, width=MAX_OPTION_LENGTH)  # 1000 options of 1000 characters

    (problem,) = problems_of(options={"account": wide, "tags": ["x"]})

    assert problem.startswith("Pick.account: its options take more than the ")
    assert f"{MAX_QUESTION_SCHEMA_LENGTH} bytes of JSON a question's schema may have" in problem
    assert wide.read <= MAX_QUESTION_SCHEMA_LENGTH // MAX_OPTION_LENGTH + 1


def test_a_schema_over_64_kib_once_escaped_as_json_is_refused() -> None:
    # 1000 options of 30 emoji: 30 characters each, 360 bytes each as ASCII JSON (two \u escapes).
    emoji = [f"{i:03d}" + "\U0001f600" * 27 for i in range(MAX_OPTIONS)]

    (problem,) = problems_of(options={"account": emoji, "tags": ["x"]})

    assert problem == (
        f"Pick.(question): its schema takes more than the {MAX_QUESTION_SCHEMA_LENGTH} bytes of JSON a "
        "question's schema may have; offer fewer or shorter options or defaults (or ask in steps)"
    )


def test_a_schema_just_under_the_limit_is_sent() -> None:
    values = [f"{i:03d}".ljust(60, "v") for i in range(MAX_OPTIONS)]  # about 63 KiB as JSON

    record = shaped(Pick, "2026-07-28", options={"account": values, "tags": ["x"]})

    size = len(json.dumps(record.schema, separators=(",", ":")))
    assert 60_000 < size <= MAX_QUESTION_SCHEMA_LENGTH


@pytest.mark.parametrize("argument", ["options", "defaults"])
def test_an_argument_naming_more_keys_than_the_model_has_fields_is_refused_with_one_problem(
    argument: str,
) -> None:
    keys = CountingDict({f"f{i}": ["x"] for i in range(100_000)})
    call: dict[str, Any] = {argument: keys}
    if argument == "defaults":
        call["options"] = OPTIONS

    (problem,) = problems_of(**call)

    assert problem == (
        f"Pick.({argument}): {argument}= names 100000 keys, more than the 5 fields of Pick; "
        f"name each field at most once (fix the keys in {argument}=)"
    )
    assert keys.read == 0


def test_a_default_longer_than_the_schema_may_be_is_refused_before_it_is_checked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    checked: list[int] = []
    original = defaults_module.check_default

    def spy(validator: Any, default: object, prop: Any, metadata: Any) -> None:
        checked.append(len(str(default)))
        original(validator, default, prop, metadata)

    monkeypatch.setattr(defaults_module, "check_default", spy)

    (problem,) = problems_of(defaults={"code": "1" * 10**7})

    assert problem.startswith("Pick.code: the default has 10000000 characters, more than the ")
    assert checked == []


def test_a_multi_select_default_with_more_items_than_options_is_refused_reading_none() -> None:
    many = CountingList(["x"] * 100_000)

    (problem,) = problems_of(defaults={"tags": many})

    assert problem.startswith("Pick.tags: the default holds 100000 items, more than the 3 options offered")
    assert many.read == 0
