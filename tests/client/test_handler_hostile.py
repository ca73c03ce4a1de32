"""Hostile requested schemas: every one is refused with a clean, bounded -32602, nothing crashes.

A fixed, systematically generated list of hand-made hostile schemas, plus a Hypothesis
strategy of random JSON-ish schemas. The property for both: `parse_requested_schema`
returns a `FormSpec` or raises `RequestedSchemaError` (never anything else, and never the
catch-all problem); the handler and the CI responder answer -32602 for every refused one;
a `FormSpec`'s model builds and round-trips a valid value.
"""

from __future__ import annotations

import contextlib
import gc
import json
import re
import tracemalloc
from collections.abc import Callable, Iterator
from typing import Any, cast

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp.client import ClientRequestContext
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INVALID_PARAMS,
    ElicitRequest,
    ElicitRequestFormParams,
    ErrorData,
    InputRequiredResult,
    TextContent,
)
from pydantic import BaseModel

from tests.conftest import examples
from tests.wire.test_parse import HOSTILE as STRUCTURAL
from typed_elicit import PROTOCOL_VERSIONS, ProtocolVersion
from typed_elicit._core.results import ElicitResult as TypedResult
from typed_elicit._wire.parse import UNCHECKED_PROBLEM, _parse_cached
from typed_elicit._wire.spec import (
    CACHE_ENTRIES,
    CACHED_FIELDS,
    CACHED_SCHEMA_LENGTH,
    MAX_FIELDS,
    MAX_MESSAGE_LENGTH,
    MAX_NAME_LENGTH,
    MAX_OPTIONS,
    MAX_TEXT_LENGTH,
    check_value,
)
from typed_elicit.client import (
    FormRequest,
    FormSpec,
    RequestedSchemaError,
    Responder,
    elicitation_handler,
    parse_requested_schema,
)
from typed_elicit.client._responder import plausible_value
from typed_elicit.errors._base import MAX_PROBLEMS
from typed_elicit.testing._kit import connect

MAX_MESSAGE_CHARS = 200 + MAX_PROBLEMS * 310
"""The longest a refusal's message may be: a header and `MAX_PROBLEMS` bounded lines."""
LONG_DIGITS = re.compile(r"[0-9]{46,}")
PYTHON_TEXT = ("Traceback", "Error building", "OverflowError", "SchemaError", "TypeError", 'File "')


def obj(**properties: object) -> dict[str, object]:
    return {"type": "object", "properties": properties}


def hostile_cases() -> Iterator[tuple[str, object, str]]:
    """(case id, schema, text the refusal must contain), generated category by category."""
    # Bounds beyond any float, non-finite ones, over-long integers and wrong types.
    for kind in ("integer", "number"):
        for key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
            path = f"properties.a.{key}"
            for big in (10**400, -(10**400), 2**1024, 10**309):
                yield f"{kind}-{key}-big{len(str(big))}", obj(a={"type": kind, key: big}), path
            for tag, bad in (("inf", float("inf")), ("-inf", float("-inf")), ("nan", float("nan"))):
                yield f"{kind}-{key}-{tag}", obj(a={"type": kind, key: bad}), "not JSON"
            yield f"{kind}-{key}-5000-digits", obj(a={"type": kind, key: 10**5000}), "not JSON"
            for wrong in ("1", [1], {"n": 1}):
                yield f"{kind}-{key}-{type(wrong).__name__}", obj(a={"type": kind, key: wrong}), path
        for key in ("minimum", "maximum"):
            yield f"{kind}-{key}-bool", obj(a={"type": kind, key: True}), f"properties.a.{key}"
        # ("0e99999999999999999999" is not here: it is 0, as any JSON parser reads it; see test_wire.)
        for default in (10**400, -(10**400), "1e400", "-1e99999", "0x10", True):
            case = f"{kind}-default-{str(default)[:6]}"
            yield case, obj(a={"type": kind, "default": default}), "properties.a.default"
    # Lengths and item counts that overflow a machine word, or are not counts.
    for kind, keys in (("string", ("minLength", "maxLength")), ("array", ("minItems", "maxItems"))):
        for key in keys:
            for count in (2**64, 2**63, 2**31, 10**400, -1, -(2**64), 1.5, True, "5", [3], {"n": 3}):
                prop: dict[str, object] = {"type": kind, key: count}
                if kind == "array":
                    prop["items"] = {"type": "string", "enum": ["x", "y"]}
                yield f"{key}-{str(count)[:6]}", obj(a=prop), f"properties.a.{key}"
    # Lone surrogates anywhere a text travels.
    for lone in ("\ud800", "a\udfffb"):
        tag = "high" if lone == "\ud800" else "low"
        yield f"surrogate-name-{tag}", obj(**{f"n{lone}": {"type": "string"}}), "lone surrogate"
        for key in ("title", "description"):
            yield f"surrogate-{key}-{tag}", obj(a={"type": "string", key: lone}), f"properties.a.{key}"
            schema = {**obj(a={"type": "string"}), key: lone}
            yield f"surrogate-top-{key}-{tag}", schema, f"{key}: "
        yield f"surrogate-enum-{tag}", obj(a={"type": "string", "enum": ["ok", lone]}), "a.enum[1]"
        yield f"surrogate-untyped-enum-{tag}", obj(a={"enum": [lone]}), "a.enum[0]"
        names = {"type": "string", "enum": ["x"], "enumNames": [lone]}
        yield f"surrogate-enumNames-{tag}", obj(a=names), "a.enumNames[0]"
        for part in ("const", "title"):
            option = {"const": "x", "title": "X", part: lone}
            yield f"surrogate-oneOf-{part}-{tag}", obj(a={"type": "string", "oneOf": [option]}), f"[0].{part}"
            multi = {"type": "array", "items": {"anyOf": [option]}}
            yield f"surrogate-anyOf-{part}-{tag}", obj(a=multi), f"items.anyOf[0].{part}"
        items = {"type": "array", "items": {"type": "string", "enum": [lone]}}
        yield f"surrogate-items-enum-{tag}", obj(a=items), "items.enum[0]"
        yield f"surrogate-const-{tag}", obj(a={"const": lone}), "properties.a.const"
        yield f"surrogate-default-{tag}", obj(a={"type": "string", "default": lone}), "a.default"
    # Sizes: texts, names, fields, options, whole schemas, nesting.
    yield "text-title", obj(a={"type": "string", "title": "t" * (MAX_TEXT_LENGTH + 1)}), "a.title"
    yield "text-description", obj(a={"type": "string", "description": "d" * 2_000_000}), "characters as JSON"
    yield "text-enum-value", obj(a={"enum": ["v" * (MAX_TEXT_LENGTH + 1)]}), "a.enum[0]"
    yield "text-const", obj(a={"const": "c" * (MAX_TEXT_LENGTH + 1)}), "a.const"
    yield "long-name", obj(**{"n" * (MAX_NAME_LENGTH + 1): {"type": "string"}}), "printable characters"
    yield "huge-name", obj(**{"n" * 500_000: {"type": "string"}}), "printable characters"
    yield "many-fields", obj(**{f"f{i}": {"type": "string"} for i in range(MAX_FIELDS + 1)}), "fields"
    many = [str(i) for i in range(MAX_OPTIONS + 1)]
    yield "many-enum", obj(a={"enum": many}), "options"
    yield (
        "many-oneOf",
        obj(a={"type": "string", "oneOf": [{"const": v, "title": v} for v in many]}),
        "options",
    )
    yield "many-items", obj(a={"type": "array", "items": {"enum": many}}), "options"
    yield "huge-schema", obj(a={"enum": ["x" * 1000] * 2000}), "characters as JSON"
    # 200,000 characters, but 1.2 MB as ASCII JSON: past the cheap lower bound, the exact count refuses it.
    yield "escaped-schema", obj(a={"type": "string", "description": "\u00e9" * 200_000}), "characters as JSON"
    names = [f"n{i}" for i in range(MAX_FIELDS + 1)]
    yield "many-required", {**obj(a={"type": "string"}), "required": names}, "201 properties, more than"
    nested: dict[str, Any] = {}
    for _ in range(50_000):
        nested = {"x": nested}
    yield "deep-nesting", obj(a=nested), "nested too deeply"
    yield "not-json", obj(a={"type": "string", "default": object()}), "not JSON"
    # Bounds no value satisfies.
    yield (
        "exclusive-equal",
        obj(a={"type": "number", "exclusiveMinimum": 5, "exclusiveMaximum": 5}),
        "no number",
    )
    yield "exclusive-vs-max", obj(a={"type": "number", "minimum": 1, "exclusiveMaximum": 1}), "no number"
    yield (
        "exclusive-no-int",
        obj(a={"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 1}),
        "no integer",
    )
    draft4 = {"type": "integer", "minimum": 3, "maximum": 3, "exclusiveMinimum": True}
    yield "exclusive-draft4", obj(a=draft4), "no integer"
    yield "exclusive-crossed", obj(a={"type": "number", "exclusiveMinimum": 9, "maximum": 2}), "no number"
    yield "const-number", obj(a={"const": 3}), "a.const"
    yield "const-and-enum", obj(a={"const": "x", "enum": ["x"]}), "use one"
    yield "untyped-enum-numbers", obj(a={"enum": [1, 2]}), "must be strings"
    # A default beside options that are not there (found by hypothesis: the default was checked
    # against a choice of no options, and only the safety net caught it).
    yield "empty-enum-default", obj(a={"enum": [], "default": None}), "a.enum: must be a non-empty list"
    yield "empty-oneof-default", obj(a={"oneOf": [], "default": "x"}), "a.oneOf: must be a non-empty list"
    empty_items = {"type": "array", "items": {"enum": []}, "default": ["x"]}
    yield "empty-items-default", obj(a=empty_items), "a.items.enum: must be a non-empty list"
    # The structural list of the schema tests.
    for index, (schema, expected) in enumerate(STRUCTURAL):
        yield f"structural-{index}", schema, expected


CASES = list(hostile_cases())


def assert_clean(message: str) -> None:
    """A refusal's text: bounded, valid UTF-8, no Python internals, no huge value echoed."""
    assert len(message) <= MAX_MESSAGE_CHARS
    message.encode("utf-8")
    assert not LONG_DIGITS.search(message)
    assert not any(text in message for text in PYTHON_TEXT)
    assert UNCHECKED_PROBLEM not in message


def refusal(schema: object) -> RequestedSchemaError:
    try:
        parse_requested_schema(schema)
    except RequestedSchemaError as exc:
        return exc
    raise AssertionError("accepted")


def form_params(schema: object, message: str = "hostile") -> ElicitRequestFormParams:
    return ElicitRequestFormParams.model_construct(message=message, mode="form", requested_schema=schema)


async def never(request: FormRequest) -> TypedResult[BaseModel]:
    raise AssertionError("a refused schema reached the handler")


NO_CONTEXT = cast("ClientRequestContext", None)


@pytest.mark.anyio
async def test_every_hand_made_hostile_schema_is_refused_cleanly_by_parser_handler_and_responder() -> None:
    callback = elicitation_handler(never)
    responder = Responder({"a": "x"})
    tried = refused = crashes = 0
    for case, schema, expected in CASES:
        tried += 1
        try:
            error = refusal(schema)
        except Exception as exc:  # counted, then reported by the assertion below
            crashes += 1
            print(f"{case}: {type(exc).__name__}")
            continue
        assert expected in str(error), case
        assert_clean(str(error))
        for reply in (
            await callback(NO_CONTEXT, form_params(schema)),
            responder.respond(form_params(schema)),
        ):
            assert isinstance(reply, ErrorData), case
            assert reply.code == INVALID_PARAMS
            assert_clean(reply.message)
            assert isinstance(reply.data, dict)
            assert len(cast("dict[str, list[str]]", reply.data)["problems"]) <= MAX_PROBLEMS
        refused += 1

    print(f"hand-made hostile schemas: tried {tried}, refused cleanly {refused}, crashes {crashes}")
    assert (tried, refused, crashes) == (len(CASES), len(CASES), 0)
    assert tried >= 200


def test_a_refusal_lists_at_most_max_problems_and_says_how_many_more() -> None:
    schema = obj(**{f"f{i}": {"type": "string", "minLength": -i - 1} for i in range(MAX_FIELDS)})

    error = refusal(schema)

    assert len(error.problems) == MAX_PROBLEMS
    assert error.problems[-1] == f"and {MAX_FIELDS - MAX_PROBLEMS + 1} more problems"
    assert f"({MAX_FIELDS} problems)" in str(error)


def test_a_long_value_is_shown_shortened_and_ascii_escaped() -> None:
    error = refusal(obj(a={"type": "string", "format": "\u00e9" * 10_000}))

    assert error.problems == (
        "properties.a.format: must be one of email, uri, date, date-time, got '" + "\\xe9" * 40 + "...'",
    )


@pytest.mark.anyio
@pytest.mark.parametrize(
    "message", ["\ud800 hostile", "m" * (MAX_MESSAGE_LENGTH + 1)], ids=["surrogate", "too-long"]
)
async def test_a_hostile_message_is_refused_with_invalid_params(message: str) -> None:
    reply = await elicitation_handler(never)(NO_CONTEXT, form_params(obj(), message))

    assert isinstance(reply, ErrorData)
    assert reply.code == INVALID_PARAMS
    assert reply.message.splitlines()[1].startswith("  - message: ")
    assert_clean(reply.message)


# --- random JSON-ish schemas -------------------------------------------------------------------

LONE = st.sampled_from(["\ud800", "x\udc00", "\udbff\ud800"])
TEXT = st.one_of(st.text(max_size=8), LONE, st.sampled_from(["a", "b", "first-name", "class", "model_dump"]))
HUGE = st.sampled_from([10**400, -(10**400), 2**64, 2**63 - 1, -(2**31), 10**308, 1e308, -1e-308])
NUMBER = st.one_of(
    st.integers(-20, 20), st.floats(-1e6, 1e6), st.floats(allow_nan=True, allow_infinity=True), HUGE
)
LEAF = st.one_of(st.none(), st.booleans(), NUMBER, TEXT)
OPTION = st.fixed_dictionaries({}, optional={"const": st.one_of(TEXT, LEAF), "title": st.one_of(TEXT, LEAF)})
OPTIONS = st.one_of(st.lists(OPTION, max_size=4), LEAF)
ENUM = st.one_of(st.lists(TEXT, max_size=5), st.lists(LEAF, max_size=3), LEAF)
COUNT = st.one_of(st.integers(0, 6), st.integers(-3, 3), HUGE, LEAF)
KIND = st.one_of(st.sampled_from(["string", "integer", "number", "boolean", "array", "object", "null"]), LEAF)
ITEMS = st.one_of(
    st.fixed_dictionaries(
        {}, optional={"type": st.one_of(st.just("string"), LEAF), "enum": ENUM, "anyOf": OPTIONS}
    ),
    LEAF,
)
PROPERTY = st.one_of(
    st.fixed_dictionaries(
        {},
        optional={
            "type": KIND,
            "title": st.one_of(TEXT, LEAF),
            "description": TEXT,
            "enum": ENUM,
            "enumNames": ENUM,
            "oneOf": OPTIONS,
            "const": st.one_of(TEXT, LEAF),
            "items": ITEMS,
            "format": st.one_of(st.sampled_from(["email", "uri", "date", "date-time", "hostname"]), LEAF),
            "minimum": NUMBER,
            "maximum": NUMBER,
            "exclusiveMinimum": st.one_of(NUMBER, st.booleans()),
            "exclusiveMaximum": st.one_of(NUMBER, st.booleans()),
            "minLength": COUNT,
            "maxLength": COUNT,
            "minItems": COUNT,
            "maxItems": COUNT,
            "default": st.one_of(LEAF, st.lists(TEXT, max_size=3)),
            "$ref": TEXT,
            "anyOf": OPTIONS,
        },
    ),
    LEAF,
)
CLEAN = st.text(max_size=8)
WORDS = st.lists(st.text(min_size=1, max_size=6), min_size=1, max_size=5, unique=True)
NICE_NAMES = st.one_of(
    st.from_regex(r"[a-z][a-z0-9_-]{0,10}", fullmatch=True),
    st.sampled_from(["class", "model_dump", "first-name", "_x", "field_a", "\u00e9t\u00e9", "\ufb01"]),
)
SMALL = st.one_of(st.integers(-100, 100), st.floats(-100, 100))
BOUNDS = st.fixed_dictionaries(
    {},
    optional={
        "minimum": SMALL,
        "maximum": SMALL,
        "exclusiveMinimum": st.one_of(SMALL, st.booleans()),
        "exclusiveMaximum": st.one_of(SMALL, st.booleans()),
        "default": SMALL,
    },
)
NEAR_VALID = st.one_of(
    st.builds(
        lambda lengths, fmt, default: {"type": "string", **lengths, **fmt, **default},
        st.fixed_dictionaries(
            {}, optional={"minLength": st.integers(0, 12), "maxLength": st.integers(0, 40)}
        ),
        st.one_of(
            st.just({}), st.sampled_from(["email", "uri", "date", "date-time"]).map(lambda f: {"format": f})
        ),
        st.one_of(st.just({}), CLEAN.map(lambda d: {"default": d})),
    ),
    st.builds(lambda kind, bounds: {"type": kind, **bounds}, st.sampled_from(["integer", "number"]), BOUNDS),
    st.builds(lambda default: {"type": "boolean", "default": default}, st.booleans()),
    st.builds(
        lambda values, typed: {"enum": values, **typed}, WORDS, st.sampled_from([{}, {"type": "string"}])
    ),
    st.builds(lambda value: {"const": value}, CLEAN),
    st.builds(
        lambda values: {"type": "string", "oneOf": [{"const": v, "title": v.upper()} for v in values]}, WORDS
    ),
    st.builds(
        lambda values, counts: {"type": "array", "items": {"enum": values}, **counts},
        WORDS,
        st.fixed_dictionaries({}, optional={"minItems": st.integers(0, 3), "maxItems": st.integers(0, 6)}),
    ),
)
NAMES = st.one_of(TEXT, st.sampled_from(["", " ", "a\x1b[31m", "_x", "model_config", "field_a", "é", "ﬁ"]))
SCHEMA = st.one_of(
    st.builds(
        lambda props, count: {"type": "object", "properties": props, "required": list(props)[:count]},
        st.dictionaries(NICE_NAMES, NEAR_VALID, max_size=5),
        st.integers(0, 5),
    ),
    st.builds(
        lambda props: {"type": "object", "properties": props},
        st.dictionaries(NICE_NAMES, NEAR_VALID, max_size=3),
    ),
    st.fixed_dictionaries(
        {
            "type": st.just("object"),
            "properties": st.dictionaries(NAMES, st.one_of(NEAR_VALID, PROPERTY), max_size=4),
        },
    ),
    st.fixed_dictionaries(
        {
            "type": st.one_of(st.just("object"), st.just("object"), KIND),
            "properties": st.one_of(st.dictionaries(NAMES, PROPERTY, max_size=4), LEAF),
        },
        optional={
            "required": st.one_of(st.lists(NAMES, max_size=3), LEAF),
            "title": TEXT,
            "description": TEXT,
        },
    ),
    st.recursive(LEAF, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3)),
)


def round_trips(form: FormSpec) -> bool:
    """Build a valid answer from the form's own fields and check it survives validation twice.

    Returns False (and checks nothing) when no demo value fits a required field, e.g. a
    `date` with `minLength: 30`: such a form has no valid answer at all.
    """
    answer: dict[str, object] = {}
    for spec in form.fields:
        value = plausible_value(spec)
        try:
            answer[spec.name] = check_value(spec, value)
        except ValueError:
            if spec.required and not spec.has_default:
                return False
    content = form.content(answer)
    assert form.content(content) == content
    assert set(content) <= {spec.name for spec in form.fields}
    json.dumps(content, allow_nan=False).encode("utf-8")
    return True


@pytest.mark.slow
@pytest.mark.anyio
async def test_random_json_ish_schemas_are_parsed_or_refused_never_crashed_on() -> None:
    schemas: list[object] = []
    tally = {"tried": 0, "accepted": 0, "round_tripped": 0, "refused": 0, "crashes": 0}

    @settings(
        max_examples=examples(500),
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(SCHEMA)
    def parse_one(schema: object) -> None:
        tally["tried"] += 1
        try:
            form = parse_requested_schema(schema)
        except RequestedSchemaError as exc:
            assert_clean(str(exc))
            tally["refused"] += 1
            schemas.append(schema)
            return
        except Exception:
            tally["crashes"] += 1
            raise
        tally["accepted"] += 1
        tally["round_tripped"] += round_trips(form)

    parse_one()
    callback = elicitation_handler(never)
    for schema in schemas:
        reply = await callback(NO_CONTEXT, form_params(schema))
        assert isinstance(reply, ErrorData)
        assert reply.code == INVALID_PARAMS

    print(f"random schemas: {tally}")
    assert tally["crashes"] == 0
    assert tally["tried"] >= 400
    assert tally["refused"] >= 100
    assert tally["accepted"] >= 50
    assert tally["round_tripped"] >= tally["accepted"] * 0.9


# --- memory a hostile server can make the client keep ------------------------------------------


def retained_after(schemas: Iterator[object]) -> int:
    """Bytes still allocated after parsing every schema (refusals included), cache kept."""
    _parse_cached.cache_clear()
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for schema in schemas:
            with contextlib.suppress(RequestedSchemaError):
                parse_requested_schema(schema)
        del schema  # the test's own input, not what the client kept
        gc.collect()
        return tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()


def test_ten_schemas_with_20_mb_descriptions_leave_nothing_behind() -> None:
    retained = retained_after(
        obj(a={"type": "string", "description": f"{i}" + "d" * 20_000_000}) for i in range(10)
    )

    print(f"retained after 10 schemas with 20 MB descriptions: {retained} bytes")
    assert retained < 256 * 1024


def big_form(seed: int, fields: int, options: int) -> dict[str, object]:
    """A valid form of `fields` choices of `options` 100-character values each."""
    values = [f"{seed}-{i}-".ljust(100, "v") for i in range(options)]
    return obj(**{f"f{i}": {"type": "string", "enum": values} for i in range(fields)})


def many_fields(seed: int, fields: int, pad: int = 0) -> dict[str, object]:
    """A valid form of `fields` booleans, the costliest model per character of JSON."""
    return {**obj(**{f"f{seed}_{i}": {"type": "boolean"} for i in range(fields)}), "description": "d" * pad}


@pytest.mark.slow
def test_schemas_over_the_cached_size_are_parsed_but_not_kept() -> None:
    long_one, wide_one = big_form(0, 1, 90), many_fields(0, CACHED_FIELDS + 1)
    assert CACHED_SCHEMA_LENGTH < len(json.dumps(long_one)) < 2 * CACHED_SCHEMA_LENGTH

    assert parse_requested_schema(long_one) is not parse_requested_schema(long_one)
    assert parse_requested_schema(wide_one) is not parse_requested_schema(wide_one)
    retained = retained_after(big_form(i, 100, 90) for i in range(10))
    wide = retained_after(many_fields(i, 50) for i in range(CACHE_ENTRIES + 8))

    print(f"retained after 10 accepted 0.9 MiB schemas: {retained} bytes")
    print(f"retained after {CACHE_ENTRIES + 8} accepted 50-field schemas: {wide} bytes")
    assert retained < 128 * 1024
    assert wide < 4 * 1024 * 1024  # typing's own LRU caches (128 entries each), full after ~128 forms


@pytest.mark.slow
def test_the_cache_holds_at_most_its_entries_of_at_most_the_cached_size() -> None:
    pad = CACHED_SCHEMA_LENGTH - len(json.dumps(many_fields(999, CACHED_FIELDS))) - 10
    retained = retained_after(many_fields(i, CACHED_FIELDS, pad) for i in range(3 * CACHE_ENTRIES))

    print(f"retained after {3 * CACHE_ENTRIES} distinct cacheable schemas (worst case): {retained} bytes")
    assert _parse_cached.cache_info().currsize == CACHE_ENTRIES
    assert retained < CACHE_ENTRIES * 128 * 1024


# --- over the wire ------------------------------------------------------------------------------

WIRE_CASES: dict[str, dict[str, object]] = {
    "bound": obj(a={"type": "integer", "minimum": 10**400}),
    "length": obj(a={"type": "string", "maxLength": 2**64}),
    "items": obj(a={"type": "array", "items": {"enum": ["x"]}, "maxItems": 2**64}),
}

asker = MCPServer("hostile-asker")


@asker.tool()
async def ask(ctx: Context, case: str) -> str | InputRequiredResult:
    """Send one hostile form and report the error that came back."""
    schema = WIRE_CASES[case]
    if ctx.protocol_version == "2026-07-28":
        params = ElicitRequestFormParams(message="hostile", requested_schema=schema)
        return InputRequiredResult(input_requests={"q": ElicitRequest(params=params)}, request_state="r")
    try:
        await ctx.session.elicit_form("hostile", schema, related_request_id=ctx.request_id)
    except MCPError as exc:
        return f"error {exc.code}: {exc.message}"
    return "answered"


@pytest.mark.anyio
@pytest.mark.parametrize("era", PROTOCOL_VERSIONS)
@pytest.mark.parametrize("case", list(WIRE_CASES))
async def test_a_hostile_schema_over_the_wire_gets_invalid_params_naming_its_path(
    era: ProtocolVersion, case: str
) -> None:
    callback = elicitation_handler(never)
    with anyio.fail_after(10):
        async with connect(asker, era, elicitation_callback=callback) as client:
            if era == "2026-07-28":
                with pytest.raises(MCPError) as caught:
                    await client.call_tool("ask", {"case": case})
                code, message = caught.value.code, caught.value.message
            else:
                result = await client.call_tool("ask", {"case": case})
                content = result.content[0]
                assert isinstance(content, TextContent)
                code_text, _, message = content.text.removeprefix("error ").partition(": ")
                code = int(code_text)

    assert code == INVALID_PARAMS
    assert "properties.a." in message
    assert_clean(message)


def test_valid_schemas_still_parse_after_the_hostile_ones() -> None:
    for _, schema, _ in CASES[:5]:
        with pytest.raises(RequestedSchemaError):
            parse_requested_schema(schema)

    assert parse_requested_schema(obj(a={"type": "string"})).content({"a": "x"}) == {"a": "x"}


def test_a_failure_no_check_foresaw_is_still_a_clean_refusal(monkeypatch: pytest.MonkeyPatch) -> None:
    def overflow(self: object, schema: object) -> FormSpec:
        raise OverflowError("int too large to convert to float: 1" + "0" * 400)

    monkeypatch.setattr("typed_elicit._wire.parse._Parser.parse", overflow)

    error = refusal(obj(a={"type": "string", "title": "unforeseen"}))

    assert error.problems == (UNCHECKED_PROBLEM,)
    assert "OverflowError" not in str(error)


# --- hostile sizes: refused with work bounded by the limit, not by the schema ----------------


def refusal_peak(schema: object) -> tuple[RequestedSchemaError, int]:
    """The refusal of `schema`, and the most memory parsing it allocated at once (tracemalloc)."""
    _parse_cached.cache_clear()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        error = refusal(schema)
        return error, tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


def million() -> list[str]:
    return [f"v{i}" for i in range(10**6)]


def many_properties(count: int) -> dict[str, object]:
    prop = {"type": "string"}  # one object shared by every property: the test's own memory stays small
    return obj(**{f"f{i}": prop for i in range(count)})


def titled(count: int, title: str) -> list[dict[str, str]]:
    return [{"const": f"v{i}", "title": title} for i in range(count)]


BOUNDED_CASES: dict[str, tuple[Callable[[], object], str]] = {
    "million-properties": (
        lambda: many_properties(10**6),
        "properties: 1000000 fields, more than the 200 allowed",
    ),
    "million-enum": (lambda: obj(a={"type": "string", "enum": million()}), "characters as JSON"),
    "million-items": (lambda: obj(a={"type": "array", "items": {"enum": million()}}), "characters as JSON"),
    "million-required": (lambda: {**obj(a={"type": "string"}), "required": million()}, "characters as JSON"),
    "20-mb-title": (lambda: obj(a={"type": "string", "title": "t" * 20_000_000}), "characters as JSON"),
    "20-mb-unknown-keyword": (
        lambda: obj(a={"type": "string", "x-note": ["n" * 1000] * 20_000}),
        "characters as JSON",
    ),
    "thousand-100-kb-titles": (
        lambda: obj(a={"type": "string", "oneOf": titled(1000, "t" * 100_000)}),
        "characters as JSON",
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", list(BOUNDED_CASES))
def test_a_huge_schema_is_refused_allocating_a_bounded_amount(case: str) -> None:
    make, expected = BOUNDED_CASES[case]
    schema = make()

    error, peak = refusal_peak(schema)

    assert expected in str(error)
    assert_clean(str(error))
    assert peak < 256 * 1024, peak  # serialising any of these whole would take megabytes
