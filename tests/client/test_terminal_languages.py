"""The terminal client speaks the person's language: prompts, keys, hints and problems from the catalogs."""

from __future__ import annotations

import io
import re
import string
from typing import Any

import anyio
import pytest
from mcp_types import ElicitRequestFormParams, ElicitRequestURLParams
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output.plain_text import PlainTextOutput

from typed_elicit import Accepted, Cancelled, Declined
from typed_elicit._views.i18n import words_for
from typed_elicit._views.words import MESSAGES
from typed_elicit.client import FormRequest, UrlRequest
from typed_elicit.client._handler import read_request
from typed_elicit.client._terminal import TerminalForms, answers

TRIP: dict[str, Any] = {
    "type": "object",
    "title": "Trip",
    "properties": {
        "name": {"type": "string", "title": "Full name", "minLength": 1},
        "seats": {"type": "integer", "minimum": 1, "maximum": 9, "default": 1},
        "ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
        "mail": {"type": "string", "format": "email"},
        "meal": {"type": "string", "oneOf": [{"const": "veg", "title": "Vegetarian"}]},
        "extras": {"type": "array", "items": {"type": "string", "enum": ["wifi", "bag"]}, "default": ["bag"]},
        "news": {"type": "boolean", "default": False},
    },
    "required": ["name", "meal", "ratio"],
}


def run(schema: dict[str, Any], keys: str, locale: str, server: str | None = None) -> tuple[object, str]:
    params = ElicitRequestFormParams(message="Hi", requested_schema=schema)
    request = read_request(None, params)
    assert isinstance(request, FormRequest)
    if server is not None:
        request = FormRequest(request.message, request.requested_schema, request.form, server_name=server)
    screen = io.StringIO()

    async def ask() -> object:
        with create_pipe_input() as keyboard, anyio.fail_after(10):
            keyboard.send_text(keys)
            return await TerminalForms(input=keyboard, output=PlainTextOutput(screen), locale=locale).form(
                request
            )

    outcome = anyio.run(ask)
    if isinstance(outcome, Accepted):
        return request.form.content(outcome.data), screen.getvalue()
    return outcome, screen.getvalue()


GERMAN_KEYS = "x\rj\r\rAda\r12\r3\r0\r1,5\r0,5\r0.5\rkeine-mail\rada@example.com\rfish\r1\r\rvielleicht\rja\r"


def test_a_german_terminal_asks_in_german_with_german_keys_and_words() -> None:
    content, screen = run(TRIP, GERMAN_KEYS, "de-DE", server="reisebuero")

    assert content == {"name": "Ada", "seats": 3, "ratio": 0.5, "mail": "ada@example.com", "meal": "veg",
                       "extras": ["bag"], "news": True}  # fmt: skip
    for said in [
        "reisebuero fragt:",
        "Antworten? [J]a / [a]blehnen / a[b]brechen",
        "Geben Sie eines davon ein: j, a, b",
        "(Strg-C bricht ab, Strg-D lehnt ab; die Eingabetaste übernimmt den [Standardwert])",
        "Text, mindestens 1 Zeichen, erforderlich",
        "Geben Sie mindestens 1 Zeichen ein; bitte noch einmal",
        "ganze Zahl, mindestens 1, höchstens 9, Standard 1, optional",
        "Geben Sie 9 oder weniger ein; bitte noch einmal",
        "Zahl, mehr als 0, weniger als 1, erforderlich",
        "Geben Sie eine Zahl größer als 0 ein; bitte noch einmal",
        "Geben Sie eine Zahl ein; bitte noch einmal",
        "E-Mail, optional",
        "Geben Sie eine E-Mail-Adresse ein, zum Beispiel name@example.com; bitte noch einmal",
        "eine wählen: Nummer oder Wert, erforderlich",
        "'fish' ist keine der Optionen; bitte noch einmal",
        "beliebig viele wählen: Nummern oder Werte, durch Kommas getrennt, - für keine, Standard bag, "
        "optional",
        "ja/nein, Standard nein, optional",
        "news [n]:",
        "Antworten Sie mit j oder n; bitte noch einmal",
        "Wird gesendet: name=Ada, seats=3, ratio=0.5, mail=ada@example.com, meal=veg, extras=bag, news=ja",
    ]:  # fmt: skip
        assert said in screen, said


def english_fragments(key: str) -> list[str]:
    """The words of a message's English text between its placeholders (four letters or more)."""
    message = MESSAGES[key]
    parts = [
        literal for text in (message.text, message.english) for literal, *_ in string.Formatter().parse(text)
    ]
    return [part.strip(" :;,.()[]") for part in parts if len(re.sub(r"[^A-Za-z]", "", part)) >= 4]


@pytest.mark.parametrize("locale", ["de", "fr", "es", "ja", "ar"])
def test_a_terminal_in_another_language_prints_no_english_word_of_the_library(locale: str) -> None:
    keys = {"de": "j", "fr": "o", "es": "s", "ja": "y", "ar": "y"}[locale]
    words = words_for(locale)
    typed = f"{keys}\r\rAda\r12\r3\r7\r0.5\rnope\r\rfish\r1\r\r?\r{words['key_no']}\r"
    content, screen = run(TRIP, typed, locale)
    assert isinstance(content, dict)
    english_words = words_for("en")
    own = " ".join(words[key] for key in MESSAGES)  # a key's name ("Enter") the language writes too
    for key in MESSAGES:
        if words[key] == english_words[key]:
            continue  # the same in both (a loan word such as "URL", or only placeholders)
        for fragment in english_fragments(key):
            found = re.compile(rf"(?<!\w){re.escape(fragment)}(?!\w)")
            assert not found.search(screen) or found.search(own), (key, fragment)


def test_an_arabic_terminal_counts_as_arabic_does() -> None:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "code": {"type": "string", "minLength": 1, "maxLength": 2},
            "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b", "c"]}, "maxItems": 3},
        },
        "required": ["code"],
    }
    content, screen = run(schema, "y\rabc\rab\ra\r", "ar")
    assert content == {"code": "ab", "tags": ["a"]}
    assert "يسأل الخادم:" in screen
    assert "نص، حرف واحد على الأقل، حرفان على الأكثر، مطلوب" not in screen  # the terminal joins with ", "
    assert "نص, حرف واحد على الأقل, حرفان على الأكثر, مطلوب" in screen
    assert "3 عناصر على الأكثر" in screen
    assert "أدخِل حرفين على الأكثر؛ حاول مرة أخرى" in screen


@pytest.mark.parametrize(
    ("locale", "typed", "outcome"),
    [
        ("de", "a\r", Declined()),
        ("de", "b\r", Cancelled()),
        ("fr", "r\r", Declined()),
        ("es", "c\r", Cancelled()),
    ],
)
def test_the_first_prompt_takes_the_languages_keys(locale: str, typed: str, outcome: object) -> None:
    assert run(TRIP, typed, locale)[0] == outcome


def test_an_english_key_that_the_language_does_not_use_is_refused_with_its_keys() -> None:
    outcome, screen = run(TRIP, "d\rc\ra\r", "de")
    assert outcome == Declined()
    assert screen.count("Geben Sie eines davon ein: j, a, b") == 2


def test_a_url_is_offered_in_the_language_and_its_default_is_no() -> None:
    request = read_request(None, ElicitRequestURLParams(message="Bezahlen", url="https://pay.example/1"))
    assert isinstance(request, UrlRequest)

    async def ask(keys: str) -> tuple[str, str]:
        screen = io.StringIO()
        with create_pipe_input() as keyboard, anyio.fail_after(10):
            keyboard.send_text(keys)
            forms = TerminalForms(input=keyboard, output=PlainTextOutput(screen), locale="fr")
            return await forms.url(request), screen.getvalue()

    answer, screen = anyio.run(ask, "o\r")
    assert answer == "accept"
    assert re.search(r"Ouvrir cette URL\s\? \[o\]ui / \[N\]on / \[a\]nnuler", screen)  # a no-break space
    assert "URL\u00a0: https://pay.example/1" in screen
    assert "Ouvrez-la dans votre navigateur, puis revenez ici." in screen
    assert anyio.run(ask, "\r")[0] == "decline"
    assert anyio.run(ask, "a\r")[0] == "cancel"


def test_yes_and_no_take_the_languages_words_and_the_english_ones_that_do_not_clash() -> None:
    yes, no = answers(words_for("de"))
    assert yes == {"j", "ja", "y", "yes", "true"}
    assert no == {"n", "nein", "no", "false"}
    yes, no = answers(words_for("fr"))
    assert {"o", "oui", "y"} <= yes
    assert {"n", "non", "no"} <= no
    assert not yes & no


def test_the_terminals_language_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "de_DE.UTF-8")
    with create_pipe_input() as keyboard:
        assert TerminalForms(input=keyboard, output=PlainTextOutput(io.StringIO())).words.locale == "de"
        monkeypatch.setenv("LC_ALL", "C")
        assert TerminalForms(input=keyboard, output=PlainTextOutput(io.StringIO())).words.locale == "en"
        monkeypatch.setenv("LANGUAGE", "ja")
        assert TerminalForms(input=keyboard, output=PlainTextOutput(io.StringIO())).words.locale == "ja"
        monkeypatch.setenv("LANGUAGE", "pt_BR")
        assert TerminalForms(input=keyboard, output=PlainTextOutput(io.StringIO())).words.locale == "en"
        forms = TerminalForms(input=keyboard, output=PlainTextOutput(io.StringIO()), locale="es")
        assert forms.words.locale == "es"
