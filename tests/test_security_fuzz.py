"""A bounded, deterministic fuzz of answer re-validation (issue 9: the suite that found items 5 and 6).

Answers to a model with every field kind, from valid and from hostile strategies, go
through `validate_content` (and a smaller sample through the whole stack on a push era
and on 2026-07-28). The property: either an instance comes back whose every field fits
the wire schema, or `InvalidResponse` is raised, never anything else; and no message
carries a generated value. Each test counts what it tried and asserts the counts.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from typing import Annotated, Any, Literal

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp_types import ElicitRequestFormParams, ElicitRequestURLParams, ElicitResult, ErrorData, TextContent
from pydantic import AnyUrl, BaseModel, EmailStr, Field

from tests.conftest import BOUND
from tests.counting import Calls, CountingDict, CountingList
from typed_elicit import Accepted, ElicitContext, Titles, elicits, reduce_schema
from typed_elicit._calls.policy import DEFAULT_MAX_ANSWER_BYTES
from typed_elicit._calls.questions import FormQuestion
from typed_elicit._forms.reduce import reduced
from typed_elicit._forms.validate import validate_content
from typed_elicit._wire.rules import check_date, check_datetime, check_email, check_text, check_uri, json_size
from typed_elicit.errors import InvalidResponse
from typed_elicit.testing._kit import valid_answers

MARK = "LEAK"
"""Every generated free text carries this, so a leak is found whatever the message around it."""


class Everything(BaseModel):
    """Every field kind a form can ask for."""

    name: str = Field(min_length=1, max_length=12)
    note: str = ""
    email: EmailStr | None = None
    site: AnyUrl | None = None
    day: date | None = None
    at: datetime | None = None
    count: int = Field(default=1, ge=-5, le=1000)
    big: int = 0
    ratio: float = Field(default=0.5, ge=0, le=1)
    amount: float = 0.0
    ok: bool = False
    size: Literal["s", "m", "l"] = "m"
    tier: Annotated[Literal["x", "y"], Titles(x="Ex", y="Why")] = "x"
    tags: list[Literal["a", "b", "c"]] = Field(default_factory=list, max_length=2)
    titled_tags: Annotated[list[Literal["p", "q"]], Titles(p="P", q="Q")] = Field(min_length=1)


SCHEMA = reduce_schema(Everything, protocol_version="2025-11-25")
assert reduce_schema(Everything, protocol_version="2026-07-28") == SCHEMA
FIELDS = tuple(SCHEMA["properties"])

# --- the oracle: does a value fit its wire property? (written from the spec, not from _validate) ---


def _options(prop: Mapping[str, Any]) -> list[str]:
    if "enum" in prop:
        return list(prop["enum"])
    return [option["const"] for option in prop.get("oneOf", prop.get("anyOf", []))]


_FORMATS = {"date": check_date, "date-time": check_datetime, "email": check_email, "uri": check_uri}


def fits(prop: Mapping[str, Any], value: object) -> bool:
    """Whether a dumped (JSON-mode) value satisfies the wire property `prop`."""
    kind = prop["type"]
    if kind == "boolean":
        return isinstance(value, bool)
    if kind in ("integer", "number"):
        if isinstance(value, bool) or not isinstance(value, int | float):
            return False
        if kind == "integer" and not isinstance(value, int):
            return False
        if isinstance(value, float) and not math.isfinite(value):
            return False
        try:
            float(value)
        except OverflowError:
            return False
        return prop.get("minimum", -math.inf) <= value <= prop.get("maximum", math.inf)
    if kind == "string":
        if not isinstance(value, str):
            return False
        try:
            check_text(value)
            if "format" in prop:
                _FORMATS[prop["format"]](value)
        except ValueError:
            return False
        options = _options(prop)
        return (not options or value in options) and (
            prop.get("minLength", 0) <= len(value) <= prop.get("maxLength", math.inf)
        )
    if kind == "array":
        if not isinstance(value, list):
            return False
        options = _options(prop["items"])
        return all(isinstance(v, str) and v in options for v in value) and (
            prop.get("minItems", 0) <= len(value) <= prop.get("maxItems", math.inf)
        )
    return False


def fits_schema(dumped: Mapping[str, Any]) -> bool:
    """Whether every field of a dumped instance fits the wire schema (nulls are unanswered optionals)."""
    required = set(SCHEMA["required"])
    for name, prop in SCHEMA["properties"].items():
        value = dumped.get(name)
        if value is None:
            if name in required:
                return False
            continue
        if not fits(prop, value):
            return False
    return True


# --- strategies ------------------------------------------------------------------------------

_text = st.text(max_size=20)
marked = st.tuples(_text, _text).map(lambda parts: f"{parts[0]}{MARK}{parts[1]}")
surrogates = st.tuples(
    st.text(st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF), min_size=1, max_size=3), marked
).map(lambda parts: parts[1] + parts[0])
numeric_text = st.one_of(
    st.from_regex(r"-?(0|[1-9][0-9]{0,30})(\.[0-9]{1,20})?([eE][+-]?[0-9]{1,25})?", fullmatch=True),
    st.sampled_from(
        [
            "0e99999999999999999999",
            "-0e99999999999999999999",
            "1e99999999999999999999",
            "1e-99999999999999999999",
            "1e400",
            "-1e309",
            "1e-400",
            "5e-324",
            "-0",
            "-0.0",
            "9" * 400,
            "9" * 5000,
            "1e" + "0" * 5000 + "1",
            " 7 ",
            "+1",
            "01",
            "1.",
            "NaN",
            "Infinity",
            "-inf",
            "0x10",
            "1_000",
            "\uff11\uff12",
        ]
    ),
)
huge_ints = st.tuples(st.integers(300, 5000), st.booleans()).map(
    lambda p: -(10 ** p[0]) if p[1] else 10 ** p[0]
)
datelike = st.one_of(
    st.sampled_from(
        [
            "0",
            "1700000000",
            "1700000000.5",
            "2026-07-28",
            "2026-07-28T09:30:00Z",
            "2026-07-28T09:30",
            "2026-07-28T09:30:00",
            "2026-02-30",
            "2026-07-28T24:00:00Z",
            "2026-07-28 09:30:00+02:00",
        ]
    ),
    st.dates().map(date.isoformat),
    st.datetimes(timezones=st.sampled_from([None, timezone.utc])).map(datetime.isoformat),
)
addresses = st.sampled_from(
    ["a", "a@b", "a b@example.com", "mailto:x", "x:y z", "http://", "https://", "a@example.com"]
)
wire_typed = st.one_of(
    marked,
    surrogates,
    numeric_text,
    datelike,
    addresses,
    st.booleans(),
    st.integers(),
    huge_ints,
    st.floats(),
    st.none(),
    st.lists(st.one_of(st.sampled_from(["a", "b", "c", "p", "q", "s"]), marked, surrogates), max_size=4),
)
junk = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), marked),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=4), inner, max_size=3), st.tuples(inner)
    ),
    max_leaves=6,
)
hostile_value = st.one_of(wire_typed, junk)
stray_keys = st.text(min_size=1, max_size=70)
"""Keys the form did not ask for: named in the problem (cut to 64 characters), never a value."""


def _spoil(
    valid: st.SearchStrategy[dict[str, Any]], values: st.SearchStrategy[Any]
) -> st.SearchStrategy[Any]:
    """A valid answer with one to three fields replaced, sometimes with stray keys added."""
    return st.tuples(
        valid,
        st.dictionaries(st.sampled_from(FIELDS), values, min_size=1, max_size=3),
        st.dictionaries(stray_keys, values, max_size=2),
    ).map(lambda parts: {**parts[0], **parts[1], **parts[2]})


valid = valid_answers(SCHEMA)
hostile = st.one_of(
    _spoil(valid, hostile_value),
    st.dictionaries(st.sampled_from(FIELDS), hostile_value, max_size=len(FIELDS)),
    st.none(),
)


# --- the property, counted -------------------------------------------------------------------


@dataclass
class Tally:
    """What a fuzz run tried, and what went wrong (examples kept for the failure message)."""

    counts: Counter[str] = field(default_factory=Counter)
    examples: dict[str, list[str]] = field(default_factory=dict)

    def bad(self, kind: str, what: str) -> None:
        self.counts[kind] += 1
        self.examples.setdefault(kind, []).append(what[:300])


def generated_values(content: object) -> list[str]:
    """What a message must not repeat: marked texts, texts of 12+ characters, long integers."""
    found: list[str] = []
    if isinstance(content, str):
        if MARK in content or len(content) >= 12:
            found.append(content)
    elif isinstance(content, bool):
        pass
    elif isinstance(content, int):
        if 10**7 <= abs(content) < 10**4000:
            found.append(str(content))
    elif isinstance(content, Mapping):
        for value in content.values():  # pyright: ignore[reportUnknownVariableType]
            found += generated_values(value)
    elif isinstance(content, list | tuple):
        for item in content:  # pyright: ignore[reportUnknownVariableType]
            found += generated_values(item)
    return found


def leaks(text: str, content: object) -> str | None:
    """The first generated value `text` repeats, if any."""
    return next((value for value in generated_values(content) if value in text), None)


def judge(tally: Tally, content: Any) -> None:
    """Validate one answer and count the outcome."""
    tally.counts["tried"] += 1
    try:
        instance = validate_content(Everything, SCHEMA, content)
    except InvalidResponse as problem:
        tally.counts["refused"] += 1
        try:
            shown = f"{problem} {problem!r} {problem.errors!r}"
        except Exception as exc:  # counted: the error's own text must never fail
            tally.bad("crashes", f"str/repr of InvalidResponse: {type(exc).__name__}")
            return
        leaked = leaks(shown, content)
        if leaked is not None:
            tally.bad("leaks", f"{leaked!r} in {shown}")
        return
    except Exception as exc:  # counted: anything but InvalidResponse is a crash
        tally.bad("crashes", f"{type(exc).__name__}: {exc}")
        return
    tally.counts["accepted"] += 1
    if not fits_schema(instance.model_dump(mode="json")):
        tally.bad("wrongly accepted", repr(instance))


def fuzz(max_examples: int) -> settings:
    """Deterministic, bounded settings: the same inputs on every run, no example database."""
    return settings(
        max_examples=max_examples,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
    )


@pytest.mark.slow
def test_revalidation_of_fuzzed_answers_refuses_or_returns_a_fitting_instance_never_crashes() -> None:
    tally = Tally()

    @fuzz(150)
    @given(valid)
    def valid_answers_are_taken(content: dict[str, Any]) -> None:
        judge(tally, content)

    @fuzz(650)
    @given(hostile)
    def hostile_answers(content: Any) -> None:
        judge(tally, content)

    valid_answers_are_taken()
    valid_taken = tally.counts["accepted"]
    hostile_answers()
    counts = tally.counts
    print(f"\nfuzz validate_content: {dict(counts)}")
    assert counts["crashes"] == 0, tally.examples["crashes"][:5]
    assert counts["wrongly accepted"] == 0, tally.examples["wrongly accepted"][:5]
    assert counts["leaks"] == 0, tally.examples["leaks"][:5]
    assert counts["tried"] == 800
    assert valid_taken == 150, "every valid answer is taken"
    assert counts["refused"] + counts["accepted"] == counts["tried"]
    assert counts["refused"] > 400, "the hostile strategies reach the refusals"


# --- a small sample through the whole stack --------------------------------------------------

fuzz_server = MCPServer("fuzz")


@fuzz_server.tool()
@elicits(Everything)
async def everything(ctx: ElicitContext) -> str:
    match await ctx.elicit(Everything, "Fill in everything"):
        case Accepted(answer):
            return answer.model_dump_json()
        case _:
            return "no answer"


async def _call(mode: Literal["legacy", "2026-07-28"], content: dict[str, Any] | None) -> tuple[bool, str]:
    async def answer(
        _: Any, params: ElicitRequestFormParams | ElicitRequestURLParams
    ) -> ElicitResult | ErrorData:
        return ElicitResult(action="accept", content=content)

    with anyio.fail_after(BOUND):
        async with Client(fuzz_server, mode=mode, elicitation_callback=answer) as client:
            result = await client.call_tool("everything", {})
    (block,) = result.content
    assert isinstance(block, TextContent)
    return bool(result.is_error), block.text


def _full_stack(tally: Tally, mode: Literal["legacy", "2026-07-28"], content: dict[str, Any] | None) -> None:
    tally.counts["tried"] += 1
    try:
        is_error, text = anyio.run(_call, mode, content)
    except Exception as exc:  # counted: the call must end in a result
        tally.bad("crashes", f"{mode}: {type(exc).__name__}: {exc}")
        return
    if is_error:
        leaked = leaks(text, content)
        if leaked is not None:
            tally.bad("leaks", f"{leaked!r} in {text}")
        if "InvalidResponse: the answer to Everything is invalid" not in text:
            tally.bad("crashes", f"{mode}: {text}")
        else:
            tally.counts["refused"] += 1
        return
    tally.counts["accepted"] += 1
    if not fits_schema(json.loads(text)):
        tally.bad("wrongly accepted", text)


wire_answers = st.one_of(
    valid,
    _spoil(valid, wire_typed.filter(lambda v: not (isinstance(v, float) and not math.isfinite(v)))),
)


def test_fuzzed_answers_through_the_whole_stack_on_a_push_era_and_on_2026_07_28() -> None:
    tally = Tally()

    @fuzz(25)
    @given(wire_answers)
    def through_the_stack(content: dict[str, Any]) -> None:
        _full_stack(tally, "legacy", content)
        _full_stack(tally, "2026-07-28", content)

    through_the_stack()
    counts = tally.counts
    print(f"\nfuzz full stack (2025-11-25 and 2026-07-28): {dict(counts)}")
    assert counts["crashes"] == 0, tally.examples["crashes"][:5]
    assert counts["wrongly accepted"] == 0, tally.examples["wrongly accepted"][:5]
    assert counts["leaks"] == 0, tally.examples["leaks"][:5]
    assert counts["tried"] == 50
    assert counts["refused"] >= 10
    assert counts["accepted"] >= 10


# --- hostile sizes: refused with work bounded by the limit, not by the input -----------------
#
# The SDK has parsed (and validated) an answer before typed_elicit sees it; what follows shows
# typed_elicit's own work stays bounded. Each hostile answer is a counting container
# (tests/counting.py): the assertion is on how many of its entries were read before the refusal.

UNKNOWN_KEYS = 330_000
"""The issue's answer: 3.7 MiB of JSON, 330k keys the form does not have."""


def hostile_question() -> FormQuestion[Any]:
    return FormQuestion("q0", "Fill in everything", Everything, reduced(Everything, "2025-11-25"))


def accepted(content: dict[str, Any]) -> ElicitResult:
    return ElicitResult.model_construct(action="accept", content=content)  # kept as given: a CountingDict


def test_an_answer_with_more_keys_than_fields_is_refused_with_one_problem_reading_none_of_them() -> None:
    content = CountingDict({f"k{i:06d}": 1 for i in range(UNKNOWN_KEYS)})
    problem = f"holds {UNKNOWN_KEYS} keys, more than the {len(FIELDS)} fields of the form"

    with pytest.raises(InvalidResponse) as sized:
        hostile_question().check_size(accepted(content), DEFAULT_MAX_ANSWER_BYTES)
    with pytest.raises(InvalidResponse) as checked:
        validate_content(Everything, SCHEMA, content)

    assert sized.value.errors == (("(answer)", problem),)
    assert sized.value.content is None  # nothing of it is kept, not even for a re-ask's pre-fill
    assert checked.value.errors == (("(answer)", problem),)
    assert content.read == 0


def test_a_list_answer_of_a_million_items_is_refused_with_as_many_calls_as_one_of_100_000() -> None:
    made: list[int] = []
    for items in (10**5, 10**5, 10**6):  # the first run warms what a first run builds once
        question, answer = hostile_question(), accepted({"name": "n", "tags": ["a"] * items})
        with Calls() as calls, pytest.raises(InvalidResponse, match="larger than the limit of 65536 bytes"):
            question.check_size(answer, DEFAULT_MAX_ANSWER_BYTES)
        made.append(calls.made)

    assert made[1] == made[2] < 1_000, made  # the size bound once walked the list: a len() per item


@pytest.mark.parametrize(("field", "options"), [("tags", 3), ("titled_tags", 2)])
def test_a_list_answer_with_more_items_than_options_is_refused_reading_none_of_its_items(
    field: str, options: int
) -> None:
    picks = CountingList(["p" if field == "titled_tags" else "a"] * 50)

    with pytest.raises(InvalidResponse) as caught:
        validate_content(Everything, SCHEMA, {"name": "n", "titled_tags": ["p"], field: picks})

    assert caught.value.errors == ((field, f"holds 50 items, more than the {options} options offered"),)
    assert picks.read == 0


def test_the_size_of_a_huge_answer_is_counted_reading_at_most_the_limit_s_worth() -> None:
    wide = CountingDict({f"k{i:06d}": 1 for i in range(10**6)})
    long_ = CountingDict({f"k{i:06d}": "x" * 10 for i in range(10_000)})

    assert json_size(wide, DEFAULT_MAX_ANSWER_BYTES) > DEFAULT_MAX_ANSWER_BYTES
    assert json_size(long_, DEFAULT_MAX_ANSWER_BYTES) > DEFAULT_MAX_ANSWER_BYTES

    assert wide.read == 0  # a million entries take at least 5 MB: refused on its length alone
    assert long_.read <= DEFAULT_MAX_ANSWER_BYTES // 20  # each entry is 21 bytes: read until past the limit


async def _answer_with(mode: Literal["legacy", "2026-07-28"], content: dict[str, Any]) -> str:
    async def answer(_: Any, params: Any) -> ElicitResult:
        return ElicitResult(action="accept", content=content)

    with anyio.fail_after(BOUND * 3):
        async with Client(fuzz_server, mode=mode, elicitation_callback=answer) as client:
            result = await client.call_tool("everything", {})
    (block,) = result.content
    assert isinstance(block, TextContent)
    assert result.is_error
    return block.text


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_an_answer_with_thousands_of_unknown_keys_is_refused_whole_on_both_eras(
    mode: Literal["legacy", "2026-07-28"],
) -> None:
    text = await _answer_with(mode, {f"k{i:05d}": 1 for i in range(33_000)})

    assert (
        f"the answer to Everything is invalid: (answer): holds 33000 keys, more than the {len(FIELDS)}"
        in text
    )
    assert "k00001" not in text
