"""The one text sanitiser: server- or client-sent text made safe to print, quote or keep."""

from __future__ import annotations


def test_one_text_sanitiser_for_printing_quoting_and_keeping_texts():
    from typed_elicit._core.text import clean, escaped, has_control, quoted

    assert clean("a\x1b[2Jb\n\tc") == "a?[2Jb\n\tc"
    assert clean("a\nb\tc", one_line=True) == "a b c"
    assert quoted("é" * 50, 3) == "'\\xe9\\xe9\\xe9...'"
    assert quoted("ok") == "'ok'"
    assert escaped("a\x1bb", 10) == "a\\x1bb"
    assert escaped("x" * 20, 10) == "xxxxxxx..."
    assert has_control("a\tb")
    assert not has_control("a b")


def test_bidi_controls_are_shown_escaped_to_a_person_and_removed_where_they_cannot_be():
    from typed_elicit._core.text import clean, strip_bidi

    reordered = "Pay \u202e0001$"
    assert clean(reordered) == "Pay \\u202e0001$"
    assert strip_bidi(reordered) == "Pay 0001$"
    assert (
        strip_bidi("\u2067\u05e9\u05dc\u05d5\u05dd\u2069 \u200eok\u200f\u061c")
        == "\u05e9\u05dc\u05d5\u05dd ok"
    )


def test_a_wire_format_is_named_in_words_and_other_kinds_are_kept():
    from typed_elicit._core.text import in_words

    assert in_words("uri") == "URL"
    assert in_words("date-time") == "date and time"
    assert in_words("email") == "email"
