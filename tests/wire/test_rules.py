"""The wire rules both ends share, and answers that never leak (issue 9, items 2, 3, 5 and 6)."""

from __future__ import annotations

import json
import logging
from datetime import date, datetime, timedelta, timezone
from typing import Any, Literal

import anyio
import pytest
from mcp.server.mcpserver import MCPServer
from mcp_types import TextContent
from pydantic import AnyUrl, BaseModel, EmailStr, Field, HttpUrl, ValidationError, field_validator

from tests.conftest import BOUND
from tests.counting import CountingDict
from typed_elicit import Accepted, ElicitContext, elicits, reduce_schema
from typed_elicit._forms.validate import validate_content
from typed_elicit._wire.rules import TOO_LARGE, check_uri, json_floor, json_size, wire_number
from typed_elicit.client import model_from_schema, parse_requested_schema
from typed_elicit.errors import InvalidResponse
from typed_elicit.errors._base import MAX_PATH_LENGTH, MAX_PROBLEM_LENGTH, MAX_PROBLEMS
from typed_elicit.testing import ScriptedUser, accept, send_raw

SSN = "078-05-1120"


class Applicant(BaseModel):
    """Who is applying?"""

    tax_ref: str = Field(min_length=11, max_length=11)
    age: int = Field(ge=0, le=150)
    note: str = ""


class Echoing(BaseModel):
    """A model whose own validator quotes the value (the tool's choice, bounded by typed_elicit)."""

    name: str = ""
    count: int = 0

    @field_validator("name")
    @classmethod
    def no_x(cls, value: str) -> str:
        if "x" in value:
            raise ValueError(f"{value} holds an x")
        return value


class Amounts(BaseModel):
    amount: float = 0.0
    count: int = 0


AMOUNTS = reduce_schema(Amounts)

server = MCPServer("wire-rules")


@server.tool()
@elicits(Applicant)
async def apply(ctx: ElicitContext) -> str:
    match await ctx.elicit(Applicant):
        case Accepted(Applicant(age=age)):
            return f"applied at {age}"
        case _:
            return "no application"


@server.tool()
@elicits(Applicant, retries=1)
async def apply_retried(ctx: ElicitContext) -> str:
    match await ctx.elicit(Applicant):
        case Accepted(Applicant(age=age)):
            return f"applied at {age}"
        case _:
            return "no application"


@server.tool()
@elicits(Applicant)
async def apply_and_catch(ctx: ElicitContext) -> str:
    try:
        await ctx.elicit(Applicant)
    except InvalidResponse as problem:
        kept = problem.content is not None and problem.content.get("tax_ref") == SSN
        return f"caught; content kept: {kept}"
    return "valid"


@server.tool()
@elicits(Echoing, retries=2)
async def echoing(ctx: ElicitContext) -> str:
    match await ctx.elicit(Echoing):
        case Accepted(Echoing(name=name, count=count)):
            return f"{name}/{count}"
        case _:
            return "none"


@server.tool()
@elicits(Amounts)
async def amounts(ctx: ElicitContext) -> str:
    match await ctx.elicit(Amounts):
        case Accepted(Amounts(amount=amount, count=count)):
            return f"{amount!r}/{count!r}"
        case _:
            return "none"


async def call(client: Any, name: str) -> tuple[bool, str]:
    with anyio.fail_after(BOUND):
        result = await client.call_tool(name, {})
    (block,) = result.content
    assert isinstance(block, TextContent)
    return bool(result.is_error), block.text


# --- item 3: answers never reach a log, an error message or the model ----------------------


@pytest.mark.anyio
@pytest.mark.parametrize("tool", ["apply", "apply_retried"])
async def test_an_invalid_answer_leaks_no_value_into_the_result_the_logs_or_the_error(
    connect, era, tool, caplog: pytest.LogCaptureFixture
):
    caplog.set_level(logging.DEBUG)
    content = {"tax_ref": SSN, "age": "many", "note": "PRIVATE-NOTE"}
    scripted = ScriptedUser(send_raw({**content}), send_raw({**content}))
    async with connect(server, era, scripted) as client:
        is_error, text = await call(client, tool)
    assert is_error
    assert len(scripted.questions) == (2 if tool == "apply_retried" else 1)
    assert all(SSN not in question.message for question in scripted.questions)
    assert "age: expected a number, got a string that is not a JSON number" in text
    assert caplog.records, "the SDK logs the failed tool (INFO): the check below looks at real records"
    for secret in (SSN, "PRIVATE-NOTE", "many"):
        assert secret not in text
        assert secret not in caplog.text
        assert all(secret not in record.getMessage() for record in caplog.records)
    with pytest.raises(InvalidResponse) as caught:
        validate_content(Applicant, reduce_schema(Applicant), content)
    for shown in (str(caught.value), repr(caught.value), repr(caught.value.errors), repr(caught.value.args)):
        assert SSN not in shown
        assert "PRIVATE-NOTE" not in shown
    assert caught.value.content == content


@pytest.mark.anyio
async def test_the_tool_still_reads_the_raw_answer_from_the_error(connect, era):
    async with connect(server, era, ScriptedUser(send_raw({"tax_ref": SSN, "age": -1}))) as client:
        assert await call(client, "apply_and_catch") == (False, "caught; content kept: True")


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ({"tax_ref": SSN, "age": True}, "age: expected a number, got a boolean"),
        ({"tax_ref": SSN, "age": [SSN]}, "age: expected a number, got a list"),
        ({"tax_ref": SSN, "age": {"v": SSN}}, "age: expected a number, got an object"),
        ({"tax_ref": SSN, "age": 30, "note": 7}, "note: expected a string, got a number"),
        ({"tax_ref": SSN, "age": 2.5}, "age: expected a whole number, got a fraction"),
        ({"tax_ref": SSN, "age": 200}, "age: Input should be less than or equal to 150"),
        ({"tax_ref": SSN + "0", "age": 3}, "tax_ref: String should have at most 11 characters"),
    ],
)
def test_every_problem_names_the_kind_of_value_never_the_value(content, problem):
    with pytest.raises(InvalidResponse) as caught:
        validate_content(Applicant, reduce_schema(Applicant), content)
    assert problem in str(caught.value)
    assert SSN not in str(caught.value)
    assert SSN not in repr(caught.value)


@pytest.mark.parametrize(
    "value", [10**5000, -(10**4400), "9" * 5000, 10**309], ids=["int-5001", "int-4401", "str-5000", "int-310"]
)
def test_huge_integers_give_an_error_whose_text_and_repr_work(value):
    with pytest.raises(InvalidResponse) as caught:
        validate_content(Amounts, AMOUNTS, {"count": value})
    assert caught.value.errors == (("count", TOO_LARGE),)
    assert "count: expected a number a 64-bit float can hold" in repr(caught.value)
    assert caught.value.content == {"count": value}
    built = InvalidResponse("Amounts", [("count", "bad")], {"count": 10**5000})
    assert "count: bad" in repr(built)


# --- item 2 (part): problem texts are bounded, so is the re-ask message ----------------------


def test_a_validator_quoting_a_huge_value_is_cut_to_the_documented_length():
    huge = "x" * (4 * 1024 * 1024)
    with pytest.raises(InvalidResponse) as caught:
        validate_content(Echoing, reduce_schema(Echoing), {"name": huge})
    ((path, text),) = caught.value.errors
    assert path == "name"
    assert len(text) == MAX_PROBLEM_LENGTH
    assert text.startswith("Value error, xxx")
    assert text.endswith("...")
    assert len(str(caught.value)) < 1000


def test_stray_keys_are_cut_escaped_and_counted_not_listed_without_end():
    content: dict[str, Any] = {f"stray{i}": i for i in range(1000)}
    content["k" * 100_000] = 1
    content["\ud800\n"] = 1
    with pytest.raises(InvalidResponse) as caught:
        validate_content(Amounts, AMOUNTS, content)
    # More keys than the form has fields: refused whole, one problem counting them, none listed.
    assert caught.value.errors == (("(answer)", "holds 1002 keys, more than the 2 fields of the form"),)
    stray = [(str(key), "was not asked for (the form has no such field)") for key in content]
    errors = InvalidResponse("Amounts", stray, content).errors
    assert len(errors) == MAX_PROBLEMS
    assert errors[0] == ("stray0", "was not asked for (the form has no such field)")
    assert errors[-1] == ("(form)", f"and {1002 - MAX_PROBLEMS + 1} more problems")
    assert len(str(InvalidResponse("Amounts", stray, content))) < (
        MAX_PROBLEMS * (MAX_PATH_LENGTH + MAX_PROBLEM_LENGTH + 4) + 400
    )
    escaped = InvalidResponse("M", [("\ud800\n" + "k" * 100, "a\x00b")], None).errors
    assert escaped == (("\\ud800\\n" + "k" * (MAX_PATH_LENGTH - 11) + "...", "a\\x00b"),)
    assert InvalidResponse("M", errors, None).errors == errors, "bounding twice changes nothing"


@pytest.mark.anyio
async def test_a_multi_mib_invalid_answer_gets_a_small_re_ask(connect, era):
    big = "x" * 60_000  # under the 64 KiB answer limit: the model's validator quotes it
    huge = "x" * (4 * 1024 * 1024)  # over it: refused on arrival, before any validator
    scripted = ScriptedUser(accept(name=big, count=1), accept(name=huge, count=1), accept(name="ok", count=2))
    async with connect(server, era, scripted) as client:
        assert await call(client, "echoing") == (False, "ok/2")
    first, second, third = scripted.questions
    assert second.message.startswith(f"{first.message}\n\nYour previous answer could not be used (name: ")
    assert "name: Value error, xxx" in second.message
    assert "x" * MAX_PROBLEM_LENGTH not in second.message
    assert len(second.message) - len(first.message) < 400  # a 60 kB quoted value adds about 270 characters
    assert "larger than the limit" in third.message
    assert len(third.message) - len(first.message) < 400  # a 4 MiB answer adds a sentence


# --- item 5: valid Unicode text, RFC 3339 dates and date-times, on both ends -------------------


class Stamped(BaseModel):
    text: str = ""
    day: date | None = None
    at: datetime | None = None
    picks: list[Literal["a", "b"]] = []


STAMPED = reduce_schema(Stamped)

NOT_TEXT = ["\ud800", "a\udfffb", "\udbff\udc00x\ud800"]
NOT_DATES = ["0", "1700000000", "2026-07-28T00:00:00Z", "20260728", "2026-7-28", "2026-02-30", "\ud800"]
NOT_DATETIMES = [
    "0",
    "1700000000",
    "1700000000.5",
    "2026-07-28",
    "2026-07-28T09:30",
    "2026-07-28T09:30:00",
    "2026-07-28 09:30:00Z",
    "2026-07-28T24:00:00Z",
    "2026-07-28T09:60:00Z",
    "2026-07-28T09:30:60Z",
    "2026-07-28T09:30:00+24:00",
    "2026-02-30T09:30:00Z",
    "now",
]


@pytest.mark.parametrize(
    ("field", "value", "problem"),
    [
        *(("text", v, "text: expected valid Unicode text") for v in NOT_TEXT),
        *(("day", v, "day: expected a ") for v in NOT_DATES[:-1]),
        ("day", NOT_DATES[-1], "day: expected valid Unicode text"),
        *(("at", v, "at: expected a ") for v in NOT_DATETIMES),
        ("picks", ["a", "\ud800"], "picks: expected valid Unicode text"),
        ("picks", ["a", 1], "picks: expected a list of options, got a list holding a number"),
    ],
)
def test_the_server_refuses_what_the_shared_wire_rules_refuse(field, value, problem):
    with pytest.raises(InvalidResponse) as caught:
        validate_content(Stamped, STAMPED, {field: value})
    assert problem in str(caught.value)
    assert str(caught.value).isprintable()


@pytest.mark.parametrize(
    ("field", "value"), [("day", v) for v in NOT_DATES[:-1]] + [("at", v) for v in NOT_DATETIMES]
)
def test_the_client_half_refuses_the_same_dates_and_date_times(field, value):
    with pytest.raises(ValidationError):
        model_from_schema(STAMPED).model_validate({field: value})


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (
            {"text": "héllo \U0001f600", "picks": ["a", "b"]},
            Stamped(text="héllo \U0001f600", picks=["a", "b"]),
        ),
        ({"day": "2026-07-28"}, Stamped(day=date(2026, 7, 28))),
        ({"at": "2026-07-28T09:30:00Z"}, Stamped(at=datetime(2026, 7, 28, 9, 30, tzinfo=timezone.utc))),
        (  # two fractional digits: Python 3.10's fromisoformat refuses them, RFC 3339 and pydantic do not
            {"at": "2026-07-28t09:30:00.25+02:00"},
            Stamped(at=datetime(2026, 7, 28, 9, 30, 0, 250_000, tzinfo=timezone(timedelta(hours=2)))),
        ),
    ],
)
def test_rfc_3339_dates_and_valid_text_are_taken(content, expected):
    assert validate_content(Stamped, STAMPED, content) == expected


class Contact(BaseModel):
    email: EmailStr | None = None
    site: AnyUrl | None = None
    home: HttpUrl | None = None


CONTACT = reduce_schema(Contact)
ADDRESSES = [
    "a@example.com",
    "a.b+c@example.org",
    "a",
    "a@b",
    "@example.com",
    "a@@example.com",
    "a b@example.com",
]
URIS = [
    "https://example.com",
    "mailto:a@example.com",
    "urn:isbn:0451450523",
    "x:y",
    "a:b c",
    "https://exa mple.com",
    "http://",
    "https://x:99999",
    "no-scheme",
    "1http://x",
    ":x",
    "https:",
]


def _client_takes(field: str, value: str) -> bool:
    try:
        parse_requested_schema(CONTACT).instance({field: value})
    except InvalidResponse:
        return False
    return True


def _server_takes(field: str, value: str) -> bool:
    try:
        validate_content(Contact, CONTACT, {field: value})
    except InvalidResponse:
        return False
    return True


@pytest.mark.parametrize("value", ADDRESSES)
def test_email_fields_are_judged_alike_on_both_ends(value):
    assert _server_takes("email", value) == _client_takes("email", value)


@pytest.mark.parametrize("value", URIS)
@pytest.mark.parametrize("field", ["site", "home"])
def test_the_server_never_takes_a_uri_the_client_refuses(field, value):
    if _server_takes(field, value):
        assert _client_takes(field, value)
    try:
        check_uri(value)
    except ValueError:
        assert not _server_takes(field, value)
        assert not _client_takes(field, value)


def test_the_model_s_url_type_may_refuse_more_than_the_shared_rule():
    assert _client_takes("site", "http://")
    assert not _server_takes("site", "http://")  # AnyUrl needs a host: the user is asked again
    assert _server_takes("site", "mailto:a@example.com")
    assert not _server_takes("home", "mailto:a@example.com")  # HttpUrl needs http(s)


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (
            {"email": "secret<>@example.com", "site": "https://example.com"},
            "email: value is not a valid email",
        ),
        ({"email": "a@example.com", "site": "secret value"}, "site: expected an absolute URI"),
    ],
)
def test_email_and_uri_problems_do_not_quote_the_value(content, problem):
    with pytest.raises(InvalidResponse) as caught:
        validate_content(Contact, CONTACT, content)
    assert "secret" not in str(caught.value)
    assert problem in str(caught.value)


# --- item 6: numbers only ever raise ValueError, and stay finite and representable -------------

HOSTILE_NUMBERS: list[object] = [
    "0e99999999999999999999",
    "-0e99999999999999999999",
    "1e99999999999999999999",
    "1e-99999999999999999999",
    "0.0e-99999999999999999999",
    "1e" + "0" * 5000 + "1",
    "1.5e" + "9" * 5000,
    "9" * 309,
    "9" * 5000,
    "-" + "9" * 5000,
    "1" + "0" * 4300 + "e-4300",
    10**309,
    -(10**309),
    10**5000,
    "1e309",
    "-1e309",
    1.7976931348623157e308,
    "1.7976931348623157e308",
    "-0",
    "-0.0",
    -0.0,
    5e-324,
    "5e-324",
    "2.2250738585072014e-308",
    "1e-400",
]


def _server_reads(kind: str, value: object) -> object:
    field = "amount" if kind == "number" else "count"
    try:
        return getattr(validate_content(Amounts, AMOUNTS, {field: value}), field)
    except InvalidResponse as problem:
        return problem


def _client_reads(kind: str, value: object) -> object:
    model = parse_requested_schema({"type": "object", "properties": {"x": {"type": kind}}}).model
    try:
        return model.model_validate({"x": value}).x  # type: ignore[attr-defined]
    except ValidationError as problem:
        return problem


def _id(value: object) -> str:
    if isinstance(value, int) and abs(value) > 10**100:
        return f"int-of-{len(str(abs(value))) if abs(value) < 10**4000 else 'over-4000'}-digits"
    return f"{type(value).__name__}-{str(value)[:30]}-{len(str(value))}"


@pytest.mark.parametrize("value", HOSTILE_NUMBERS, ids=_id)
@pytest.mark.parametrize("kind", ["number", "integer"])
def test_hostile_numbers_give_a_number_or_a_typed_error_on_both_ends(kind, value):
    try:
        direct: object = wire_number(value, integer=kind == "integer")
    except ValueError as problem:
        direct = problem
    server, client = _server_reads(kind, value), _client_reads(kind, value)
    refused = isinstance(direct, ValueError)
    assert isinstance(server, InvalidResponse) == refused
    assert isinstance(client, ValidationError) == refused
    if not isinstance(direct, ValueError):
        assert isinstance(direct, int | float)
        assert server == client == direct
        json.dumps(direct, allow_nan=False)
        repr(direct)
        float(direct)


@pytest.mark.parametrize(
    ("kind", "value", "expected"),
    [
        ("integer", "0e99999999999999999999", 0),
        ("number", "0e99999999999999999999", 0.0),
        ("integer", "-0", 0),
        ("number", "-0.0", -0.0),
        ("number", "5e-324", 5e-324),
        ("number", "1e-400", 0.0),
        pytest.param("integer", "1" + "0" * 308, 10**308, id="integer-309-digits"),
        ("integer", "12345678901234567890123e0", 12345678901234567890123),
        ("integer", "1e" + "0" * 5000 + "1", 10),
        ("integer", "1" + "0" * 4300 + "e-4300", 1),
    ],
)
def test_unusual_but_valid_numbers_read_as_a_json_parser_reads_them(kind, value, expected):
    got = wire_number(value, integer=kind == "integer")
    assert got == expected
    assert type(got) is type(expected)
    assert str(got) == str(expected)  # -0.0 stays -0.0, 0 stays 0


@pytest.mark.parametrize(
    ("value", "integer", "problem"),
    [
        ("1e99999999999999999999", False, TOO_LARGE),
        (10**309, True, TOO_LARGE),
        ("9" * 5000, True, TOO_LARGE),
        ("1e-99999999999999999999", True, "expected a whole number, got a fraction"),
        ("5e-324", True, "expected a whole number, got a fraction"),
        (float("nan"), False, "expected a finite number, got NaN or an infinity"),
        (None, False, "expected a number, got null"),
        (object(), False, "expected a number, got a object"),
    ],
)
def test_wire_number_refuses_with_a_value_error_naming_only_the_kind(value, integer, problem):
    with pytest.raises(ValueError, match=r"^expected a ") as caught:
        wire_number(value, integer=integer)
    assert type(caught.value) is ValueError
    assert str(caught.value) == problem


@pytest.mark.anyio
async def test_a_huge_exponent_is_an_ordinary_invalid_answer_through_the_whole_stack(connect, era):
    answer = send_raw({"amount": "1e99999999999999999999", "count": "0e99999999999999999999"})
    async with connect(server, era, ScriptedUser(answer)) as client:
        is_error, text = await call(client, "amounts")
    assert is_error
    assert "InvalidResponse" in text
    assert "amount: expected a number a 64-bit float can hold" in text
    async with connect(
        server, era, ScriptedUser(send_raw({"amount": "-0", "count": "0e99999999999999999999"}))
    ) as client:
        assert await call(client, "amounts") == (False, "0.0/0")


# --- sizes: counted with work bounded by the limit ------------------------------------------------

JSON_VALUES: list[tuple[Any, int]] = [
    ("abc", 0),
    ("\u00e9\U0001f600\n", 0),
    (5, 1),
    (None, 0),
    ({}, 0),
    ([], 0),
    ({"a": "b", "n": 1.5, "t": True}, 0),
    (["x", ["y", {"z": []}]], 0),
    ({"type": "object", "properties": {"a": {"type": "string", "enum": ["x", "y"], "minLength": 1}}}, 1),
]
"""(value, how many integers it holds: `json_size` counts each at most 2 characters over)."""


@pytest.mark.parametrize(("value", "integers"), JSON_VALUES)
def test_the_json_floor_never_overcounts_and_json_size_never_undercounts(value: Any, integers: int) -> None:
    exact = len(json.dumps(value, separators=(",", ":")))

    assert json_floor(value, 10**9) <= exact
    assert exact <= json_size(value, 10**9) <= exact + 2 * integers


def test_the_json_floor_counts_a_key_that_is_no_text_without_its_length() -> None:
    assert json_floor({1: "ab"}, 10**9) == 9 <= len(json.dumps({1: "ab"}, separators=(",", ":")))


def test_the_json_floor_stops_at_the_limit_reading_no_container_its_length_puts_past_it() -> None:
    wide = CountingDict({f"k{i}": 1 for i in range(100_000)})
    nested = {"x-note": {"deep": wide}}
    texts = ["t" * 1000] * 5_000

    assert json_floor(nested, 65_536) > 65_536
    assert json_floor(texts, 65_536) > 65_536
    assert json_floor({"title": "t" * 10**7}, 65_536) > 65_536
    assert wide.read == 0  # its 100,000 entries take at least 500,000 characters: not one read
