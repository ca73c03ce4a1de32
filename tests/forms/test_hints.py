"""Automatic hints: the wire's English sentence, and the phrase kept for other languages."""

from __future__ import annotations

from datetime import date

from pydantic import BaseModel, Field

from typed_elicit import form
from typed_elicit._forms.hints import ENGLISH, HINTS, Phrase, english, listed, say_english
from typed_elicit._views.words import MESSAGES


def test_each_english_text_a_hint_uses_is_the_one_the_catalogs_translate() -> None:
    for key, text in ENGLISH.items():
        assert MESSAGES[key].english == text, key
    assert MESSAGES["hint_digits"].text == "Must be {count} digit."  # the one English singular used


def test_a_hinted_field_keeps_its_own_description_and_its_hint_by_the_text_the_wire_carries() -> None:
    @form
    class Booking(BaseModel):
        day: date = Field(ge=date(2026, 1, 1), description="Arrival")
        code: str = Field(pattern=r"^\d{4,6}$")
        plain: str = Field(description="No hint")

    assert Booking.model_json_schema()["properties"]["day"]["description"] == "Arrival"  # untouched
    wire = "Arrival. Must be on or after 2026-01-01."
    assert HINTS[wire] == (
        "Arrival",
        Phrase("hint_must_be", rules=(Phrase("hint_on_or_after", (("date", "2026-01-01"),)),)),
    )
    assert HINTS["Must be 4 to 6 digits."][0] is None
    assert "No hint" not in HINTS


def test_rules_are_listed_as_english_lists_them() -> None:
    rules = tuple(Phrase("hint_more_than", (("number", n),)) for n in (1, 2.5, 3.0))
    assert (
        english(Phrase("hint_must_be", rules=rules)) == "Must be more than 1, more than 2.5 and more than 3."
    )
    assert listed(["a"], say_english) == "a"
    assert listed(["a", "b"], say_english) == "a and b"
    assert english(Phrase("hint_digits", (("count", 1),))) == "Must be 1 digit."


def test_the_hint_and_the_autocomplete_token_are_the_only_extra_keys_read() -> None:
    import pytest

    from typed_elicit._forms.fieldinfo import FieldProblem
    from typed_elicit._forms.hints import chosen_hint, own_extra

    assert own_extra({"hint": "Five digits", "autocomplete": "postal-code"}) == {
        "hint": "Five digits",
        "autocomplete": "postal-code",
    }
    assert chosen_hint({"autocomplete": "postal-code"}) is True  # the automatic hint stays
    assert chosen_hint({"hint": False, "autocomplete": "off"}) is False
    with pytest.raises(FieldProblem, match=r'only json_schema_extra=\{"hint": .*"autocomplete"'):
        own_extra({"autocomplete": "off", "examples": [1]})
    with pytest.raises(FieldProblem, match="cannot travel"):
        own_extra(lambda schema: None)
