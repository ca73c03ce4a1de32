"""Terminal forms, driven through a real pseudo-terminal with pexpect."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pexpect
import pytest

from typed_elicit._terminal import clean

SCRIPT = Path(__file__).with_name("terminal_script.py")
CLEAR = "\x15"  # Ctrl-U: erase the value shown in the prompt
SCHEMA = {
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


def spawn(mode: str, argument: str) -> pexpect.spawn:
    env = {**os.environ, "PROMPT_TOOLKIT_NO_CPR": "1", "TERM": "xterm", "COLUMNS": "200", "LINES": "50"}
    return pexpect.spawn(
        sys.executable,
        [str(SCRIPT), mode, argument],
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
    child.expect(r"text, at least 1 characters, required")
    child.expect(r"As on your passport")
    child.expect(r"Full name:")
    child.sendline("")
    child.expect(r"at least 1 character; try again")
    child.expect(r"Full name:")
    child.sendline("Ada")
    child.expect(r"whole number, 1 to 9, default 1, optional")
    child.sendline(CLEAR + "12")
    child.expect(r"less than or equal to 9; try again")
    child.sendline(CLEAR + "3")
    child.expect(r"1\) Vegetarian \[veg\]")
    child.expect(r"2\) Any \[any\]")
    child.expect(r"meal:")
    child.sendline("fish")
    child.expect(r"'fish' is not one of the options; try again")
    child.sendline("1")
    child.expect(r"pick any: numbers or values, comma-separated, at most 2 items, optional")
    child.expect(r"extras:")
    child.sendline("wifi, 3, bag")
    child.expect(r"at most 2 items")
    child.sendline("wifi, 3")
    child.expect(r"yes/no, default no, optional")
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
    child.expect(r"seats:")
    child.send(CLEAR + key)

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
