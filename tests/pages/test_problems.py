"""What a page tells a person about an invalid answer: plain words from one table, never pydantic's.

Each row of `ROWS` declares one field (or a model), submits one bad answer on the page, and
names the one message the page must show for it. The words come from `PAGE_WORDS`, which a
server overrides with `serve_pages(..., words={...})` (a server in another language gives
its own); docs/pages.md lists the default table, and a test keeps the two equal.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from datetime import date, datetime, timezone
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, Literal

import pytest
from mcp.server.mcpserver import MCPServer
from pydantic import (
    AfterValidator,
    AnyUrl,
    BaseModel,
    EmailStr,
    Field,
    HttpUrl,
    SecretStr,
    create_model,
    model_validator,
)
from pydantic_core import PydanticCustomError, PydanticKnownError
from starlette.testclient import TestClient

from tests.pages.test_serve import ORIGIN, Client
from typed_elicit import form
from typed_elicit.pages import PAGE_WORDS, PageSetupError, serve_pages

DOCS = Path(__file__).resolve().parents[2] / "docs" / "pages.md"
PYDANTIC_WORDING = (
    "Value should",
    "after validation",
    "Input should",
    "String should",
    "List should",
    "Field required",
    "Value error",
    "Assertion failed",
    "URL scheme",
    "should be",
    "should have",
    "valid email",
    "expected a",
)


class Tint(str, Enum):
    RED = "red"
    BLUE = "blue"


def _work_address(value: str) -> str:
    if not value.endswith("@work.example"):
        raise ValueError("Use your work address")
    return value


def _long_complaint(value: str) -> str:
    raise ValueError("This will not do. " * 300)


def _asserts(value: str) -> str:
    assert value == "ok", "Type ok to go on"
    return value


def _custom(value: str) -> str:
    raise PydanticCustomError("work_email", "Use the address on your badge")


def _builtin(value: str) -> str:
    if value:  # the reducer probes validators with an empty text
        raise PydanticKnownError("uuid_type")
    return value


def _row(annotation: Any, default: Any = ..., name: str = "value") -> type[BaseModel]:
    model: type[BaseModel] = create_model("Row", **{name: (annotation, default)})  # type: ignore[call-overload]
    return form(page=True)(model)


@form(page=True)
class TwoCodes(BaseModel):
    code: str
    again: str

    @model_validator(mode="after")
    def same(self) -> TwoCodes:
        if self.code != self.again:
            raise ValueError("The two codes differ")
        return self


Choice3 = Literal["a", "b", "c"]
UTC = timezone.utc
EMAIL = "Enter an email address, like name@example.com"
URI = "Enter a full web address, like https://example.com"
DATE_TIME = "Enter a date and time with its offset, like 2026-07-28T09:30:00Z"
Row = tuple[str, type[BaseModel], dict[str, Any], str | None, str]


def row(
    case: str,
    annotation: Any,
    typed: str | list[str],
    message: str,
    *,
    default: Any = ...,
    name: str = "value",
) -> Row:
    """One field `name: annotation = default`, the text typed into it, and what the page must say."""
    return (case, _row(annotation, default, name), {name: typed}, name, message)


# (case, model, submitted fields, the field's label (None: the whole form), the message)
ROWS: list[Row] = [
    row(
        "secret min length",
        Annotated[SecretStr, Field(min_length=20)],
        "shortkey",
        "Enter at least 20 characters",
    ),
    row(
        "secret by name",
        Annotated[str, Field(min_length=20)],
        "shortkey",
        "Enter at least 20 characters",
        name="api_key",
    ),
    row(
        "secret max length",
        Annotated[SecretStr, Field(max_length=8)],
        "toolongkey",
        "Enter at most 8 characters",
    ),
    row("secret required", SecretStr, "", "Fill this in"),
    row("min length", Annotated[str, Field(min_length=3)], "ab", "Enter at least 3 characters"),
    row("max length", Annotated[str, Field(max_length=4)], "abcdefgh", "Enter at most 4 characters"),
    row("pattern", Annotated[str, Field(pattern=r"^\d{6}$")], "12ab", "Enter it in the expected format"),
    row("required text", str, "", "Fill this in"),
    row("required number", int, "", "Fill this in"),
    row("ge", Annotated[int, Field(ge=18)], "17", "Enter 18 or more"),
    row("le", Annotated[int, Field(le=130)], "131", "Enter 130 or less"),
    row("gt", Annotated[int, Field(gt=0)], "0", "Enter a number more than 0"),
    row("lt", Annotated[int, Field(lt=10)], "10", "Enter a number less than 10"),
    row("ge float", Annotated[float, Field(ge=0.5)], "0.25", "Enter 0.5 or more"),
    row("le float", Annotated[float, Field(le=1000.0)], "1000.5", "Enter 1000 or less"),
    row("gt float", Annotated[float, Field(gt=0)], "0", "Enter a number more than 0"),
    row("lt float", Annotated[float, Field(lt=1.5)], "2", "Enter a number less than 1.5"),
    row("multiple of", Annotated[int, Field(multiple_of=5)], "7", "Enter a multiple of 5"),
    row("whole number", int, "seven", "Enter a whole number"),
    row("whole number fraction", int, "1.5", "Enter a whole number"),
    row("number", float, "about-three", "Enter a number"),
    row("number infinite", float, "inf", "Enter a number"),
    row("email", EmailStr, "not-an-address", EMAIL),
    row("uri", AnyUrl, "not a web address", URI),
    row("http url", HttpUrl, "mailto:ada@example.com", URI),
    row("date", date, "28/07/2026", "Enter a date as YYYY-MM-DD, like 2026-07-28"),
    row(
        "date ge",
        Annotated[date, Field(ge=date(2026, 1, 1))],
        "2025-12-31",
        "Enter 2026-01-01 or a later date",
    ),
    row(
        "date gt", Annotated[date, Field(gt=date(2026, 1, 1))], "2025-12-31", "Enter a date after 2026-01-01"
    ),
    row(
        "date le",
        Annotated[date, Field(le=date(2026, 1, 1))],
        "2026-01-02",
        "Enter 2026-01-01 or an earlier date",
    ),
    row(
        "date lt", Annotated[date, Field(lt=date(2026, 1, 1))], "2026-01-02", "Enter a date before 2026-01-01"
    ),
    row("date-time", datetime, "2026-08-01", DATE_TIME),
    row(
        "date-time ge",
        Annotated[datetime, Field(ge=datetime(2026, 1, 1, tzinfo=UTC))],
        "2025-01-01T00:00:00Z",
        "Enter 2026-01-01T00:00:00Z or a later date",
    ),
    row("choice", Literal["a", "b"], "not-offered", "Choose one of the options"),
    row("enum choice", Tint, "not-offered", "Choose one of the options"),
    row("choice required", Literal["a", "b"], "", "Choose one of the options"),
    row(
        "multi-select item",
        list[Choice3],
        ["a", "not-offered"],
        "Choose only from the options shown",
        default=[],
    ),
    row("multi-select min", Annotated[list[Choice3], Field(min_length=2)], ["a"], "Choose at least 2"),
    row(
        "multi-select max",
        Annotated[list[Choice3], Field(max_length=1)],
        ["a", "b"],
        "Choose at most 1",
        default=[],
    ),
    row("boolean", bool, "perhaps-so", "Tick the box or leave it empty", default=False),
    row(
        "field validator",
        Annotated[str, AfterValidator(_work_address)],
        "ada@home.example",
        "Use your work address",
    ),
    row("assertion", Annotated[str, AfterValidator(_asserts)], "nope-not-ok", "Type ok to go on"),
    row(
        "custom error",
        Annotated[str, AfterValidator(_custom)],
        "ada@home.example",
        "Use the address on your badge",
    ),
    row(
        "other pydantic error", Annotated[str, AfterValidator(_builtin)], "whatever-it-is", "Check this value"
    ),
    ("model validator", TwoCodes, {"code": "123456", "again": "654321"}, None, "The two codes differ"),
]


@pytest.fixture
def client() -> Iterator[Client]:
    server = MCPServer("words")
    serve_pages(server, ORIGIN)
    with TestClient(server.streamable_http_app(), base_url=ORIGIN) as http:
        yield Client(server, http)


def shown_messages(page: str) -> list[str]:
    """Every problem text the page shows: under each field, and each line of the summary."""
    under = re.findall(r'<p class="error"[^>]*>(.*?)</p>', page, re.S)
    summary = re.findall(r"<li[^>]*>(?:<a [^>]*>)?(.*?)(?:</a>)?</li>", page, re.S)
    return [html.unescape(text) for text in [*under, *summary]]


@pytest.mark.parametrize(
    ("model", "given", "label", "expected"), [r[1:] for r in ROWS], ids=[r[0] for r in ROWS]
)
def test_each_constraint_is_told_in_plain_words_never_in_pydantics(
    client: Client, model: type[BaseModel], given: dict[str, Any], label: str | None, expected: str
):
    ticket = client.open(model)
    page = client.submit(ticket, given)
    assert page.status_code == 422, page.text
    shown = shown_messages(page.text)
    if label is None:  # a problem of the whole form: in the summary only
        assert shown == [expected]
    else:
        assert shown == [expected, f"{label}: {expected}"]
    for wording in PYDANTIC_WORDING:
        assert wording not in page.text
    values = [v for value in given.values() for v in (value if isinstance(value, list) else [value])]
    for value in values:
        if len(value) >= 4:
            assert all(value not in text for text in shown)  # never the user's value
    assert client.answer(ticket) is None


def test_a_model_validators_own_message_is_kept_but_bounded(client: Client):
    model = _row(Annotated[str, AfterValidator(_long_complaint)])  # held: pages find a model by name
    ticket = client.open(model)
    shown = shown_messages(client.submit(ticket, {"value": "anything"}).text)
    assert model.__name__ == "Row"
    assert shown[0].startswith("This will not do. This will not do.")
    assert len(shown[0]) <= 200
    assert shown[0].endswith("...")


def test_the_hints_use_the_same_table():
    @form(page=True)
    class Picks(BaseModel):
        picks: Annotated[list[Choice3], Field(min_length=1, max_length=2)]
        key: SecretStr

    server = MCPServer("hints")
    words = {"min_items": "Mindestens {limit} wählen", "max_items": "Höchstens {limit} wählen"}
    serve_pages(server, ORIGIN, words=words)
    with TestClient(server.streamable_http_app(), base_url=ORIGIN) as http:
        c = Client(server, http)
        page = http.get(c.path(c.open(Picks))).text
    assert "Mindestens 1 wählen. Höchstens 2 wählen." in page


def test_a_server_supplies_its_own_words_and_the_rest_stay_the_default():
    server = MCPServer("de")
    words = {"min_length": "Mindestens {limit} Zeichen", "required": "Bitte ausfüllen"}
    serve_pages(server, ORIGIN, words=words)
    with TestClient(server.streamable_http_app(), base_url=ORIGIN) as http:
        c = Client(server, http)
        short = shown_messages(c.submit(c.open(ROWS[4][1]), {"value": "ab"}).text)
        missing = shown_messages(c.submit(c.open(ROWS[7][1]), {"value": ""}).text)
        number = shown_messages(c.submit(c.open(ROWS[18][1]), {"value": "seven"}).text)
    assert short == ["Mindestens 3 Zeichen", "value: Mindestens 3 Zeichen"]
    assert missing == ["Bitte ausfüllen", "value: Bitte ausfüllen"]
    assert number == ["Enter a whole number", "value: Enter a whole number"]


@pytest.mark.parametrize(
    ("words", "problem"),
    [
        ({"min_lenght": "at least {limit}"}, "'min_lenght'.*did you mean 'min_length'"),
        ({"nonsense": "x"}, "'nonsense'.*docs/pages.md"),
        ({"required": "Fill in {field}"}, "'required'.*takes no placeholder"),
        ({"min_length": "at least {count}"}, r"'min_length'.*\{limit\}"),
        ({"min_length": "at least {}"}, r"'min_length'.*\{limit\}"),
        ({"min_length": "at least {limit"}, "'min_length'"),
        ({"min_length": "at least {limit.real}"}, r"'min_length'.*\{limit\}"),
        ({"required": ""}, "'required'.*empty"),
        ({"required": 3}, "'required'.*text"),
    ],
)
def test_a_words_override_with_an_unknown_key_or_a_bad_template_is_refused_with_the_fix(
    words: dict[str, Any], problem: str
):
    with pytest.raises(PageSetupError, match=problem) as refused:
        serve_pages(MCPServer("x"), ORIGIN, words=words)
    assert isinstance(refused.value, ValueError)
    assert refused.value.setting == "words"


def test_docs_list_the_default_table_exactly():
    text = DOCS.read_text()
    rows = dict(re.findall(r"^\| `([a-z_]+)` \| (.+?) \|$", text, re.M))
    assert rows == dict(PAGE_WORDS)


def test_a_secret_that_is_too_short_is_told_in_words_and_never_echoed(client: Client):
    ticket = client.open(ROWS[0][1])
    page = client.submit(ticket, {"value": "shortkey"})
    assert "shortkey" not in page.text  # a secret is never echoed, not even in an error
    assert client.host.url(ticket).endswith(ticket.id)


def test_an_answer_the_model_refuses_only_the_first_time_is_still_not_taken(client: Client):
    calls = {"n": 0}

    def flaky(value: str) -> str:  # e.g. a lookup whose answer changed between two validations
        calls["n"] += 1
        if value and calls["n"] == 1:
            raise ValueError("Taken already")
        return value

    model = _row(Annotated[str, AfterValidator(flaky)])
    calls["n"] = 0
    ticket = client.open(model)
    page = client.submit(ticket, {"value": "ada-lovelace"})
    assert page.status_code == 422
    assert shown_messages(page.text) == ["Taken already", "value: Taken already"]  # validated once: its words
    assert calls["n"] == 1
    assert client.answer(ticket) is None


@pytest.mark.parametrize(
    ("field", "hint"),
    [
        (Field(pattern=r"^\d{5}$"), "Must be 5 digits."),
        (Field(pattern=r"^[A-Z]{2}$", examples=["DE", "FR"]), "For example: DE or FR."),
        (Field(pattern=r"^[A-Z]{2}-\d+$"), "Must be in the expected format."),
    ],
    ids=["digits", "examples", "other"],
)
def test_a_pattern_is_told_in_plain_words_and_a_person_never_sees_the_regular_expression(
    client: Client, field: Any, hint: str
):
    model = _row(Annotated[str, field])  # held: the page finds its model by a weak reference
    ticket = client.open(model)
    page = client.http.get(client.path(ticket)).text
    assert hint in page
    assert "pattern" not in page.lower()
    assert "\\d" not in page
    assert "[A-Z]" not in page
