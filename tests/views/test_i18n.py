"""The words of a language (`Words`) and a server's languages (`Languages`): what renderers call."""

from __future__ import annotations

import logging
import subprocess
import sys
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest
from babel.numbers import format_decimal

from tests.views.test_catalogs import mo
from typed_elicit._views import i18n
from typed_elicit._views.catalogs import mo_path
from typed_elicit._views.i18n import SHIPPED, Languages, Words, words_for
from typed_elicit._views.words import MESSAGES, PAGE_WORDS, said
from typed_elicit.errors import PageSetupError

SAME_IN_GERMAN = {
    "optional", "title", "problem_at", "item", "list_more", "term_url", "kind_uri", "term_optional",
    "megabytes", "gigabytes", "plural_categories", "key_no",
}  # fmt: skip
"""German messages that read as the English ones (a loan word, or only placeholders and signs)."""


def test_a_shipped_language_is_loaded_once_and_any_tag_gets_its_nearest() -> None:
    assert words_for("de-DE") is words_for("de")
    assert words_for("de_AT.UTF-8").locale == "de"
    assert words_for("pt-BR").locale == "en"
    assert words_for(None).locale == "en"
    assert words_for("garbage!!").locale == "en"
    assert set(i18n._SHIPPED_WORDS) <= set(SHIPPED)


@pytest.mark.parametrize("locale", SHIPPED)
def test_every_shipped_language_translates_every_message(locale: str) -> None:
    words = words_for(locale)
    assert set(words) == set(MESSAGES)
    assert words["submit"] != ""
    assert all(words[key] for key in words)


def test_a_german_page_shows_no_english_library_word() -> None:
    de, en = words_for("de"), words_for("en")
    english = {key for key in MESSAGES if de[key] == en[key]} - SAME_IN_GERMAN
    assert english == set()
    for key, message in MESSAGES.items():
        if message.plural is not None and key not in SAME_IN_GERMAN:
            assert de.count(key, 1, low=1) != en.count(key, 1, low=1)
            assert de.count(key, 3, low=1) != en.count(key, 3, low=1)


@pytest.mark.parametrize(
    ("locale", "count", "text"),
    [
        ("en", 1, "Please correct 1 problem"),
        ("en", 0, "Please correct 0 problems"),
        ("fr", 0, "Veuillez corriger 0 problème"),
        ("fr", 2, "Veuillez corriger 2 problèmes"),
        ("ja", 5, "5件の問題を修正してください"),
        ("ar", 1, "يُرجى تصحيح مشكلة واحدة"),
        ("ar", 2, "يُرجى تصحيح مشكلتين"),
        ("ar", 3, "يُرجى تصحيح 3 مشكلات"),
        ("ar", 11, "يُرجى تصحيح 11 مشكلة"),
        ("de", 1000, "Bitte korrigieren Sie 1.000 Probleme"),
    ],
)
def test_a_count_chooses_the_languages_plural_form_and_is_written_as_it_writes_numbers(
    locale: str, count: int, text: str
) -> None:
    assert words_for(locale).count("problems", count) == text


@pytest.mark.parametrize("locale", SHIPPED)
@pytest.mark.parametrize("value", [0, 7, 999, 1000, 12345, 1234567.25, -1234.5, 0.5, 10**9, -0.125])
def test_numbers_are_written_as_cldr_writes_them(locale: str, value: float) -> None:
    assert words_for(locale).number(value) == format_decimal(value, locale=locale, numbering_system="latn")


def test_a_number_keeps_every_digit_python_shows_and_other_values_are_shown_as_text() -> None:
    de = words_for("de")
    assert de.number(0.0001) == "0,0001"
    assert de.number(1e20) == "100.000.000.000.000.000.000"
    assert de.number(2.0) == "2"
    assert de.number(Decimal("1234.50")) == "1.234,50"
    assert de.number(float("inf")) == "inf"
    assert de.number(True) == "True"
    assert de.number(date(2026, 7, 28)) == "2026-07-28"


@pytest.mark.parametrize(
    ("locale", "size", "text"),
    [
        ("en", 12, "12 bytes"),
        ("en", 1, "1 byte"),
        ("en", 2_000, "2 KB"),
        ("en", 1_500_000, "1.5 MB"),
        ("de", 1_500_000, "1,5 MB"),
        ("fr", 2_000, "2 ko"),
        ("fr", 3_000_000_000, "3 Go"),
        ("ar", 2, "بايتان"),
    ],
)
def test_sizes_are_written_in_decimal_units_of_the_language(locale: str, size: int, text: str) -> None:
    assert words_for(locale).size(size) == text


def test_a_problem_with_a_limit_reads_as_the_page_words_do_in_english() -> None:
    en = words_for("en")
    for key in PAGE_WORDS:
        assert said(en, key, 5) == said(PAGE_WORDS, key, 5)
        assert said(en, key) == said(PAGE_WORDS, key)
    assert said(en, "min_length", 1) == "Enter at least 1 character"  # English's own plural now
    assert said(en, "date_ge", date(2026, 7, 28)) == "Enter 2026-07-28 or a later date"


def test_lists_are_joined_as_the_language_joins_them() -> None:
    assert (
        words_for("en").listing(["after 2026-01-01", "a multiple of 5"])
        == "after 2026-01-01 and a multiple of 5"
    )
    assert words_for("de").listing(["a", "b", "c"]) == "a, b und c"
    assert words_for("ar").listing(["a", "b"]) == "a وb"
    assert words_for("en").listing(["a"]) == "a"
    assert words_for("en").listing([]) == ""


def test_arabic_reads_right_to_left_and_the_rest_left_to_right() -> None:
    assert {locale: words_for(locale).direction for locale in SHIPPED} == {
        "en": "ltr", "de": "ltr", "fr": "ltr", "es": "ltr", "ja": "ltr", "ar": "rtl",
    }  # fmt: skip


def test_a_scripts_table_gives_plural_forms_by_cldr_category() -> None:
    table = words_for("ar").table(["submit", "problems"])
    assert table["submit"] == "إرسال"
    assert list(table["problems"]) == ["zero", "one", "two", "few", "many", "other"]
    assert words_for("ja").table(["problems"]) == {"problems": {"other": "{count}件の問題を修正してください"}}
    assert words_for("en").table(["min_length"])["min_length"] == {
        "one": "Enter at least {limit} character",
        "other": "Enter at least {limit} characters",
    }


def test_loading_typed_elicit_loads_no_catalog_and_no_babel() -> None:
    code = (
        "import sys, typed_elicit, typed_elicit.pages, typed_elicit.apps, typed_elicit.client;"
        "print(sorted(m for m in sys.modules if 'babel' in m or m.endswith(('.i18n', '.catalogs'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.strip() == "[]"


# --- Languages: one server's choice ---------------------------------------------------------------


def catalogs(tmp_path: Path, locale: str, domain: str, entries: dict[str, str]) -> Path:
    path = mo_path(tmp_path, locale, domain)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(mo({"": "Language: x\n", **entries}))
    return tmp_path


def test_a_call_beats_the_servers_locale_which_beats_what_the_person_sends() -> None:
    languages = Languages()
    assert languages.choose(accept_language="de-DE,de;q=0.9") == "de"
    assert languages.choose(host="ar-EG") == "ar"
    assert languages.choose(host="pt-BR") == "en"
    assert languages.choose(call="fr", accept_language="de") == "fr"
    assert languages.choose(call="pt", accept_language="de") == "de"  # a call's locale not offered
    fixed = Languages(locale="ja-JP")
    assert fixed.locale == "ja"
    assert fixed.choose(accept_language="de") == "ja"
    assert fixed.choose(call="es", host="de") == "es"


def test_a_server_offers_some_locales_with_its_own_default() -> None:
    languages = Languages(available=["de", "fr-CA"], default="fr")
    assert languages.available == ("de", "fr-CA")
    assert languages.default == "fr-CA"
    assert languages.choose(accept_language="es") == "fr-CA"
    assert languages.words("fr").locale == "fr-CA"
    assert languages.words("fr")["submit"] == "Envoyer"  # fr-CA falls back to the shipped fr
    assert languages.directions() == {"de": "ltr", "fr-CA": "ltr"}


def test_words_are_loaded_once_per_offered_locale_whatever_clients_send() -> None:
    languages = Languages(available=["en", "de"])
    for i in range(300):
        languages.words(f"x{i}-DE")
        languages.words(languages.choose(accept_language=f"de-{i:03d}, x{i}"))
    assert set(languages._words) <= {"en", "de"}
    assert languages.words("de") is languages.words("de-CH")


def test_overrides_replace_the_words_of_their_language_only() -> None:
    languages = Languages(words={"en": {"submit": "Send"}, "de-DE": {"required": "Pflichtfeld"}})
    assert languages.words("en")["submit"] == "Send"
    assert languages.words("de")["submit"] == "Senden"
    assert languages.words("de")["required"] == "Pflichtfeld"
    assert languages.words("fr")["required"] == "Remplissez ce champ"


def test_todays_page_words_reword_the_default_language_counted_ones_included() -> None:
    # serve_pages(words=...) as servers give it today: English overrides of PAGE_WORDS.
    page_words = {"min_length": "Mindestens {limit} Zeichen", "required": "Bitte ausfüllen"}
    languages = Languages(default="de", words={"de": page_words})
    de = languages.words("de")
    assert said(de, "min_length", 1) == "Mindestens 1 Zeichen"
    assert said(de, "min_length", 3000) == "Mindestens 3.000 Zeichen"
    assert said(de, "required") == "Bitte ausfüllen"
    assert said(languages.words("fr"), "min_length", 1) == "Saisissez au moins 1 caractère"


@pytest.mark.parametrize(
    ("kwargs", "setting", "problem"),
    [
        ({"locale": "it"}, "locale", "'it' is not offered"),
        ({"default": "C"}, "default", "BCP 47"),
        ({"available": []}, "available", "empty"),
        ({"available": ["en", 3]}, "available", "got 3"),
        ({"words": {"it": {"submit": "Invia"}}}, "words", "'it' is not offered"),
        ({"words": {"de": {"submit": ""}}}, "words", "empty"),
        ({"catalogs": ["/nonexistent/locale"]}, "catalogs", "no directory"),
    ],
)
def test_a_setting_that_cannot_be_used_is_refused_with_the_fix(
    kwargs: dict[str, object], setting: str, problem: str
) -> None:
    with pytest.raises(PageSetupError, match=problem) as refused:
        Languages(**kwargs)  # type: ignore[arg-type]
    assert refused.value.setting == setting


def test_a_catalog_that_cannot_be_read_is_refused_at_setup(tmp_path: Path) -> None:
    path = mo_path(tmp_path, "de", "messages")
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not a catalog")
    with pytest.raises(PageSetupError, match=r"catalogs cannot be used: .*magic number.*compile") as refused:
        Languages(catalogs=[tmp_path])
    assert refused.value.setting == "catalogs"


def test_the_developers_texts_come_from_their_catalogs_and_missing_ones_stay_as_written(
    tmp_path: Path,
) -> None:
    directory = catalogs(
        tmp_path, "de", "myapp", {"Your name": "Ihr Name", "1 seat\x002 seats": "1 Platz\x00{n} Plätze"}
    )
    languages = Languages(catalogs=[directory], domain="myapp")
    de = languages.words("de-AT")
    assert de.text("Your name") == "Ihr Name"
    assert de.gettext("Not translated") == "Not translated"
    assert de.text("") == ""
    assert de.ngettext("1 seat", "2 seats", 3) == "{n} Plätze"
    assert de.ngettext("Unknown", "Unknowns", 1) == "Unknown"
    assert languages.words("fr").text("Your name") == "Your name"


def test_a_translate_function_comes_first_and_its_failures_fall_back_to_the_text(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    directory = catalogs(tmp_path, "de", "messages", {"Seat": "Sitzplatz", "Meal": "Mahlzeit"})

    def translate(text: str, locale: str) -> str | None:
        if text == "Boom":
            raise RuntimeError("the translation service is down")
        return {"Meal": f"Essen ({locale})", "Blank": "  "}.get(text)

    de = Languages(catalogs=[directory], translate=translate).words("de")
    assert de.text("Meal") == "Essen (de)"
    assert de.text("Seat") == "Sitzplatz"
    assert de.text("Blank") == "Blank"
    with caplog.at_level(logging.WARNING, logger="typed_elicit.i18n"):
        assert de.text("Boom") == "Boom"
    assert "RuntimeError" in caplog.text
    assert "Boom" not in caplog.text


def test_a_catalog_adds_a_language_and_a_bad_placeholder_falls_back_to_english(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    directory = catalogs(
        tmp_path,
        "it",
        "typed_elicit",
        {
            "submit\x04Submit": "Invia",
            "add_to\x04Add to {label}": "Aggiungi a {etichetta}",
            "decimal_sign\x04.": ",",
            "group_sign\x04,": ".",
            "problems\x04Please correct {count} problem\x00Please correct {count} problems": (
                "{count} problemi"
            ),
        },
    )
    with caplog.at_level(logging.WARNING, logger="typed_elicit.i18n"):
        languages = Languages(catalogs=[directory])
        it = languages.words("it")
    assert "it" in languages.available
    assert it["submit"] == "Invia"
    assert it["add_to"] == "Add to {label}"
    assert it.say("add_to", label="Ospiti") == "Add to Ospiti"
    assert it["cancel"] == "Cancel"  # not translated: English, never an error
    assert it.number(1234.5) == "1.234,5"
    assert it.count("problems", 2) == "Please correct 2 problems"  # one form where its rule wants two
    assert "'add_to'" in caplog.text


def test_a_developers_catalog_rewords_a_shipped_language_message_by_message(tmp_path: Path) -> None:
    directory = catalogs(tmp_path, "de", "typed_elicit", {"submit\x04Submit": "Abschicken"})
    de = Languages(catalogs=[directory]).words("de")
    assert de["submit"] == "Abschicken"
    assert de["cancel"] == "Abbrechen"
    assert words_for("de")["submit"] == "Senden"


def test_words_are_a_read_only_mapping() -> None:
    words = words_for("de")
    assert isinstance(words, Words)
    assert len(words) == len(MESSAGES)
    assert repr(words) == "Words('de')"
    with pytest.raises(TypeError):
        words["submit"] = "x"  # type: ignore[index]
