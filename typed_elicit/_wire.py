"""The wire rules both ends share: what a value in an elicitation answer may be.

The server re-validates every accepted answer with these functions
(`typed_elicit._validate`), and the client half builds its forms with the same
ones (`typed_elicit._client`), so a value one end accepts the other end accepts too:

- numbers: `wire_number` (finite JSON numbers a 64-bit float can hold, or a string
  holding exactly one);
- text: `check_text` (valid Unicode: no lone surrogates);
- formats: `check_date` and `check_datetime` (RFC 3339 `full-date` and `date-time`,
  nothing looser: no Unix timestamps, no date where a date-time is asked, no
  date-time where a date is asked), `check_email` and `check_uri`.

Every check raises only `ValueError`, and its message never repeats the value
(it names the value's kind instead: "got a string"), so it is safe to log and to
show to the model.
"""

from __future__ import annotations

import math
import re
from datetime import date, datetime
from typing import Final

from pydantic import ValidationError
from pydantic.networks import validate_email
from pydantic_core import PydanticCustomError

_JSON_NUMBER: Final = re.compile(r"(-?)(0|[1-9][0-9]*)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?", re.ASCII)
"""The JSON number grammar (RFC 8259), ASCII digits only."""

TOO_LARGE: Final = "expected a number a 64-bit float can hold (magnitude below 1.8e308), got a larger one"
"""The problem with a number whose magnitude overflows a float (e.g. `1e400`, or an integer of 310 digits)."""


def kind_of(value: object) -> str:
    """What a value is, in JSON terms, for a message that must not repeat the value itself."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list | tuple):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return f"a {type(value).__name__}"


def wire_number(value: object, *, integer: bool = False) -> int | float:
    """The number a wire value stands for in a `number` (or `integer`) field.

    The one check both ends use: a finite JSON number, or a string holding exactly
    one JSON number; never a boolean; its magnitude must fit a 64-bit float (below
    about 1.8e308), so it survives `repr`, JSON encoding and float conversion; for
    an `integer` field, an integral value. A string is read as a JSON parser reads
    it: a nonzero value too small for a float becomes 0.0 (or -0.0), as `1e-400`
    does in any JSON document.

    Args:
        value: The value as it arrived (or as a client is about to send it).
        integer: Whether the field is an `integer` field.

    Returns:
        The number: an `int` for an integral string without fraction or exponent
        and for every `integer` field, else the value (a float for other strings).

    Raises:
        ValueError: Saying what was expected and what kind of value came instead;
            never anything else, and never repeating the value.
    """
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ValueError(f"expected a number, got {kind_of(value)}")
    if isinstance(value, str):
        return _number_text(value, integer=integer)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError("expected a finite number, got NaN or an infinity")
        if integer:
            if not value.is_integer():
                raise ValueError("expected a whole number, got a fraction")
            return int(value)
        return value
    try:
        float(value)
    except OverflowError:
        raise ValueError(TOO_LARGE) from None
    return value


def _number_text(text: str, *, integer: bool) -> int | float:
    """`wire_number` for a string: exactly one JSON number, read without `Decimal`."""
    match = _JSON_NUMBER.fullmatch(text)
    if match is None:
        raise ValueError("expected a number, got a string that is not a JSON number")
    approx = float(text)  # a correctly rounded float of any grammar-valid text, never an error
    if math.isinf(approx):
        raise ValueError(TOO_LARGE)
    sign, whole, fraction, exponent = match.groups()
    if fraction is None and exponent is None:
        return int(text)  # a finite float has at most 309 integral digits: int() takes them
    if not integer:
        return approx
    digits = (whole + (fraction or "")).lstrip("0")
    if not digits:
        return 0  # zero, whatever the exponent ("0e99999999999999999999")
    if approx == 0.0:
        raise ValueError("expected a whole number, got a fraction")  # nonzero, below any float
    # Nonzero and finite, so the exponent is within a few hundred of the digit count: small.
    significant = digits.rstrip("0")
    shift = int(exponent.lstrip("+-").lstrip("0") or "0") if exponent else 0
    shift = -shift if exponent and exponent[0] == "-" else shift
    scale = shift - len(fraction or "") + len(digits) - len(significant)
    if scale < 0:
        raise ValueError("expected a whole number, got a fraction")
    magnitude = int(significant + "0" * scale)  # below 1.8e308: at most 309 digits
    return -magnitude if sign else magnitude


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


def check_email(value: str) -> str:
    """`value` if it is an email address, as pydantic's `EmailStr` judges one.

    Raises:
        ValueError: Saying what was expected (not why: the reason can quote the address).
    """
    try:
        validate_email(value)
    except (PydanticCustomError, ValidationError):
        raise ValueError("value is not a valid email address (expected the form name@example.com)") from None
    return value


_SCHEME: Final = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*", re.ASCII)
_SPACE: Final = re.compile(r"\s")


def check_uri(value: str) -> str:
    """`value` if it is an absolute URI: a scheme, `:`, something after it, no whitespace.

    Raises:
        ValueError: Saying what was expected.
    """
    scheme, sep, rest = value.partition(":")
    if not sep or not rest or _SCHEME.fullmatch(scheme) is None or _SPACE.search(value):
        raise ValueError("expected an absolute URI such as https://example.com")
    return value
