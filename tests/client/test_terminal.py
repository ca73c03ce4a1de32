"""Terminal forms, driven through a real pseudo-terminal with pexpect."""

from __future__ import annotations

import io
import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pexpect
import pytest
from mcp_types import ElicitRequestFormParams, ElicitRequestURLParams, TextContent
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output.plain_text import PlainTextOutput

from tests.client_servers import typed
from typed_elicit import Accepted, Cancelled, Declined
from typed_elicit.client import FormRequest, UrlRequest
from typed_elicit.client._handler import read_request
from typed_elicit.client._terminal import TerminalForms, clean, terminal_handler
from typed_elicit.testing._kit import connect

pytestmark = pytest.mark.slow  # each test drives a real pseudo-terminal

SCRIPT = Path(__file__).with_name("terminal_script.py")
SCHEMA: dict[str, Any] = {
    "type": "object",
    "title": "Trip",
    "properties": {
        "name": {
            "type": "string",
            "title": "Full name",
            "description": "As on your passport",
            "minLength": 1,
        },
        "seats": {"type": "integer", "minimum": 1, "maximum": 9, "default": 1},
        "meal": {
            "type": "string",
            "oneOf": [{"const": "veg", "title": "Vegetarian"}, {"const": "any", "title": "Any"}],
        },
        "extras": {
            "type": "array",
            "items": {"type": "string", "enum": ["wifi", "bag", "seat"]},
            "maxItems": 2,
        },
        "news": {"type": "boolean", "default": False},
    },
    "required": ["name", "meal"],
}


def spawn(mode: str, argument: str, *message: str, lang: str = "C.UTF-8") -> pexpect.spawn:
    """The terminal script in a real terminal speaking `lang` (English by default, whatever the machine's)."""
    quiet = {k: v for k, v in os.environ.items() if k not in ("LANGUAGE", "LC_ALL", "LC_MESSAGES")}
    env = {
        **quiet,
        "LANG": lang,
        "PROMPT_TOOLKIT_NO_CPR": "1",
        "TERM": "xterm",
        "COLUMNS": "200",
        "LINES": "50",
    }
    return pexpect.spawn(
        sys.executable,
        [str(SCRIPT), mode, argument, *message],
        env=env,
        encoding="utf-8",
        timeout=15,
        dimensions=(50, 200),
    )


def result(child: pexpect.spawn) -> str:
    child.expect(r"RESULT ([^\r\n]*)\r\n")
    value = child.match.group(1)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    return str(value)


def test_a_form_shows_every_field_re_prompts_on_invalid_input_and_sends_the_answer() -> None:
    child = spawn("form", json.dumps(SCHEMA))

    child.expect(r"The server asks:")
    child.expect(r"Set up \?\[31mthe\?\[0m trip")
    child.expect(r"Answer\? \[Y\]es / \[d\]ecline / \[c\]ancel")
    child.sendline("")
    child.expect(r"Full name \(name\)")
    child.expect(r"text, at least 1 character, required")
    child.expect(r"As on your passport")
    child.expect(r"Full name:")
    child.sendline("")
    child.expect(r"Enter at least 1 character; try again")
    child.expect(r"Full name:")
    child.sendline("Ada")
    child.expect(r"whole number, at least 1, at most 9, default 1, optional")
    child.expect(r"seats \[1\]:")
    child.sendline("12")
    child.expect(r"Enter 9 or less; try again")
    child.sendline("3")
    child.expect(r"1\) Vegetarian \[veg\]")
    child.expect(r"2\) Any \[any\]")
    child.expect(r"meal:")
    child.sendline("fish")
    child.expect(r"'fish' is not one of the options; try again")
    child.sendline("1")
    child.expect(r"pick any: numbers or values, comma-separated, at most 2 items, optional")
    child.expect(r"extras:")
    child.sendline("wifi, 3, bag")
    child.expect(r"Choose at most 2; try again")
    child.sendline("wifi, 3")
    child.expect(r"yes/no, default no, optional")
    child.expect(r"news \[n\]:")
    child.sendline("")
    child.expect(r"Sending: ")
    child.expect(r"name=Ada, seats=3, meal=veg, extras=wifi, seat, news=no")

    assert json.loads(result(child)) == {
        "name": "Ada",
        "seats": 3,
        "meal": "veg",
        "extras": ["wifi", "seat"],
        "news": False,
    }


def test_a_real_terminal_whose_lang_is_german_asks_in_german() -> None:
    child = spawn("form", json.dumps(SCHEMA), lang="de_DE.UTF-8")

    child.expect(r"Der Server fragt:")
    child.expect(r"Antworten\? \[J\]a / \[a\]blehnen / a\[b\]brechen")
    child.sendline("j")
    child.expect(r"Text, mindestens 1 Zeichen, erforderlich")
    child.expect(r"Full name:")
    child.sendline("Ada")
    child.expect(r"seats \[1\]:")
    child.sendline("0")
    child.expect(r"Geben Sie 1 oder mehr ein; bitte noch einmal")
    child.sendline("")
    child.expect(r"meal:")
    child.sendline("2")
    child.expect(r"extras:")
    child.sendline("")
    child.expect(r"news \[n\]:")
    child.sendline("ja")
    child.expect(r"Wird gesendet: ")

    assert json.loads(result(child)) == {"name": "Ada", "seats": 1, "meal": "any", "extras": [], "news": True}


DEFAULTS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "timeout": {"type": "integer", "title": "Timeout (s)", "default": 60},
        "region": {"type": "string", "default": "eu-west"},
        "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b", "c"]}, "default": ["a"]},
    },
}


def test_typing_over_a_default_in_a_real_terminal_replaces_it() -> None:
    child = spawn("form", json.dumps(DEFAULTS))

    child.expect(r"Answer\?")
    child.sendline("")
    child.expect(r"Timeout \(s\) \[60\]:")
    child.sendline("30")
    child.expect(r"region \[eu-west\]:")
    child.sendline("")
    child.expect(r"pick any: numbers or values, comma-separated, - for none, default a, optional")
    child.expect(r"tags \[a\]:")
    child.sendline("b")

    assert json.loads(result(child)) == {"timeout": 30, "region": "eu-west", "tags": ["b"]}


@pytest.mark.parametrize(
    ("keys", "expected"),
    [
        ("y\r30\rus\rc\r", {"timeout": 30, "region": "us", "tags": ["c"]}),
        ("y\r\r\r\r", {"timeout": 60, "region": "eu-west", "tags": ["a"]}),
        ("y\r\r\r-\r", {"timeout": 60, "region": "eu-west", "tags": []}),
    ],
)
def test_a_default_is_shown_in_brackets_taken_on_an_empty_line_and_replaced_by_what_is_typed(
    keys: str, expected: dict[str, Any]
) -> None:
    content, screen = run_form(DEFAULTS, keys)

    assert content == expected
    assert "Timeout (s) [60]: " in screen
    assert "Enter takes the [default]" in screen


@pytest.mark.parametrize(("key", "expected"), [("d", "Declined"), ("c", "Cancelled")])
def test_the_first_prompt_offers_decline_and_cancel(key: str, expected: str) -> None:
    child = spawn("form", json.dumps(SCHEMA))

    child.expect(r"Answer\?")
    child.sendline(key)

    assert result(child) == expected


@pytest.mark.parametrize(("key", "expected"), [("\x03", "Cancelled"), ("\x04", "Declined")])
def test_ctrl_c_cancels_and_ctrl_d_declines_in_the_middle_of_a_form(key: str, expected: str) -> None:
    child = spawn("form", json.dumps(SCHEMA))

    child.expect(r"Answer\?")
    child.sendline("y")
    child.expect(r"Full name:")
    child.sendline("Ada")
    child.expect(r"seats \[1\]:")
    child.send(key)

    assert result(child) == expected


@pytest.mark.parametrize(("answer", "expected"), [("y", "accept"), ("", "decline"), ("c", "cancel")])
def test_a_url_is_shown_in_full_and_consent_is_asked(answer: str, expected: str) -> None:
    child = spawn("url", "https://auth.example/login?state=\x1b]8;;evil")

    child.expect(r"URL: ")
    child.expect(r"https://auth\.example/login\?state=\?\]8;;evil")
    child.expect(r"Open this URL\? \[y\]es / \[N\]o / \[c\]ancel")
    child.sendline(answer)

    assert result(child) == expected


def test_clean_removes_escape_sequences_and_keeps_text() -> None:
    assert clean("a\x1b[2Jb\x07c\nd") == "a?[2Jb?c\nd"
    assert clean("a\nb\tc", one_line=True) == "a b c"


# What a server could send to make the user read something else than it says: bidi
# embeddings, overrides and isolates reorder the text; marks flip neutral characters; line
# and paragraph separators break lines where no newline shows; the rest hide text.
BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
INVISIBLE = "\u2028\u2029\u200b\u2060\u2061\ufeff\u180e\U000e0041\ufff9\U000f0000\U0010ffff\u0378"


@pytest.mark.parametrize("char", BIDI + INVISIBLE)
def test_clean_shows_bidi_controls_and_invisible_format_characters_escaped(char: str) -> None:
    shown = clean(f"pay {char}moc.evil", one_line=True)

    assert shown == f"pay {ascii(char)[1:-1]}moc.evil"
    assert shown.isascii()


def test_clean_keeps_joiners_and_spaces_that_text_needs() -> None:
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # an emoji sequence joined by ZWJ
    persian = "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"  # ZWNJ inside a word
    french = "Prix\u00a0: 10\u202f\u20ac"  # no-break spaces

    assert clean(f"{family} {persian} {french}") == f"{family} {persian} {french}"


def test_a_form_shows_the_servers_bidi_controls_escaped_in_every_text_it_prints() -> None:
    schema: dict[str, Any] = {
        "type": "object",
        "title": "Pay \u2066the bank\u2069",
        "properties": {
            "to": {
                "type": "string",
                "title": "Payee \u202egnp.exe",
                "description": "Who gets \u200fit\u2028Approved by your bank",
                "oneOf": [{"const": "acme\u202d", "title": "Acme \u202bLtd"}],
            },
        },
        "required": ["to"],
    }
    child = spawn("form", json.dumps(schema), "Send \u202e001$\u202c now")
    screen = io.StringIO()
    child.logfile_read = screen

    child.expect_exact("Send \\u202e001$\\u202c now")
    child.expect_exact("Pay \\u2066the bank\\u2069")
    child.expect(r"Answer\?")
    child.sendline("")
    child.expect_exact("Payee \\u202egnp.exe (to)")
    child.expect_exact("Who gets \\u200fit\\u2028Approved by your bank")
    child.expect_exact("1) Acme \\u202bLtd [acme\\u202d]")
    child.sendline("1")

    assert json.loads(result(child)) == {"to": "acme\u202d"}
    printed = screen.getvalue()
    assert not any(char in printed for char in BIDI + "\u2028")


def test_a_url_request_shows_bidi_controls_in_the_message_and_url_escaped() -> None:
    child = spawn("url", "https://bank.example/\u202elive.evil.example", "Sign in to \u2067your bank\u2069")
    screen = io.StringIO()
    child.logfile_read = screen

    child.expect_exact("Sign in to \\u2067your bank\\u2069")
    child.expect_exact("URL: ")
    child.expect_exact("https://bank.example/\\u202elive.evil.example")
    child.expect(r"Open this URL\?")
    child.sendline("n")

    assert result(child) == "decline"
    assert not any(char in screen.getvalue() for char in BIDI)


# --- the same renderer in-process, on a pipe (fast, and covers every branch) -----------------


def run_form(schema: dict[str, Any], keys: str, locale: str = "en") -> tuple[object, str]:
    request = read_request(None, ElicitRequestFormParams(message="Hi", requested_schema=schema))
    assert isinstance(request, FormRequest)
    screen = io.StringIO()

    async def ask() -> object:
        with create_pipe_input() as keyboard, anyio.fail_after(10):
            keyboard.send_text(keys)
            forms = TerminalForms(input=keyboard, output=PlainTextOutput(screen), locale=locale)
            return await forms.form(request)

    outcome = anyio.run(ask)
    if isinstance(outcome, Accepted):
        return request.form.content(outcome.data), screen.getvalue()
    return outcome, screen.getvalue()


def test_numbers_booleans_and_options_are_parsed_and_re_asked_until_they_fit() -> None:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "n": {"type": "number", "minimum": 0.5, "description": "a ratio"},
            "i": {"type": "integer"},
            "b": {"type": "boolean"},
            "pick": {"type": "string", "enum": ["x", "y"], "enumNames": ["Ex", "Why"]},
            "many": {"type": "array", "items": {"anyOf": [{"const": "p", "title": "P"}]}, "minItems": 1},
        },
        "required": ["n", "i", "b", "pick", "many"],
    }

    content, screen = run_form(schema, "\rabc\r0.25\r2.5\rtwo\r2\rmaybe\rno\r3\rWhy\r\rq\rP\r")

    assert content == {"n": 2.5, "i": 2, "b": False, "pick": "y", "many": ["p"]}
    assert "number, at least 0.5, required" in screen
    assert "Enter a number; try again" in screen
    assert "Enter 0.5 or more; try again" in screen
    assert "Enter a whole number; try again" in screen
    assert "Answer y or n; try again" in screen
    assert "'3' is not one of the options; try again" in screen
    assert "1) Ex [x]" in screen
    assert "at least 1 item," in screen
    assert "'q' is not one of the options" in screen


def test_optional_fields_left_empty_are_left_out_and_formats_are_named() -> None:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "mail": {"type": "string", "format": "email"},
            "note": {"type": "string", "maxLength": 5, "title": "Note"},
        },
    }

    content, screen = run_form(schema, "y\r\r\r")

    assert content == {}
    assert "email, optional" in screen
    assert "text, at most 5 characters, optional" in screen
    assert "Sending: (no fields)" in screen


def test_a_form_without_fields_is_a_plain_confirmation() -> None:
    confirm: dict[str, Any] = {"type": "object", "title": "Proceed?", "properties": {}}
    content, screen = run_form(confirm, "x\ry\r")

    assert content == {}
    assert "Proceed?" in screen
    assert "Type one of: y, d, c" in screen


@pytest.mark.parametrize(("keys", "expected"), [("y\r\x03", Cancelled()), ("y\r\x04", Declined())])
def test_ctrl_c_and_ctrl_d_on_a_pipe_cancel_and_decline(keys: str, expected: object) -> None:
    outcome, _ = run_form(SCHEMA, keys)

    assert outcome == expected


@pytest.mark.parametrize(
    ("keys", "expected"), [("y\r", "accept"), ("\r", "decline"), ("c\r", "cancel"), ("\x03", "cancel")]
)
def test_url_consent_on_a_pipe(keys: str, expected: str) -> None:
    request = read_request(None, ElicitRequestURLParams(message="Pay", url="https://pay.example/1"))
    assert isinstance(request, UrlRequest)
    screen = io.StringIO()

    async def ask() -> str:
        with create_pipe_input() as keyboard, anyio.fail_after(10):
            keyboard.send_text(keys)
            forms = TerminalForms(input=keyboard, output=PlainTextOutput(screen), locale="en")
            return await forms.url(request)

    assert anyio.run(ask) == expected
    assert "URL: https://pay.example/1" in screen.getvalue()


@pytest.mark.anyio
async def test_the_terminal_handler_answers_a_real_server() -> None:
    screen = io.StringIO()
    with create_pipe_input() as keyboard:
        keyboard.send_text("\rAda\r2\r\r\r")
        callback = terminal_handler(input=keyboard, output=PlainTextOutput(screen), locale="en")
        with anyio.fail_after(10):
            async with connect(typed, "2025-11-25", elicitation_callback=callback) as client:
                result = await client.call_tool("book", {})

    block = result.content[0]
    assert isinstance(block, TextContent)
    assert block.text == "booked 2 for Ada, meal any, newsletter False"
    assert "travel-desk asks:" in screen.getvalue()
