"""The wire rules both ends share: what a value in an elicitation answer may be.

The server re-validates every accepted answer with these functions
(`typed_elicit._forms.validate`), and the client half builds its forms with the same
ones (`typed_elicit.client._handler`), so a value one end accepts the other end accepts too:

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
from collections.abc import Iterable, Sized
from datetime import date, datetime
from json.encoder import encode_basestring_ascii
from typing import Final, cast

from pydantic import ValidationError
from pydantic.networks import validate_email
from pydantic_core import PydanticCustomError

_JSON_NUMBER: Final = re.compile(r"(-?)(0|[1-9][0-9]*)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?", re.ASCII)
"""The JSON number grammar (RFC 8259), ASCII digits only."""

TOO_LARGE: Final = "expected a number a 64-bit float can hold (magnitude below 1.8e308), got a larger one"
"""The problem with a number whose magnitude overflows a float (e.g. `1e400`, or an integer of 310 digits)."""


def kind_of(value: object) -> str:
    """What a value is, in JSON terms, for a message that must not repeat the value itself."""
    return next((kind for types, kind in _KINDS if isinstance(value, types)), f"a {type(value).__name__}")


_KINDS: Final[tuple[tuple[type | tuple[type, ...], str], ...]] = (
    (type(None), "null"),
    (bool, "a boolean"),
    ((int, float), "a number"),
    (str, "a string"),
    ((list, tuple), "a list"),
    (dict, "an object"),
)


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
        if offset not in ("Z", "z") and (int(offset[1:3]) > 23 or int(offset[4:6]) > 59):
            raise ValueError
        datetime.fromisoformat(f"{day}T{hour}:{minute}:{second}")  # a real day, hour, minute and second
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


# --- sizes: how long a value is as JSON, counted with work bounded by the limit -----------------


def json_size(value: object, limit: int) -> int:
    """Bytes of `value` as compact ASCII JSON (as a request state carries it), counted up to `limit`.

    Past `limit` it returns any number above `limit`. The work is bounded by `limit`, not
    by `value`: an object or list whose entry count alone puts it past the limit (an
    entry takes at least 5 bytes in an object, `"":0,`, and 2 in a list) is not read,
    and any other is read only until the count passes the limit. A string longer than
    the limit and an integer are sized without being serialised.

    Args:
        value: A JSON value (str, int, float, bool, None, and lists and dicts of them).
        limit: The most bytes worth counting exactly.

    Returns:
        The exact size when it is at most `limit`, else a number above `limit`.
    """
    if isinstance(value, str):  # `json.dumps(value)`'s own encoder, called directly: the same text
        return len(value) + 2 if len(value) > limit else len(encode_basestring_ascii(value))
    if value is None or value is True:
        return 4
    if value is False:
        return 5
    if isinstance(value, int):
        return value.bit_length() * 30103 // 100000 + 2  # at least its digits and sign
    if isinstance(value, float):
        return len(repr(value))
    count = len(cast("Sized", value))
    if not count:
        return 2
    if isinstance(value, dict):
        least = 1 + 5 * count
        parts: Iterable[object] = (
            part for pair in cast("dict[object, object]", value).items() for part in pair
        )
        total = 1 + 2 * count  # braces, colons, commas
    else:
        assert isinstance(value, list), "an elicitation result's content holds JSON values only"
        least = 1 + 2 * count
        parts = cast("list[object]", value)
        total = count + 1  # brackets, commas
    if least > limit:
        return least
    for part in parts:
        if isinstance(part, str):  # the commonest part, sized here as `json_size(part, ...)` would
            total += len(part) + 2 if len(part) > limit - total else len(encode_basestring_ascii(part))
        else:
            total += json_size(part, limit - total)
        if total > limit:
            break
    return total


def json_floor(value: object, limit: int) -> int:
    """At most the length of `value` as compact JSON, counted until it passes `limit`.

    A cheap lower bound for refusing what a hostile peer sends before serialising any of
    it. Reads at most about `limit` entries whatever `value` holds: a container's entries
    are counted by its length first (an entry takes at least 5 characters in an object
    and 2 in a list), so one whose length alone passes the limit is not read. A text
    counts its length and quotes, any other value 1. Iterative: any nesting depth.

    Args:
        value: Decoded JSON (anything else counts 1 character per value).
        limit: Where counting stops.

    Returns:
        A number at most the length of `value` as JSON; above `limit` once that is.
    """
    total = 0
    pending: list[object] = [value]
    children: Iterable[object]
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            entries = cast("dict[str, object]", item)  # casts per container, none per value
            count = len(entries)
            if total + 1 + 5 * count > limit:  # with the least each value takes
                return total + 1 + 5 * count
            try:  # braces, colons, commas, and each key with its quotes
                total += 1 + 4 * count + sum(map(len, entries))
            except TypeError:  # a key that is no text: not JSON, which the serialiser will say
                total += 1 + 4 * count
            children = entries.values()
        elif isinstance(item, list):
            elements = cast("list[object]", item)
            count = len(elements)
            if total + 1 + 2 * count > limit:
                return total + 1 + 2 * count
            total += 1 + count  # brackets, commas
            children = elements
        else:  # a value on its own, not in a container
            total += len(item) + 2 if isinstance(item, str) else 1
            continue
        for child in children:  # texts and other values now, containers in their turn
            if isinstance(child, str):
                total += len(child) + 2
            elif issubclass(type(child), _CONTAINERS):
                pending.append(child)
            else:
                total += 1
        if total > limit:
            return total
    return total


_CONTAINERS: Final = (dict, list)
