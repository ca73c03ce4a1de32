"""Reading one submitted field: the values a browser sent for an input, as its field's wire value.

A number must read as one, a check box as ticked or not, a formatted text (email, web address,
date, date and time) in its format; the rest is left to the model. Flat pages and pages with
groups read their leaves with the same `read_leaf`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from typing import Any, Final

from typed_elicit._views.fields import CHECKED, UNCHECKED
from typed_elicit._views.words import said
from typed_elicit._wire.rules import check_date, check_datetime, check_email, check_uri
from typed_elicit._wire.spec import FieldSpec

_FORMATS: Final[Mapping[str, tuple[Callable[[str], str], str]]] = {
    "email": (check_email, "email"),
    "uri": (check_uri, "uri"),
    "date": (check_date, "date"),
    "date-time": (check_datetime, "date_time"),
}

LEFT_OUT: Final = object()
"""What `read_leaf` returns for a field the submit left empty (its default applies, or "required")."""


def read_leaf(spec: FieldSpec, values: list[str], words: Mapping[str, str]) -> tuple[Any, str | None]:
    """The wire value of one field from the values sent for its input, or what to tell of it.

    Returns:
        `(value, None)`, `(LEFT_OUT, None)` for an empty field, or `(LEFT_OUT, problem)`.
    """
    last = values[-1] if values else ""
    if spec.kind == "boolean":
        ticked = last.lower()
        if ticked in CHECKED or ticked in UNCHECKED:
            return ticked in CHECKED, None
        return LEFT_OUT, said(words, "boolean")
    if spec.kind == "multi_choice":
        picked = [v for v in values if v]
        return (picked if picked or spec.required or spec.has_default else LEFT_OUT), None
    if last == "":
        return LEFT_OUT, None
    if spec.kind in ("integer", "number"):
        number = _number(last, integer=spec.kind == "integer")
        return (LEFT_OUT, said(words, spec.kind)) if number is None else (number, None)
    if spec.format is not None:
        check, key = _FORMATS[spec.format]
        try:
            return check(last), None
        except ValueError:
            return LEFT_OUT, said(words, key)
    return last, None


def _number(text: str, *, integer: bool) -> int | float | None:
    text = text.strip()
    try:
        value = float(text)
    except ValueError:
        return None
    if not math.isfinite(value):
        return None
    if integer:
        if not value.is_integer():
            return None
        return int(text) if re.fullmatch(r"-?\d+", text) else int(value)
    return value
