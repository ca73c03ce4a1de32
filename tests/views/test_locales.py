"""Which language a person reads: tags, `Accept-Language` negotiation, the environment, the direction."""

from __future__ import annotations

import pytest

from typed_elicit._views import locales
from typed_elicit._views.locales import (
    MAX_HEADER,
    MAX_RANGES,
    best_match,
    direction,
    environment_locale,
    negotiate,
    normal_tag,
    parse_accept_language,
)

SHIPPED = ("en", "de", "fr", "es", "ja", "ar")


@pytest.mark.parametrize(
    ("tag", "normal"),
    [
        ("de", "de"),
        ("DE-de", "de-DE"),
        ("de_AT.UTF-8", "de-AT"),
        ("sr_RS@latin", "sr-RS"),
        ("zh-hant-tw", "zh-Hant-TW"),
        ("es-419", "es-419"),
        ("  fr-ca ", "fr-CA"),
        ("C", None),
        ("POSIX", None),
        ("C.UTF-8", None),
        ("*", None),
        ("", None),
        ("d", None),
        ("de--DE", None),
        ("de-DE;", None),
        ("e\u0301n", None),
        ("x" * 40, None),
    ],
)
def test_a_tag_is_written_in_its_usual_case_and_anything_else_is_no_tag(tag: str, normal: str | None) -> None:
    assert normal_tag(tag) == normal


def test_accept_language_ranges_are_sorted_by_q_value_keeping_the_headers_order_for_ties() -> None:
    header = "fr;q=0.5, de-DE, en;q=0.5, ja;q=0, *;q=0.1, es ; q = 0.9"
    assert parse_accept_language(header) == [
        ("de-DE", 1.0),
        ("es", 0.9),
        ("fr", 0.5),
        ("en", 0.5),
        ("*", 0.1),
    ]


@pytest.mark.parametrize(
    "header", ["de;q=2", "de;q=0.1234", "de;q=abc", "de;level=1", "de;q=-1", "d€", "1234", ";q=1"]
)
def test_a_malformed_range_is_skipped(header: str) -> None:
    assert parse_accept_language(f"{header}, fr;q=0.2") == [("fr", 0.2)]


@pytest.mark.parametrize(
    ("header", "chosen"),
    [
        ("de", "de"),
        ("de-DE,de;q=0.9,en;q=0.8", "de"),
        ("de-CH", "de"),
        ("pt-BR, fr;q=0.3", "fr"),
        ("pt-BR", "en"),
        ("ja;q=0.2, ar;q=0.8", "ar"),
        ("*", "en"),
        ("ar;q=0, *", "en"),
        ("", "en"),
        (None, "en"),
        ("q=1, ;;;, ,,", "en"),
    ],
)
def test_negotiation_takes_the_best_range_its_general_tag_or_the_default(
    header: str | None, chosen: str
) -> None:
    assert negotiate(header, SHIPPED) == chosen


def test_a_general_range_is_served_by_a_regional_locale_of_its_language() -> None:
    assert negotiate("de", ("en", "de-AT")) == "de-AT"
    assert negotiate("zh-Hant-TW", ("en", "zh-Hant", "zh")) == "zh-Hant"
    assert negotiate("zh-Hant-TW", ("en", "zh")) == "zh"


def test_the_default_need_not_be_offered_and_case_does_not_matter() -> None:
    assert negotiate("it", SHIPPED, default="fr") == "fr"
    assert negotiate("DE-de", ("en", "de-DE")) == "de-DE"
    assert best_match("de_de", ("en", "de-DE")) == "de-DE"
    assert best_match(None, SHIPPED) is None
    assert best_match("C", SHIPPED) is None


def test_only_the_first_ranges_of_a_long_header_are_read() -> None:
    padding = ", ".join(["xx"] * MAX_RANGES)
    assert negotiate(f"{padding}, de", SHIPPED) == "en"
    assert negotiate(f"de, {padding}", SHIPPED) == "de"
    huge = "de;q=0.5," + "a" * (MAX_HEADER * 100) + ",fr"
    assert parse_accept_language(huge) == [("de", 0.5)]


def test_headers_a_client_sends_never_grow_the_negotiation_cache_past_its_bound() -> None:
    bound = locales._negotiated.cache_info().maxsize
    assert bound is not None
    for i in range(bound * 3):
        negotiate(f"x{i:05d}, de;q=0.{i % 9 + 1}", SHIPPED)
    assert locales._negotiated.cache_info().currsize <= bound
    assert locales._best.cache_info().currsize <= (locales._best.cache_info().maxsize or 0)


@pytest.mark.parametrize(
    ("locale", "way"),
    [
        ("ar", "rtl"),
        ("ar-EG", "rtl"),
        ("he", "rtl"),
        ("fa-IR", "rtl"),
        ("ur", "rtl"),
        ("az-Arab", "rtl"),
        ("pa-Guru", "ltr"),
        ("ar-Latn", "ltr"),
        ("en", "ltr"),
        ("ja", "ltr"),
        ("de-DE", "ltr"),
    ],
)
def test_right_to_left_languages_and_scripts_are_told(locale: str, way: str) -> None:
    assert direction(locale) == way


@pytest.mark.parametrize(
    ("environ", "locale"),
    [
        ({"LANG": "de_DE.UTF-8"}, "de-DE"),
        ({"LANGUAGE": "fr:de", "LANG": "de_DE.UTF-8"}, "fr"),
        ({"LC_ALL": "es_ES.UTF-8", "LANG": "de_DE.UTF-8"}, "es-ES"),
        ({"LC_MESSAGES": "ja_JP.UTF-8", "LANG": "de_DE.UTF-8"}, "ja-JP"),
        ({"LANGUAGE": "", "LANG": "ar_EG.UTF-8"}, "ar-EG"),
        ({"LC_ALL": "C", "LANG": "de_DE.UTF-8"}, None),
        ({"LANG": "C.UTF-8"}, None),
        ({}, None),
    ],
)
def test_the_environment_asks_for_a_locale_as_gettext_reads_it(
    environ: dict[str, str], locale: str | None
) -> None:
    assert environment_locale(environ) == locale
