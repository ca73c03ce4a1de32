"""The parser: a `requestedSchema` from the wire, checked, into a `FormSpec`.

`parse_requested_schema` is the one way a schema becomes a form, on both ends: the client
half parses every request with it, the server the schemas the reducer produced.

The parser collects problems, each as `path: what is wrong`, with paths written as
`properties.name.enum[0]`. Which problems are fatal: every problem is;
a schema with any problem is refused as a whole (`RequestedSchemaError` lists them
all), because a form shown with one field dropped or loosened would collect an answer
the server did not ask for. A problem that makes the rest unreadable (the schema is no
object, `properties` is no object, too many fields, too long as JSON) stops the parse at
once; every other problem is collected and the parse goes on, so one refusal names
them all.
"""

from __future__ import annotations

import json
import keyword
import logging
import math
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import replace
from functools import lru_cache
from typing import Any, Final, Literal, cast

from pydantic import (
    BaseModel,
    ValidationError,
)

from typed_elicit._core.text import has_control, quoted
from typed_elicit._wire.rules import check_text, json_floor, kind_of
from typed_elicit._wire.spec import (
    CACHE_ENTRIES,
    CACHED_FIELDS,
    CACHED_SCHEMA_LENGTH,
    FORMAT_CHECKS,
    MAX_COUNT,
    MAX_FIELDS,
    MAX_MESSAGE_LENGTH,
    MAX_NAME_LENGTH,
    MAX_OPTIONS,
    MAX_SCHEMA_LENGTH,
    MAX_TEXT_LENGTH,
    FieldSpec,
    Format,
    FormSpec,
    Option,
    build_model,
    field_adapter,
)
from typed_elicit.errors import RequestedSchemaError

logger = logging.getLogger("typed_elicit.client")

_FORMATS: Final[tuple[Format, ...]] = tuple(FORMAT_CHECKS)
_FORBIDDEN_KEYWORDS: Final = (
    "$ref",
    "$defs",
    "anyOf",
    "allOf",
    "oneOf",
    "not",
    "properties",
    "items",
    "const",
)
_FLOAT_MAX: Final = int(sys.float_info.max)
_SHOWN: Final = 40
_LONG_DIGITS: Final = re.compile(r"[0-9]{21,}")
_CHOICE_KEYS: Final = ("enum", "oneOf", "const")


def parse_requested_schema(schema: object, *, cached: bool = True) -> FormSpec:
    """Check a requested schema and build the pydantic model that validates answers to it.

    Keywords the spec defines must carry valid values; keywords it does not define are
    ignored, except structural ones (`$ref`, `anyOf`, nested `properties`, ...) which
    make the form impossible to render and are rejected. Liberal where the spec is: an
    `enum` or `oneOf` without `type` is a string choice, a `const` is a one-option
    choice, `exclusiveMinimum`/`exclusiveMaximum` are honoured. Sizes are bounded
    (`MAX_SCHEMA_LENGTH`, `MAX_TEXT_LENGTH`, `MAX_COUNT`, ...) and counts and lengths are
    checked first, so refusing a hostile schema costs work bounded by these limits,
    whatever its size; only small schemas (`CACHED_SCHEMA_LENGTH`, `CACHED_FIELDS`) are
    cached, `CACHE_ENTRIES` at most.

    Args:
        schema: The `requestedSchema` of an elicitation request, as decoded JSON.
        cached: Use the parse cache (for a caller that keeps the result itself: False).

    Returns:
        The checked form.

    Raises:
        RequestedSchemaError: The schema is malformed, outside the spec's subset, or hostile
            (too many fields or options); every problem is listed.
    """
    _check_size(schema)
    try:
        key = json.dumps(schema, allow_nan=False, separators=(",", ":"))
    except RecursionError:
        raise RequestedSchemaError(["schema: not JSON: nested too deeply"]) from None
    except ValueError:
        raise RequestedSchemaError(
            ["schema: not JSON: holds NaN, an infinity or an integer of more than 4300 digits"]
        ) from None
    except TypeError:
        raise RequestedSchemaError(
            ["schema: not JSON: holds a value that is not text, number or list"]
        ) from None
    if len(key) > MAX_SCHEMA_LENGTH:
        raise RequestedSchemaError(
            [f"schema: {len(key)} characters as JSON, more than the {MAX_SCHEMA_LENGTH} allowed"]
        )
    try:
        # Only small schemas are kept: models cost ~4 KiB a field.
        small = len(key) <= CACHED_SCHEMA_LENGTH and _property_count(schema) <= CACHED_FIELDS
        return _parse_cached(key) if cached and small else _parse(key)
    except RequestedSchemaError:
        raise
    except Exception as exc:  # a safety net: every known hostile input has its own check
        logger.debug("schema check failed with %s", type(exc).__name__)
        raise RequestedSchemaError([UNCHECKED_PROBLEM]) from None


def _check_size(schema: object) -> None:
    """Refuse a schema with too many fields, or too long as JSON, reading a bounded part of it.

    A hostile server can send any amount of JSON (the SDK has decoded it all): it is
    refused before it is serialised, with work bounded by the limits (`json_floor`).

    Raises:
        RequestedSchemaError: Naming the count or the length.
    """
    count = _property_count(schema)
    if count > MAX_FIELDS:
        raise RequestedSchemaError([f"properties: {count} fields, more than the {MAX_FIELDS} allowed"])
    least = json_floor(schema, MAX_SCHEMA_LENGTH)
    if least > MAX_SCHEMA_LENGTH:
        raise RequestedSchemaError(
            [f"schema: at least {least} characters as JSON, more than the {MAX_SCHEMA_LENGTH} allowed"]
        )


def _property_count(schema: object) -> int:
    """How many properties a schema declares (0 when it has no `properties` object)."""
    if not isinstance(schema, dict):
        return 0
    properties = cast("dict[str, object]", schema).get("properties")
    return len(cast("dict[str, object]", properties)) if isinstance(properties, dict) else 0


UNCHECKED_PROBLEM: Final = (
    "schema: no form can be built from it (a value is out of the range this client handles)"
)
"""The problem reported when building the form failed in a way no specific check caught."""


def model_from_schema(schema: object) -> type[BaseModel]:
    """Build a pydantic model from a requested schema: the reducer's inverse.

    Args:
        schema: The `requestedSchema` of an elicitation request.

    Returns:
        A model whose fields carry the schema's titles, descriptions, constraints and
        defaults; fields named on the wire by non-identifiers get an alias.

    Raises:
        RequestedSchemaError: The schema is not a valid elicitation schema.
    """
    return parse_requested_schema(schema).model


def _parse(key: str) -> FormSpec:
    return _Parser().parse(json.loads(key))


_parse_cached = lru_cache(maxsize=CACHE_ENTRIES)(_parse)


class _Parser:
    def __init__(self) -> None:
        self.problems: list[str] = []

    def fail(self, path: str, message: str) -> None:
        self.problems.append(f"{path}: {message}")

    def parse(self, schema: object) -> FormSpec:
        if not isinstance(schema, dict):
            raise RequestedSchemaError([f"schema: must be a JSON object, got {kind_of(schema)}"])
        top = cast("dict[str, object]", schema)
        if top.get("type") != "object":
            self.fail("type", f"must be 'object', got {show_value(top.get('type'))}")
        props = top.get("properties", {})
        if not isinstance(props, dict):
            self.fail("properties", f"must be an object, got {kind_of(props)}")
            raise RequestedSchemaError(self.problems)
        properties = cast("dict[str, object]", props)  # at most MAX_FIELDS: `_check_size` counted them
        required = self.required(top.get("required", []), properties)
        title = self.text(top, "title", "")
        description = self.text(top, "description", "")
        fields: list[FieldSpec] = []
        taken = set(properties)
        for name, prop in properties.items():
            spec = self.field(name, prop, name in required, taken)
            if spec is not None:
                fields.append(spec)
        if self.problems:
            raise RequestedSchemaError(self.problems)
        return FormSpec(tuple(fields), build_model(title, fields), title, description)

    def required(self, value: object, properties: Mapping[str, object]) -> set[str]:
        if not isinstance(value, list):
            self.fail("required", f"must be a list of property names, got {kind_of(value)}")
            return set()
        count = len(cast("list[object]", value))
        if count > MAX_FIELDS:  # more names than any form has fields: not one is read
            self.fail("required", f"names {count} properties, more than the {MAX_FIELDS} a form may have")
            return set()
        names: set[str] = set()
        for item in cast("list[object]", value):
            if not isinstance(item, str) or item not in properties:
                self.fail("required", f"names {show_value(item)}, which is not a property")
            else:
                names.add(item)
        return names

    def text(self, obj: Mapping[str, object], key: str, path: str) -> str | None:
        value = obj.get(key)
        if value is not None and not isinstance(value, str):
            self.fail(f"{path}{key}", f"must be a string, got {kind_of(value)}")
            return None
        return value if value is None or self.valid_text(value, f"{path}{key}") else None

    def valid_text(self, value: str, path: str, limit: int = MAX_TEXT_LENGTH) -> bool:
        if len(value) > limit:
            self.fail(path, f"{len(value)} characters, more than the {limit} allowed")
            return False
        try:
            check_text(value)
        except ValueError:
            self.fail(path, f"{show_value(value)} is not valid Unicode text (it holds a lone surrogate)")
            return False
        return True

    def bound(self, obj: Mapping[str, object], key: str, path: str, *, count: bool) -> Any:
        """`obj[key]`: a count (a length, an item count) or a number; None if absent or wrong."""
        value = obj.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            fits = 0 <= value <= MAX_COUNT if count else abs(value) <= _FLOAT_MAX
        else:
            fits = value is None or (not count and isinstance(value, float) and math.isfinite(value))
        if fits:
            return value
        expected = f"an integer from 0 to {MAX_COUNT}" if count else "a finite number within ±1.8e308"
        self.fail(f"{path}.{key}", f"must be {expected}, got {show_value(value)}")
        return None

    def field(self, name: str, prop: object, required: bool, taken: set[str]) -> FieldSpec | None:
        # a property name as a problem's path shows it: plain if printable ASCII, else escaped
        plain = len(name) <= _SHOWN and name.isascii() and name.isprintable() and name
        path = f"properties.{name if plain else show_value(name)}"
        if not name or len(name) > MAX_NAME_LENGTH or has_control(name):
            self.fail(path, f"a property name must be 1-{MAX_NAME_LENGTH} printable characters")
            return None
        if not self.valid_text(name, path):
            return None
        if not isinstance(prop, dict):
            self.fail(path, f"must be a JSON object, got {kind_of(prop)}")
            return None
        p = cast("dict[str, object]", prop)
        kind = p.get("type")
        if kind is None and any(key in p for key in _CHOICE_KEYS):
            kind = "string"  # an untyped enum, oneOf or const: a string choice when its values are strings
        forbidden = [k for k in _FORBIDDEN_KEYWORDS if k in p and not _allowed_keyword(k, kind)]
        if forbidden:
            self.fail(
                path, f"{', '.join(forbidden)} not allowed in an elicitation schema (flat primitives only)"
            )
            return None
        told = len(self.problems)
        base = FieldSpec(
            name=name,
            attr=_attr_name(name, taken),
            kind="string",
            required=required,
            title=self.text(p, "title", f"{path}."),
            description=self.text(p, "description", f"{path}."),
        )
        if kind == "string":
            spec = self.string(base, p, path)
        elif kind in ("integer", "number"):
            spec = self.numeric(base, p, path, kind)
        elif kind == "boolean":
            spec = replace(base, kind="boolean")
        elif kind == "array":
            spec = self.multi(base, p, path)
        else:
            self.fail(
                f"{path}.type", f"must be string, integer, number, boolean or array, got {show_value(kind)}"
            )
            return None
        if spec is not None and "default" in p and len(self.problems) == told:
            # A default is checked against a field built without problems (no options, no bounds).
            spec = self.default(spec, p["default"], path)
        return spec

    def string(self, base: FieldSpec, p: Mapping[str, object], path: str) -> FieldSpec | None:
        given = [key for key in _CHOICE_KEYS if key in p]
        if len(given) > 1:
            self.fail(path, f"has {' and '.join(given)}; use one")
            return None
        if "const" in p:
            const = p["const"]
            if not isinstance(const, str):
                self.fail(f"{path}.const", f"must be a string, got {kind_of(const)}")
                return None
            if not self.valid_text(const, f"{path}.const"):
                return None
            return replace(base, kind="choice", options=(Option(const, base.title or const),))
        if "enum" in p:
            options = self.options(p["enum"], f"{path}.enum", titled=False)
            names = p.get("enumNames")
            if names is not None:
                titles = cast("list[str]", names)
                if (
                    not isinstance(names, list)
                    or len(titles) != len(options)
                    or not all(isinstance(n, str) for n in cast("list[object]", names))
                ):
                    self.fail(f"{path}.enumNames", "must be a list of strings, one per enum value")
                elif all(self.valid_text(n, f"{path}.enumNames[{i}]") for i, n in enumerate(titles)):
                    options = tuple(Option(o.value, n) for o, n in zip(options, titles, strict=True))
            return replace(base, kind="choice", options=options)
        if "oneOf" in p:
            return replace(
                base, kind="choice", options=self.options(p["oneOf"], f"{path}.oneOf", titled=True)
            )
        fmt = p.get("format")
        if fmt is not None and fmt not in _FORMATS:
            self.fail(f"{path}.format", f"must be one of {', '.join(_FORMATS)}, got {show_value(fmt)}")
            fmt = None
        lo, hi = self.bound(p, "minLength", path, count=True), self.bound(p, "maxLength", path, count=True)
        if lo is not None and hi is not None and lo > hi:
            self.fail(path, f"minLength {lo} is greater than maxLength {hi}")
        return replace(base, min_length=lo, max_length=hi, format=fmt)

    def numeric(
        self, base: FieldSpec, p: Mapping[str, object], path: str, kind: Literal["integer", "number"]
    ) -> FieldSpec:
        if "enum" in p:
            self.fail(f"{path}.enum", "enums must be strings; numeric enums are not in the spec")
        lo, xlo = self.bounds(p, "minimum", path)
        hi, xhi = self.bounds(p, "maximum", path)
        low, low_open = _tighter(lo, xlo, max)
        high, high_open = _tighter(hi, xhi, min)
        if low is not None and high is not None:
            if kind == "integer":
                first = math.floor(low) + 1 if low_open else math.ceil(low)
                last = math.ceil(high) - 1 if high_open else math.floor(high)
                empty = first > last
            else:
                empty = low > high or (low == high and (low_open or high_open))
            if empty:
                self.fail(
                    path, f"no {kind} fits between the lower bound {low:g} and the upper bound {high:g}"
                )
        return replace(base, kind=kind, minimum=lo, maximum=hi, exclusive_minimum=xlo, exclusive_maximum=xhi)

    def bounds(self, p: Mapping[str, object], key: str, path: str) -> tuple[Any, Any]:
        """The inclusive and the exclusive bound of `key` (`minimum` or `maximum`), None where absent."""
        value, flag = self.bound(p, key, path, count=False), p.get(f"exclusive{key.title()}")
        if flag is True:  # draft 4: a flag that makes `minimum`/`maximum` itself the exclusive bound
            return None, value
        return value, None if flag is False else self.bound(p, f"exclusive{key.title()}", path, count=False)

    def multi(self, base: FieldSpec, p: Mapping[str, object], path: str) -> FieldSpec | None:
        items = p.get("items")
        if not isinstance(items, dict):
            self.fail(f"{path}.items", "an array must have items with enum or anyOf options")
            return None
        it = cast("dict[str, object]", items)
        if it.get("type", "string") == "string" and ("enum" in it) != ("anyOf" in it):
            key = "anyOf" if "anyOf" in it else "enum"
            options = self.options(it[key], f"{path}.items.{key}", titled=key == "anyOf")
        else:
            self.fail(
                f"{path}.items", "must be {type: string, enum: [...]} or {anyOf: [{const, title}, ...]}"
            )
            return None
        lo, hi = self.bound(p, "minItems", path, count=True), self.bound(p, "maxItems", path, count=True)
        if lo is not None and hi is not None and lo > hi:
            self.fail(path, f"minItems {lo} is greater than maxItems {hi}")
        if lo is not None and lo > len(options):
            self.fail(path, f"minItems {lo} is more than the {len(options)} options")
        return replace(base, kind="multi_choice", options=options, min_items=lo, max_items=hi)

    def options(self, raw: object, path: str, *, titled: bool) -> tuple[Option, ...]:
        """The options of an `enum` (`titled`: of a `oneOf`/`anyOf` of `{const, title}`); () on a problem."""
        if not isinstance(raw, list) or not raw:
            self.fail(
                path, f"must be a non-empty list of {'{const, title} objects' if titled else 'strings'}"
            )
            return ()
        items = cast("list[object]", raw)
        if len(items) > MAX_OPTIONS:
            self.fail(path, f"{len(items)} options, more than the {MAX_OPTIONS} allowed")
            return ()
        options: list[Option] = []
        for index, item in enumerate(items):
            value = title = item
            if titled:
                entry = cast("dict[str, object]", item) if isinstance(item, dict) else {}
                value, title = entry.get("const"), entry.get("title")
            at = f"{path}[{index}]"
            if not isinstance(value, str) or not isinstance(title, str):
                if titled:
                    self.fail(at, "must be {const: string, title: string}")
                else:
                    self.fail(path, "enum values must be strings")
                return ()
            if not self.valid_text(value, f"{at}.const" if titled else at) or (
                titled and not self.valid_text(title, f"{at}.title")
            ):
                return ()
            options.append(Option(value, title))
        if len({o.value for o in options}) != len(options):
            self.fail(path, f"{'const' if titled else 'enum'} values must be unique")
        return tuple(options)

    def default(self, spec: FieldSpec, value: object, path: str) -> FieldSpec:
        adapter = field_adapter(spec)
        try:
            checked = adapter.validate_python(value)
        except ValidationError as exc:
            problem = _LONG_DIGITS.sub(lambda m: f"{m[0][:12]}...", exc.errors()[0]["msg"])[:120]
            self.fail(f"{path}.default", f"{show_value(value)} does not fit the field: {problem}")
            return spec
        return replace(spec, has_default=True, default=adapter.dump_python(checked, mode="json"))


def _tighter(
    inclusive: float | None, exclusive: float | None, pick: Callable[[float, float], float]
) -> tuple[float | None, bool]:
    """The tighter of an inclusive and an exclusive bound, and whether it is exclusive."""
    if exclusive is None:
        return inclusive, False
    if inclusive is None or pick(inclusive, exclusive) == exclusive:
        return exclusive, True
    return inclusive, False


def show_value(value: object) -> str:
    """A short, ASCII-only picture of a value from the wire, safe in any error message."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 10**_SHOWN:
        return f"an integer of about {int(value.bit_length() * math.log10(2)) + 1} digits"
    if isinstance(value, str):
        return quoted(value, _SHOWN)
    if value is None or isinstance(value, (bool, int, float)):
        return json.dumps(value)
    return kind_of(value)


def _allowed_keyword(key: str, kind: object) -> bool:
    return (key in ("oneOf", "const") and kind == "string") or (key == "items" and kind == "array")


_RESERVED: Final = frozenset(dir(BaseModel))


def _attr_name(name: str, taken: set[str]) -> str:
    if (
        name.isidentifier()
        and name.isascii()
        and not keyword.iskeyword(name)
        and not name.startswith(("_", "model_"))
        and name not in _RESERVED
    ):
        return name
    base = re.sub(r"\W", "_", name, flags=re.ASCII).strip("_") or "field"
    candidate = f"field_{base}"
    while candidate in taken or candidate in _RESERVED or keyword.iskeyword(candidate):
        candidate += "_"
    taken.add(candidate)
    return candidate


def check_request_text(message: str, url: str | None = None) -> None:
    """Check a request's message (and a URL-mode URL): valid Unicode, at most `MAX_MESSAGE_LENGTH` long.

    Raises:
        RequestedSchemaError: Naming `message` or `url` and the problem (never the text).
    """
    checker = _Parser()
    checker.valid_text(message, "message", MAX_MESSAGE_LENGTH)
    if url is not None:
        checker.valid_text(url, "url", MAX_MESSAGE_LENGTH)
    if checker.problems:
        raise RequestedSchemaError(checker.problems)
