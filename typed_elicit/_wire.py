"""The wire rules both ends share: what a value in an elicitation answer may be.

The server re-validates every accepted answer with these functions
(`typed_elicit._validate`), and the client half builds its forms with the same
ones (`typed_elicit._client`), so a value one end accepts the other end accepts too:

- numbers: `wire_number` (finite JSON numbers, or a string holding exactly one);
- text: `check_text` (valid Unicode: no lone surrogates);
- formats: `check_date` and `check_datetime` (RFC 3339 `full-date` and `date-time`,
  nothing looser: no Unix timestamps, no date where a date-time is asked, no
  date-time where a date is asked).
"""

from __future__ import annotations

import math
import re
from datetime import date, datetime
from decimal import Decimal
from typing import Final

_JSON_NUMBER: Final = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")
"""The JSON number grammar (RFC 8259), ASCII digits only."""


def wire_number(value: object, *, integer: bool = False) -> int | float:
    """The number a wire value stands for in a `number` (or `integer`) field.

    The one check both ends use (rule 4 of this module): a finite JSON number, or a
    string holding exactly one JSON number; never a boolean; for an `integer`
    field, an integral value.

    Args:
        value: The value as it arrived (or as a client is about to send it).
        integer: Whether the field is an `integer` field.

    Returns:
        The number: an `int` for an integral string without fraction or exponent
        and for every `integer` field, else the value (a float for other strings).

    Raises:
        ValueError: Saying what was expected and what came instead.
    """
    number: int | float
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ValueError(f"expected a number, got {value!r}")
    if isinstance(value, str):
        match = _JSON_NUMBER.fullmatch(value)
        if match is None:
            raise ValueError(f"expected a number, got {value!r}")
        if match[2] is None and match[3] is None:
            try:
                number = int(value)
            except ValueError:  # more digits than int() parses
                raise ValueError(f"expected a number, got {value!r}") from None
        else:
            exact = Decimal(value)
            number = float(exact)
            if not math.isfinite(number):
                raise ValueError(f"expected a finite number, got {value!r}")
            if integer:
                if exact != exact.to_integral_value():
                    raise ValueError(f"expected a whole number, got {value!r}")
                number = int(exact)
        return number
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"expected a finite number, got {value!r}")
        if integer:
            if not value.is_integer():
                raise ValueError(f"expected a whole number, got {value!r}")
            return int(value)
    return value


def check_text(value: str) -> str:
    """`value` if it is valid Unicode text (encodable as UTF-8: no lone surrogates).

    Raises:
        ValueError: If the string holds a lone surrogate.
    """
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("expected valid Unicode text (the string holds a lone surrogate)") from None
    return value


_DATE: Final = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", re.ASCII)
_DATETIME: Final = re.compile(
    r"([0-9]{4}-[0-9]{2}-[0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2})",
    re.ASCII,
)


def check_date(value: str) -> str:
    """`value` if it is an RFC 3339 `full-date` (`YYYY-MM-DD`, a real calendar day).

    Raises:
        ValueError: Saying what was expected.
    """
    if _DATE.fullmatch(value) is None:
        raise ValueError("expected a date as YYYY-MM-DD (RFC 3339)")
    try:
        date.fromisoformat(value)
    except ValueError:
        raise ValueError("expected a real calendar date as YYYY-MM-DD (RFC 3339)") from None
    return value


def check_datetime(value: str) -> str:
    """`value` if it is an RFC 3339 `date-time` (`YYYY-MM-DDTHH:MM:SS[.frac]` and `Z` or `+HH:MM`).

    Seconds and the offset are required, as RFC 3339 requires them.

    Raises:
        ValueError: Saying what was expected.
    """
    match = _DATETIME.fullmatch(value)
    if match is None:
        raise ValueError(
            "expected a date-time as YYYY-MM-DDTHH:MM:SSZ or with an offset like +02:00 (RFC 3339)"
        )
    day, hour, minute, second, _, offset = match.groups()
    try:
        date.fromisoformat(day)
        hours, minutes = (0, 0) if offset in ("Z", "z") else (int(offset[1:3]), int(offset[4:6]))
        if int(hour) > 23 or int(minute) > 59 or int(second) > 59 or hours > 23 or minutes > 59:
            raise ValueError
        datetime.fromisoformat(f"{day}T{hour}:{minute}:{second}")
    except ValueError:
        raise ValueError("expected a real date and time (RFC 3339)") from None
    return value
