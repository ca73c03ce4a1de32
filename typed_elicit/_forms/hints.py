"""Hints: the constraints the wire cannot carry, told to the person, in any language.

The wire schema carries lengths, inclusive bounds on numbers (and exact integer bounds), and
options. A pattern, `multiple_of`, an exclusive bound on a float and any bound on a date or
datetime are checked on arrival but invisible to the client, so the person would guess.
Each becomes a `Phrase`: a message of the library's words (`typed_elicit._views.words`,
`hint_*`) with its values. Its English text is appended to the description the wire carries;
`HINTS` keeps, by that whole description, the developer's own part and the phrase, so a page
or a view in another language tells the hint in that language (`_views.fields.described`).
`json_schema_extra` is read here too (`own_extra`): only its `hint` and `autocomplete` keys
(`_forms.autofill`), as nothing else of it can travel.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from typing import Final, cast

import annotated_types as at
from pydantic.fields import FieldInfo

from typed_elicit._forms.defaults import BOUNDS
from typed_elicit._forms.fieldinfo import FieldProblem, FieldShape, valid_text


@dataclass(frozen=True)
class Phrase:
    """One hint as a message of the library's words: its key, its values, and for `hint_must_be` its rules."""

    key: str
    values: tuple[tuple[str, object], ...] = ()
    rules: tuple[Phrase, ...] = ()


ENGLISH: Final = {
    "hint_digits": "Must be {count} digits.",
    "hint_digits_between": "Must be {low} to {count} digits.",
    "hint_format": "Must be in the expected format.",
    "hint_example": "For example: {example}.",
    "hint_examples": "For example: {example} or {other}.",
    "hint_must_be": "Must be {rules}.",
    "hint_on_or_after": "on or after {date}",
    "hint_after": "after {date}",
    "hint_on_or_before": "on or before {date}",
    "hint_before": "before {date}",
    "hint_more_than": "more than {number}",
    "hint_less_than": "less than {number}",
    "hint_multiple_of": "a multiple of {number}",
    "list_pair": "{first} and {last}",
    "list_more": "{first}, {rest}",
}
"""The English of each message a hint uses: the words' `MESSAGES` say the same (a test keeps them equal)."""

HINTS: Final[dict[str, tuple[str | None, Phrase]]] = {}
"""Each description written with an automatic hint: the developer's own part and the hint.

Filled when a model is declared, so it holds one entry per hinted field of the code's models
and nothing a client sends.
"""

_DATE_KEYS: Final = {
    "ge": "hint_on_or_after",
    "gt": "hint_after",
    "le": "hint_on_or_before",
    "lt": "hint_before",
}
_NUMBER_KEYS: Final = {"gt": "hint_more_than", "lt": "hint_less_than"}

_DIGITS: Final = re.compile(r"\^(?:\\d|\[0-9\])\{(\d+)(?:,(\d+))?\}\$")
"""A pattern of digits only, `^\\d{5}$` or `^[0-9]{4,6}$`: told as "5 digits"."""


OWN_EXTRA: Final = ("hint", "autocomplete")
"""The `json_schema_extra` keys typed_elicit reads itself (`chosen_hint`, `_forms.autofill`)."""


def own_extra(extra: object) -> dict[str, object]:
    """A field's `json_schema_extra`: only the keys typed_elicit reads (`OWN_EXTRA`); {} for none.

    `json_schema_extra` cannot travel (the wire schema admits only the spec's keys), so any
    other key, or a callable, is refused.

    Raises:
        FieldProblem: If `json_schema_extra` holds another key, or is no dict.
    """
    if extra is None:
        return {}
    if isinstance(extra, dict) and all(key in OWN_EXTRA for key in cast("dict[object, object]", extra)):
        return dict(cast("dict[str, object]", extra))
    raise FieldProblem(
        "json_schema_extra cannot travel: the wire schema admits only the spec's keys; "
        "remove it and enforce extra rules with a validator (checked when the answer arrives); "
        'only json_schema_extra={"hint": "..." or False, "autocomplete": "<HTML autofill token>"} is read, '
        "to word or drop the hint and to tell browsers what the field holds"
    )


def chosen_hint(extra: object) -> str | bool:
    """The field's own hint from `json_schema_extra={"hint": ...}`: its text, False for none, else True.

    Raises:
        FieldProblem: If `json_schema_extra` holds a key typed_elicit does not read (`own_extra`), or a
            hint that is no text or False.
    """
    own = own_extra(extra)
    if "hint" not in own:
        return True
    value = own["hint"]
    if value is False or (isinstance(value, str) and value.strip()):
        if isinstance(value, str):
            valid_text(value, "hint")
        return value
    raise FieldProblem(
        'json_schema_extra={"hint": ...} takes a text (sent instead of the automatic hint) or '
        f"False (no hint), not {value!r}; fix it"
    )


def described(info: FieldInfo, shape: FieldShape) -> str | None:
    """The field's description as the wire carries it: the developer's, then the hint, in English.

    An automatic hint is kept in `HINTS` under the description, for other languages.

    Raises:
        FieldProblem: If the field's own hint is misdeclared (`chosen_hint`).
    """
    chosen = chosen_hint(info.json_schema_extra)
    if chosen is not True:
        return with_hint(info.description, chosen or None)
    phrase = hint(shape, info)
    if phrase is None:
        return info.description
    description = with_hint(info.description, english(phrase))
    if description is not None:
        HINTS[description] = (info.description, phrase)
    return description


def hint(shape: FieldShape, info: FieldInfo) -> Phrase | None:
    """What the wire schema of this field leaves out, as a phrase, or None."""
    annotation = shape.annotation
    if annotation is str:
        patterns = [p for p in (getattr(m, "pattern", None) for m in shape.metadata) if p is not None]
        return None if not patterns else _pattern_hint(patterns[-1], info)
    is_date = isinstance(annotation, type) and issubclass(annotation, date)
    if not (is_date or annotation is int or annotation is float):
        return None  # options, yes/no, formats: nothing the wire leaves out is told
    rules: list[Phrase] = []
    for meta in shape.metadata:
        if is_date:
            for kind, name, _ in BOUNDS:
                if isinstance(meta, kind):
                    bound = getattr(meta, name)
                    shown = bound.isoformat() if isinstance(bound, date) else str(bound)
                    rules.append(Phrase(_DATE_KEYS[name], (("date", shown),)))
        elif annotation is float and isinstance(meta, at.Gt | at.Lt):
            name = "gt" if isinstance(meta, at.Gt) else "lt"
            rules.append(Phrase(_NUMBER_KEYS[name], (("number", getattr(meta, name)),)))
        elif isinstance(meta, at.MultipleOf):
            rules.append(Phrase("hint_multiple_of", (("number", meta.multiple_of),)))
    return Phrase("hint_must_be", rules=tuple(rules)) if rules else None


def _pattern_hint(pattern: object, info: FieldInfo) -> Phrase | None:
    """A pattern told as a person reads it: never the regular expression itself.

    The field's own examples first ("For example: 12345."); a described field needs no more
    (its description says what to enter); a pattern of digits only is counted ("5 digits");
    any other pattern is a plain sentence.
    """
    if info.examples:
        shown = [str(example) for example in info.examples[:2]]
        if len(shown) == 1:
            return Phrase("hint_example", (("example", shown[0]),))
        return Phrase("hint_examples", (("example", shown[0]), ("other", shown[1])))
    if info.description:
        return None
    text = cast("re.Pattern[str]", pattern).pattern if isinstance(pattern, re.Pattern) else str(pattern)
    digits = _DIGITS.fullmatch(text)
    if digits is None:
        return Phrase("hint_format")
    low, high = int(digits.group(1)), digits.group(2)
    if high is None or int(high) == low:
        return Phrase("hint_digits", (("count", low),))
    return Phrase("hint_digits_between", (("low", low), ("count", int(high))))


def english(phrase: Phrase) -> str:
    """The phrase in English, as the wire's description carries it."""
    values = {name: _shown_number(value) for name, value in phrase.values}
    if phrase.rules:
        values["rules"] = listed([english(rule) for rule in phrase.rules], say_english)
    text = ENGLISH[phrase.key]
    if phrase.key == "hint_digits" and values.get("count") == "1":
        text = "Must be {count} digit."
    return text.format_map(values)


def listed(items: list[str], say: Callable[..., str]) -> str:
    """`a`, `a and b`, `a, b and c`, joined by `say("list_pair", ...)` and `say("list_more", ...)`.

    `say(key, **values)` is a language's (`Words.say`), or `say_english`.
    """
    if len(items) == 1:
        return items[0]
    out = say("list_pair", first=items[-2], last=items[-1])
    for item in reversed(items[:-2]):
        out = say("list_more", first=item, rest=out)
    return out


def say_english(key: str, /, **values: object) -> str:
    """The English text of `key` (one of `ENGLISH`) with its placeholders filled."""
    return ENGLISH[key].format_map(values)


def _shown_number(value: object) -> str:
    """`5` for 5 and 5.0, `0.5` for 0.5: a number as a person writes it."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e16:
        return str(int(value))
    return str(value)


def with_hint(description: str | None, hint: str | None) -> str | None:
    """The description with the hint after it, as one text (a full stop between them if needed)."""
    if not hint:
        return description
    if not description:
        return hint
    text = description.rstrip()
    return f"{text} {hint}" if text.endswith((".", "!", "?", ":")) else f"{text}. {hint}"
