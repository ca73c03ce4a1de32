"""The one set of words: every message once, with its key, English text, plural and placeholders."""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest

from typed_elicit._views.i18n import words_for
from typed_elicit._views.words import (
    MESSAGES,
    PAGE_WORDS,
    SECTIONS,
    checked_words,
    form_problem,
    page_words,
    placeholders,
    said,
)
from typed_elicit.errors import PageSetupError


def test_every_message_has_a_snake_case_key_an_english_text_and_a_section() -> None:
    assert len(MESSAGES) > 100
    for key, message in MESSAGES.items():
        assert re.fullmatch(r"[a-z][a-z0-9_]*", key), key
        assert message.key == key
        assert message.text.strip() == message.text
        assert message.text
        assert message.section in SECTIONS


def test_a_plural_message_names_the_placeholder_that_counts_and_both_forms_hold_the_same_ones() -> None:
    plurals = {key: m for key, m in MESSAGES.items() if m.plural is not None}
    assert {"problems", "min_length", "bytes", "limit_min_chars"} <= set(plurals)
    for message in plurals.values():
        assert message.counts in message.names
        assert placeholders(message.text) == placeholders(message.plural or "")
    assert all(m.counts is None for m in MESSAGES.values() if m.plural is None)


def test_placeholders_are_named_the_same_wherever_they_mean_the_same() -> None:
    names = {name for m in MESSAGES.values() for name in m.names}
    assert names == {
        "count", "date", "example", "first", "heading", "keys", "key", "label", "last", "limit", "low",
        "no", "number", "other", "problem", "rest", "rules", "server", "size", "title", "value", "yes",
    }  # fmt: skip
    assert all(m.names <= {"limit"} for key, m in MESSAGES.items() if key in PAGE_WORDS)


def test_page_words_keep_todays_keys_and_english_texts() -> None:
    text = (Path(__file__).parent / "page_words_before.txt").read_text(encoding="utf-8")
    before = dict(re.findall(r'^\s+"([a-z_]+)": "(.+)",$', text, re.M))
    assert dict(PAGE_WORDS) == before


def test_the_words_pages_views_and_the_terminal_show_today_are_messages() -> None:
    english = {m.text for m in MESSAGES.values()} | {m.english for m in MESSAGES.values()}
    for phrase in [
        "Form not accepted", "Thank you", "This question is closed", "Page not found",
        "Something went wrong", "Form too large", "Nothing was sent", "This link can no longer be used",
        "Submit", "Decline", "Cancel", "(none)", "Choose...", "Show its fields", "Fill in",
        "Include this in the answer", "Kind", "Search the options", "Sent.", "Declined.", "Cancelled.",
        "Secure form", "The form could not be read.", "This view could not connect to its host.",
        "Must be in the expected format.", "The server asks:", "(no fields)", "whole number",
    ]:  # fmt: skip
        assert phrase in english, phrase


def test_an_override_is_checked_against_its_messages_placeholders() -> None:
    assert checked_words({"add_to": "Noch ein {label}"}, MESSAGES, "docs") == {"add_to": "Noch ein {label}"}
    assert checked_words({"submit": "Send it"}, MESSAGES, "docs") == {"submit": "Send it"}
    with pytest.raises(PageSetupError, match=r"'add_to' takes \{label\}"):
        checked_words({"add_to": "Add {count}"}, MESSAGES, "docs")
    with pytest.raises(PageSetupError, match=r"'remove_row_of' takes \{label\} and \{number\}"):
        checked_words({"remove_row_of": "Remove {row}"}, MESSAGES, "docs")
    with pytest.raises(PageSetupError, match=rf"did you mean 'submit'.*\({len(MESSAGES)} in all\)"):
        checked_words({"sumbit": "Go"}, MESSAGES, "docs")


def test_page_words_still_take_only_the_page_words() -> None:
    assert page_words(None) is PAGE_WORDS
    assert page_words({"required": "Bitte ausfüllen"})["required"] == "Bitte ausfüllen"
    with pytest.raises(PageSetupError, match="no key 'submit'"):
        page_words({"submit": "Send"})


@pytest.mark.parametrize(
    ("key", "forms", "problem"),
    [
        ("submit", ("Senden",), None),
        ("add_to", ("Zu {label} hinzufügen",), None),
        ("add_to", ("Hinzufügen",), r"lacks \{label\}"),
        ("add_to", ("Zu {label} {labels}",), r"holds \{labels\}"),
        ("add_to", ("Zu {label!r}",), "carries a format"),
        ("add_to", ("Zu {label:>9}",), "carries a format"),
        ("add_to", ("Zu {label",), "unpaired brace"),
        ("add_to", ("Zu {{label}}",), r"lacks \{label\}"),
        ("problems", ("Ein Problem", "{count} Probleme"), None),
        ("problems", ("{count} Problem", "Probleme"), r"lacks \{count\}"),
        ("hint_digits_between", ("{count} Ziffer", "{low}-{count} Ziffern"), r"lacks \{low\}"),
    ],
)
def test_a_translations_placeholders_must_be_its_english_texts(
    key: str, forms: tuple[str, ...], problem: str | None
) -> None:
    found = form_problem(MESSAGES[key], forms)
    if problem is None:
        assert found is None
    else:
        assert found is not None
        assert re.search(problem, found)


def test_said_writes_the_limit_as_the_table_does() -> None:
    assert said(PAGE_WORDS, "min_length", 3.0) == "Enter at least 3 characters"
    assert said(PAGE_WORDS, "required") == "Fill this in"
    assert said(words_for("en"), "min_length", 1) == "Enter at least 1 character"
    assert said(words_for("de"), "ge", 1500.5) == "Geben Sie 1.500,5 oder mehr ein"


def test_no_english_text_holds_a_brace_that_is_not_a_placeholder() -> None:
    for message in MESSAGES.values():
        for text in (message.text, message.english):
            parsed = list(string.Formatter().parse(text))
            assert all(spec == "" and conv is None for _, name, spec, conv in parsed if name is not None)
