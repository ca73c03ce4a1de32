"""A field shown to a person, and values that fit a field.

`describe` is what every place that shows a field (the terminal forms, the CLI transcript,
the fallback's text for the model) lays out; `number_bounds` and `example_value` are the one
statement of which values fit a field, for the demo answers of `Responder` and the
Hypothesis strategies of `typed_elicit.testing`.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Final

from typed_elicit._wire.spec import ContentValue, FieldKind, FieldSpec, Format, Option

# --- showing a field to a person ----------------------------------------------------------------

_PERSON_KIND: Final[dict[FieldKind, str]] = {
    "string": "text",
    "integer": "whole number",
    "number": "number",
    "boolean": "yes/no",
    "choice": "one of the options",
    "multi_choice": "any of the options",
}


@dataclass(frozen=True)
class FieldDescription:
    """What a field says to a person, built once by `describe` for every place that shows one.

    The terminal forms, the CLI transcript and the fallback's text for the model all lay
    out these parts; none of them works out a field's kind, limits or need on its own.
    The parts hold the server's text as sent: clean it (`typed_elicit._core.text.clean`)
    before printing it to a terminal.
    """

    name: str
    """The wire name (what an answer is keyed by)."""
    title: str | None
    """The title, when the server gave one that differs from the name."""
    kind: str
    """The wire kind: `string`, `string (email)`, `integer`, `number`, `boolean`, `choice`, `multi_choice`."""
    person_kind: str
    """The kind in a person's words: `text`, `email`, `whole number`, `yes/no`, ..."""
    options: tuple[Option, ...]
    limits: tuple[str, ...]
    """`at least 1 character`, `at most 30`, `more than 0`, `at most 2 items`, ..."""
    has_default: bool
    default: ContentValue | None
    required: bool
    """Whether an answer must carry the field (required and without a default)."""
    description: str | None

    def options_text(self) -> str:
        """The options as JSON strings, each with its title when any option has one."""
        titled = any(o.title != o.value for o in self.options)
        return ", ".join(
            f"{json.dumps(o.value)} ({o.title})" if titled else json.dumps(o.value) for o in self.options
        )

    def __str__(self) -> str:
        """One line for a reader of plain text (the fallback's text for the model).

        `name (Title): kind, required|optional, limits..., default <JSON>. Description`.
        """
        if self.kind == "multi_choice":
            kind = f"a list of any of: {self.options_text()}"
        elif self.kind == "choice":
            kind = f"one of: {self.options_text()}"
        else:
            kind = self.kind
        parts = [kind, "required" if self.required else "optional", *self.limits]
        if self.has_default:
            parts.append(f"default {json.dumps(self.default)}")
        head = f"{self.name} ({self.title})" if self.title else self.name
        line = f"{head}: {', '.join(parts)}"
        return f"{line}. {self.description}" if self.description else line


def describe(spec: FieldSpec) -> FieldDescription:
    """What `spec` says to a person: its kind, options, limits, default and need.

    Args:
        spec: The field.

    Returns:
        The description every renderer lays out.
    """
    kind: str = spec.kind
    person = _PERSON_KIND[spec.kind]
    if spec.format is not None:
        kind, person = f"string ({spec.format})", spec.format
    bounds: list[tuple[float | None, str, str]] = [
        (spec.minimum, "at least", ""),
        (spec.exclusive_minimum, "more than", ""),
        (spec.maximum, "at most", ""),
        (spec.exclusive_maximum, "less than", ""),
        (spec.min_length, "at least", " character"),
        (spec.max_length, "at most", " character"),
        (spec.min_items, "at least", " item"),
        (spec.max_items, "at most", " item"),
    ]
    limits = tuple(
        f"{phrase} {_plain_number(value)}{unit}{'s' if unit and value != 1 else ''}"
        for value, phrase, unit in bounds
        if value is not None
    )
    return FieldDescription(
        name=spec.name,
        title=spec.title if spec.title and spec.title != spec.name else None,
        kind=kind,
        person_kind=person,
        options=spec.options,
        limits=limits,
        has_default=spec.has_default,
        default=spec.default,
        required=spec.required and not spec.has_default,
        description=spec.description,
    )


def _plain_number(value: float) -> str:
    """`30` for 30.0, `0.5` for 0.5: a bound as a person writes it."""
    return str(int(value)) if float(value).is_integer() else str(value)


# --- values that fit a field ---------------------------------------------------------------------


def number_bounds(spec: FieldSpec) -> tuple[float | None, float | None]:
    """The closed range of values a number field takes, exclusive bounds moved inward.

    The one statement of a number field's range for every generator of values (the
    demo answers of `Responder`, the Hypothesis strategies of `typed_elicit.testing`):
    an exclusive bound moves to the next whole number (integer fields) or the next float.

    Args:
        spec: An `integer` or `number` field.

    Returns:
        `(lowest, highest)`, either None when unbounded; whole numbers for an integer field.
    """
    integer = spec.kind == "integer"
    low, high = spec.minimum, spec.maximum
    if spec.exclusive_minimum is not None:
        x = spec.exclusive_minimum
        edge = math.floor(x) + 1 if integer else math.nextafter(x, math.inf)
        low = edge if low is None else max(low, edge)
    if spec.exclusive_maximum is not None:
        x = spec.exclusive_maximum
        edge = math.ceil(x) - 1 if integer else math.nextafter(x, -math.inf)
        high = edge if high is None else min(high, edge)
    if integer:
        low = None if low is None else math.ceil(low)
        high = None if high is None else math.floor(high)
    return low, high


FORMAT_EXAMPLES: Final[dict[Format, str]] = {
    "email": "demo@example.com",
    "uri": "https://example.com/",
    "date": "2026-07-28",
    "date-time": "2026-07-28T09:30:00Z",
}
"""One value of each format, fitting it (the demo answers' text, a Hypothesis example)."""


def example_value(spec: FieldSpec) -> ContentValue:
    """A value that fits `spec`, for demos: the first option(s), a low number, sample text.

    The one deterministic generator (`Responder`'s demo answers; the Hypothesis
    strategies start from the same `number_bounds`). A number is the first of the
    field's inclusive minimum, one above its exclusive minimum, 1, or the middle of its
    range that fits, else the lowest value that does; text is padded with `x` to `minLength` and cut to
    `maxLength` (a format field may then no longer fit: no value fits such a field).

    Args:
        spec: The field.

    Returns:
        The value.
    """
    if spec.kind == "choice":
        return spec.options[0].value
    if spec.kind == "multi_choice":
        return [option.value for option in spec.options[: max(spec.min_items or 0, 1)]]
    if spec.kind == "boolean":
        return True
    if spec.kind in ("integer", "number"):
        return _example_number(spec)
    text = FORMAT_EXAMPLES[spec.format] if spec.format is not None else "demo"
    text = text.ljust(spec.min_length or 0, "x")
    return text if spec.max_length is None else text[: spec.max_length]


def _example_number(spec: FieldSpec) -> int | float:
    low, high = number_bounds(spec)
    above = None if spec.exclusive_minimum is None else spec.exclusive_minimum + 1
    lows = [b for b in (spec.minimum, spec.exclusive_minimum) if b is not None]
    highs = [b for b in (spec.maximum, spec.exclusive_maximum) if b is not None]
    middle = (max(lows) + min(highs)) / 2 if lows and highs else None
    for candidate in (spec.minimum, above, 1, middle):
        if candidate is None:
            continue
        value = math.ceil(candidate) if spec.kind == "integer" else candidate
        if (low is None or value >= low) and (high is None or value <= high):
            return value
    if low is not None:
        return low
    return high if high is not None else 1
