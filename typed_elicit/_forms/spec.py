"""The form model both ends share: a requested schema, checked, as `FormSpec`.

The client half parses every request's `requestedSchema` with `parse_requested_schema`
and validates its user's answer with the model built from it; the server parses the
schemas the reducer produces into the same `FormSpec` and checks every answer against
it (`check_content`) before the user's own model sees it. One parser, one set of wire
rules (`typed_elicit._forms.wire`), one `describe` for every place that shows a field to a
person. This module imports nothing from `mcp.client`, so a server never loads the
client stack.

The parser collects problems, each as `path: what is wrong`, with paths written as
`properties.name.enum[0]` (`field_path`). Which problems are fatal: every problem is;
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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache
from typing import Annotated, Any, Final, Literal, TypeAlias, cast

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    create_model,
)

from typed_elicit._core.text import has_control, quoted
from typed_elicit._forms.wire import (
    check_date,
    check_datetime,
    check_email,
    check_text,
    check_uri,
    json_floor,
    kind_of,
    wire_number,
)
from typed_elicit.errors import InvalidResponse, RequestedSchemaError

logger = logging.getLogger("typed_elicit.client")

MAX_FIELDS: Final = 200
"""The most properties one form has: the server sends no more, the client refuses more."""
MAX_OPTIONS: Final = 1000
"""The most options one field offers: the server sends no more, the client refuses more."""
MAX_OPTION_LENGTH: Final = 1000
"""The longest option value or option title the server sends, in characters."""
MAX_QUESTION_SCHEMA_LENGTH: Final = 65_536
"""The longest requested schema the server sends, in characters (bytes) of its compact ASCII JSON."""
MAX_NAME_LENGTH: Final = 200
"""Longest accepted property name."""
MAX_TEXT_LENGTH: Final = 10_000
"""Longest accepted title, description, option value or option title, in characters."""
MAX_MESSAGE_LENGTH: Final = 65_536
"""Longest accepted request message (and URL-mode URL), in characters."""
MAX_SCHEMA_LENGTH: Final = 1_048_576
"""Longest accepted requested schema, in characters of its compact ASCII JSON."""
MAX_COUNT: Final = 2**31 - 1
"""Largest accepted `minLength`, `maxLength`, `minItems` or `maxItems`."""
CACHED_SCHEMA_LENGTH: Final = 8_192
"""Only schemas at most this long (as JSON) are kept in the parse cache."""
CACHED_FIELDS: Final = 16
"""Only schemas with at most this many properties are kept in the parse cache."""
CACHE_ENTRIES: Final = 64
"""How many parsed schemas the cache keeps (least recently used first out)."""

ContentValue: TypeAlias = str | int | float | bool | list[str]
"""One value of an accepted answer's `content`, as it travels on the wire."""

FieldKind: TypeAlias = Literal["string", "integer", "number", "boolean", "choice", "multi_choice"]
"""What a field asks for: free text, a number, a yes/no, one option, or several options."""

Format: TypeAlias = Literal["email", "uri", "date", "date-time"]
_FORMATS: Final[tuple[Format, ...]] = ("email", "uri", "date", "date-time")
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


@dataclass(frozen=True)
class Option:
    """One choice of a single- or multi-select field."""

    value: str
    """What goes on the wire."""
    title: str
    """What the user sees; equals `value` for untitled enums."""


@dataclass(frozen=True)
class FieldSpec:
    """One property of a requested schema, checked and normalised."""

    name: str
    """The property name on the wire."""
    attr: str
    """The attribute name on the built model (differs from `name` when that is no identifier)."""
    kind: FieldKind
    required: bool
    title: str | None = None
    description: str | None = None
    has_default: bool = False
    default: ContentValue | None = None
    options: tuple[Option, ...] = ()
    min_length: int | None = None
    max_length: int | None = None
    format: Format | None = None
    minimum: float | None = None
    maximum: float | None = None
    exclusive_minimum: float | None = None
    """Values must be greater than this (`exclusiveMinimum`)."""
    exclusive_maximum: float | None = None
    """Values must be less than this (`exclusiveMaximum`)."""
    min_items: int | None = None
    max_items: int | None = None

    @property
    def label(self) -> str:
        """The title if the server gave one, otherwise the property name."""
        return self.title or self.name


@dataclass(frozen=True)
class FormSpec:
    """A requested schema, checked, with the pydantic model built from it."""

    fields: tuple[FieldSpec, ...]
    model: type[BaseModel]
    title: str | None = None
    description: str | None = None

    @cached_property
    def by_name(self) -> Mapping[str, FieldSpec]:
        """The fields by wire name."""
        return {spec.name: spec for spec in self.fields}

    def instance(self, answer: Mapping[str, Any] | BaseModel) -> BaseModel:
        """Validate an answer and fill in the schema's defaults for omitted (or null) fields.

        Args:
            answer: Values keyed by wire name, or a model whose dump (by alias) gives them.

        Returns:
            An instance of `model`.

        Raises:
            InvalidResponse: The answer does not satisfy the schema.
        """
        if isinstance(answer, BaseModel):
            # warnings=False: pydantic's serializer warnings quote the offending value.
            values: Mapping[str, Any] = answer.model_dump(
                mode="json", by_alias=True, exclude_none=True, warnings=False
            )
        else:
            values = answer
        try:  # null counts as left out, as on the server (the wire schema has no null)
            return self.model.model_validate({k: v for k, v in values.items() if v is not None})
        except ValidationError as exc:
            errors = [(str(err["loc"][0]) if err["loc"] else "", err["msg"]) for err in exc.errors()]
            raise InvalidResponse.not_the_form(errors, values) from None

    def content(self, answer: Mapping[str, Any] | BaseModel) -> dict[str, ContentValue]:
        """Validate an answer and return the `content` to send, defaults included.

        Args:
            answer: Values keyed by wire name, or a model instance.

        Returns:
            The wire content: every answered or defaulted field, by wire name.

        Raises:
            InvalidResponse: The answer does not satisfy the schema.
        """
        return cast("dict[str, ContentValue]", to_wire(self.instance(answer)))


def check_value(spec: FieldSpec, value: object) -> ContentValue:
    """Validate one field's value on its own, as a form renderer does before moving on.

    Args:
        spec: The field.
        value: The value typed or chosen by the user.

    Returns:
        The value as it will travel on the wire.

    Raises:
        InvalidResponse: The value does not fit the field.
    """
    adapter = _adapter(spec)
    try:
        return cast("ContentValue", adapter.dump_python(adapter.validate_python(value), mode="json"))
    except ValidationError as exc:
        errors = [(spec.name, err["msg"]) for err in exc.errors()]
        raise InvalidResponse.not_the_form(errors, {spec.name: value}) from None


def _adapter(spec: FieldSpec) -> TypeAdapter[Any]:
    return TypeAdapter(_field_type(spec, optional=False))


def to_wire(instance: BaseModel) -> dict[str, Any]:
    """Dump a model built by `parse_requested_schema` as wire content (by alias, no nulls)."""
    return instance.model_dump(mode="json", by_alias=True, exclude_none=True)


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
        return _parse_cached(key) if cached and _cacheable(schema, key) else _parse(key)
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


def _cacheable(schema: object, key: str) -> bool:
    """Whether a parsed schema may be kept: small as JSON and with few fields (models cost ~4 KiB a field)."""
    if len(key) > CACHED_SCHEMA_LENGTH or not isinstance(schema, dict):
        return False
    properties = cast("dict[str, object]", schema).get("properties")
    return not isinstance(properties, dict) or len(cast("dict[str, object]", properties)) <= CACHED_FIELDS


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
            raise RequestedSchemaError([f"schema: must be a JSON object, got {_kind(schema)}"])
        top = cast("dict[str, object]", schema)
        if top.get("type") != "object":
            self.fail("type", f"must be 'object', got {show_value(top.get('type'))}")
        props = top.get("properties", {})
        if not isinstance(props, dict):
            raise RequestedSchemaError([*self.problems, f"properties: must be an object, got {_kind(props)}"])
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
        return FormSpec(tuple(fields), _build_model(title, fields), title, description)

    def required(self, value: object, properties: Mapping[str, object]) -> set[str]:
        if not isinstance(value, list):
            self.fail("required", f"must be a list of property names, got {_kind(value)}")
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
        if value is None:
            return None
        if not isinstance(value, str):
            self.fail(f"{path}{key}", f"must be a string, got {_kind(value)}")
            return None
        return value if self.valid_text(value, f"{path}{key}") else None

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

    def count(self, obj: Mapping[str, object], key: str, path: str) -> int | None:
        value = obj.get(key)
        if value is None:
            return None
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= MAX_COUNT:
            self.fail(f"{path}.{key}", f"must be an integer from 0 to {MAX_COUNT}, got {show_value(value)}")
            return None
        return value

    def number(self, obj: Mapping[str, object], key: str, path: str) -> float | None:
        value = obj.get(key)
        if value is None:
            return None
        if not _is_number(value):
            self.fail(f"{path}.{key}", f"must be a finite number within ±1.8e308, got {show_value(value)}")
            return None
        return cast("float", value)

    def field(self, name: str, prop: object, required: bool, taken: set[str]) -> FieldSpec | None:
        path = f"properties.{_show_name(name)}"
        if not name or len(name) > MAX_NAME_LENGTH or has_control(name):
            self.fail(path, f"a property name must be 1-{MAX_NAME_LENGTH} printable characters")
            return None
        if not self.valid_text(name, path):
            return None
        if not isinstance(prop, dict):
            self.fail(path, f"must be a JSON object, got {_kind(prop)}")
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
        if spec is not None and "default" in p:
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
                self.fail(f"{path}.const", f"must be a string, got {_kind(const)}")
                return None
            if not self.valid_text(const, f"{path}.const"):
                return None
            return replace(base, kind="choice", options=(Option(const, base.title or const),))
        if "enum" in p:
            values = self.values(p["enum"], f"{path}.enum")
            names = p.get("enumNames")
            titles: list[str] = list(values)
            if names is not None:
                if (
                    not isinstance(names, list)
                    or len(cast("list[object]", names)) != len(values)
                    or not all(isinstance(n, str) for n in cast("list[object]", names))
                ):
                    self.fail(f"{path}.enumNames", "must be a list of strings, one per enum value")
                elif all(
                    self.valid_text(n, f"{path}.enumNames[{i}]")
                    for i, n in enumerate(cast("list[str]", names))
                ):
                    titles = cast("list[str]", names)
            return replace(base, kind="choice", options=tuple(map(Option, values, titles)))
        if "oneOf" in p:
            return replace(base, kind="choice", options=self.titled(p["oneOf"], f"{path}.oneOf"))
        fmt = p.get("format")
        if fmt is not None and fmt not in _FORMATS:
            self.fail(f"{path}.format", f"must be one of {', '.join(_FORMATS)}, got {show_value(fmt)}")
            fmt = None
        lo, hi = self.count(p, "minLength", path), self.count(p, "maxLength", path)
        if lo is not None and hi is not None and lo > hi:
            self.fail(path, f"minLength {lo} is greater than maxLength {hi}")
        return replace(base, min_length=lo, max_length=hi, format=fmt)

    def numeric(
        self, base: FieldSpec, p: Mapping[str, object], path: str, kind: Literal["integer", "number"]
    ) -> FieldSpec:
        if "enum" in p:
            self.fail(f"{path}.enum", "enums must be strings; numeric enums are not in the spec")
        lo, hi = self.number(p, "minimum", path), self.number(p, "maximum", path)
        xlo, xhi = (
            self.exclusive(p, "exclusiveMinimum", path, lo),
            self.exclusive(p, "exclusiveMaximum", path, hi),
        )
        if xlo is not None and lo is not None and p.get("exclusiveMinimum") is True:
            lo = None  # draft-4 style: `minimum` itself is the exclusive bound
        if xhi is not None and hi is not None and p.get("exclusiveMaximum") is True:
            hi = None
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

    def exclusive(
        self, p: Mapping[str, object], key: str, path: str, inclusive: float | None
    ) -> float | None:
        value = p.get(key)
        if value is True:  # draft 4: a flag that makes `minimum`/`maximum` exclusive
            return inclusive
        if value is False:
            return None
        return self.number(p, key, path)

    def multi(self, base: FieldSpec, p: Mapping[str, object], path: str) -> FieldSpec | None:
        items = p.get("items")
        if not isinstance(items, dict):
            self.fail(f"{path}.items", "an array must have items with enum or anyOf options")
            return None
        it = cast("dict[str, object]", items)
        if "enum" in it and it.get("type", "string") == "string" and "anyOf" not in it:
            options = tuple(Option(v, v) for v in self.values(it["enum"], f"{path}.items.enum"))
        elif "anyOf" in it and "enum" not in it and it.get("type", "string") == "string":
            options = self.titled(it["anyOf"], f"{path}.items.anyOf")
        else:
            self.fail(
                f"{path}.items", "must be {type: string, enum: [...]} or {anyOf: [{const, title}, ...]}"
            )
            return None
        lo, hi = self.count(p, "minItems", path), self.count(p, "maxItems", path)
        if lo is not None and hi is not None and lo > hi:
            self.fail(path, f"minItems {lo} is greater than maxItems {hi}")
        if lo is not None and lo > len(options):
            self.fail(path, f"minItems {lo} is more than the {len(options)} options")
        return replace(base, kind="multi_choice", options=options, min_items=lo, max_items=hi)

    def values(self, raw: object, path: str) -> list[str]:
        if not isinstance(raw, list) or not raw:
            self.fail(path, "must be a non-empty list of strings")
            return []
        items = cast("list[object]", raw)
        if len(items) > MAX_OPTIONS:
            self.fail(path, f"{len(items)} options, more than the {MAX_OPTIONS} allowed")
            return []
        if not all(isinstance(v, str) for v in items):
            self.fail(path, "enum values must be strings")
            return []
        values = cast("list[str]", items)
        if not all(self.valid_text(v, f"{path}[{i}]") for i, v in enumerate(values)):
            return []
        if len(set(values)) != len(values):
            self.fail(path, "enum values must be unique")
        return values

    def titled(self, raw: object, path: str) -> tuple[Option, ...]:
        if not isinstance(raw, list) or not raw:
            self.fail(path, "must be a non-empty list of {const, title} objects")
            return ()
        items = cast("list[object]", raw)
        if len(items) > MAX_OPTIONS:
            self.fail(path, f"{len(items)} options, more than the {MAX_OPTIONS} allowed")
            return ()
        options: list[Option] = []
        for index, item in enumerate(items):
            entry = cast("dict[str, object]", item) if isinstance(item, dict) else {}
            const, title = entry.get("const"), entry.get("title")
            if not isinstance(const, str) or not isinstance(title, str):
                self.fail(f"{path}[{index}]", "must be {const: string, title: string}")
                return ()
            if not (
                self.valid_text(const, f"{path}[{index}].const")
                and self.valid_text(title, f"{path}[{index}].title")
            ):
                return ()
            options.append(Option(const, title))
        if len({o.value for o in options}) != len(options):
            self.fail(path, "const values must be unique")
        return tuple(options)

    def default(self, spec: FieldSpec, value: object, path: str) -> FieldSpec:
        adapter = _adapter(spec)
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


def _kind(value: object) -> str:
    return "null" if value is None else type(value).__name__


def show_value(value: object) -> str:
    """A short, ASCII-only picture of a value from the wire, safe in any error message."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 10**_SHOWN:
        return f"an integer of about {int(value.bit_length() * math.log10(2)) + 1} digits"
    if isinstance(value, str):
        return quoted(value, _SHOWN)
    if value is None or isinstance(value, (bool, int, float)):
        return json.dumps(value)
    return f"a {_kind(value)}"


def _show_name(name: str) -> str:
    """A property name as it appears in a problem's path: plain if printable ASCII, else escaped."""
    if len(name) <= _SHOWN and name.isascii() and name.isprintable() and name:
        return name
    return show_value(name)


def _is_number(value: object) -> bool:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return abs(value) <= _FLOAT_MAX if isinstance(value, int) else math.isfinite(value)


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


# --- value checks used by the built models -------------------------------------------------


def _number(value: object) -> int | float:
    """A `number` field's value, by the rule the server re-validates with (`wire_number`)."""
    return wire_number(value)


def _integer(value: object) -> int | float:
    """An `integer` field's value, by the rule the server re-validates with (`wire_number`)."""
    return wire_number(value, integer=True)


_FORMAT_CHECKS: Final[dict[Format, Callable[[str], str]]] = {
    "email": check_email,
    "uri": check_uri,
    "date": check_date,
    "date-time": check_datetime,
}


def _field_type(spec: FieldSpec, *, optional: bool) -> Any:
    """The annotation that validates one field's value."""
    t: Any
    if spec.kind == "string":
        t = Annotated[
            str,
            Field(strict=True, min_length=spec.min_length, max_length=spec.max_length),
            AfterValidator(check_text),
        ]
        if spec.format is not None:
            t = Annotated[t, AfterValidator(_FORMAT_CHECKS[spec.format])]
    elif spec.kind in ("integer", "number"):
        base: Any = int if spec.kind == "integer" else int | float
        check = _integer if spec.kind == "integer" else _number
        bounds = Field(
            ge=spec.minimum,
            le=spec.maximum,
            gt=spec.exclusive_minimum,
            lt=spec.exclusive_maximum,
            allow_inf_nan=False,
        )
        t = Annotated[base, BeforeValidator(check), bounds]
    elif spec.kind == "boolean":
        t = Annotated[bool, Field(strict=True)]
    else:
        values = tuple(o.value for o in spec.options)
        if sum(map(len, values)) > LITERAL_TEXT_LENGTH:
            return _long_choice_type(spec, values, optional=optional)
        choice: Any = Literal[values]
        if spec.kind == "choice":
            t = choice
        else:
            t = Annotated[list[choice], Field(min_length=spec.min_items, max_length=spec.max_items)]
    return t | None if optional else t


LITERAL_TEXT_LENGTH: Final = 2_048
"""Option lists up to this many characters in all become a `Literal`; longer ones a checked `str`.

`typing` caches every `Literal[...]` (its last 128), so long option lists a server sent
would stay in memory; they are checked by membership instead, outside every cache.
"""


class _Uncached:
    """`Annotated` metadata that `typing` cannot hash, so it never caches the type; pydantic ignores it."""

    __hash__ = None  # type: ignore[assignment]  # pyright: ignore[reportAssignmentType]


def _long_choice_type(spec: FieldSpec, values: tuple[str, ...], *, optional: bool) -> Any:
    """A long option list's type: a `str` checked by membership, built outside typing's caches."""
    allowed = frozenset(values)

    def one_of(value: str | None) -> str | None:
        if value is not None and value not in allowed:
            raise ValueError(f"expected one of the {len(allowed)} options")
        return value

    item: Any = Annotated[str, Field(strict=True), AfterValidator(one_of), _Uncached()]
    if spec.kind == "choice":
        if optional:
            return Annotated[str | None, Field(strict=True), AfterValidator(one_of), _Uncached()]
        return item
    many: Any = list[item] | None if optional else list[item]
    return Annotated[many, Field(min_length=spec.min_items, max_length=spec.max_items), _Uncached()]


def _build_model(title: str | None, fields: Sequence[FieldSpec]) -> type[BaseModel]:
    definitions: dict[str, Any] = {}
    for spec in fields:
        info: dict[str, Any] = {"alias": spec.name, "title": spec.title, "description": spec.description}
        if spec.has_default:
            definitions[spec.attr] = (_field_type(spec, optional=False), Field(spec.default, **info))
        elif spec.required:
            definitions[spec.attr] = (_field_type(spec, optional=False), Field(..., **info))
        else:
            definitions[spec.attr] = (_field_type(spec, optional=True), Field(None, **info))
    name = re.sub(r"\W", "", (title or "").title()) or "RequestedForm"
    if not name.isidentifier():
        name = f"Form{name}"
    config = ConfigDict(extra="forbid", validate_by_name=False, validate_by_alias=True, title=title)
    return create_model(name, __config__=config, **definitions)


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


# --- the server's check: an answer against the form ---------------------------------------------


def check_content(
    form: FormSpec, content: Mapping[str, Any] | None, offered: Mapping[str, frozenset[str]] | None = None
) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """Check an answer's `content` against the wire rules of each field's kind.

    The server's first check (`typed_elicit._forms.validate`), before the user's model sees the
    answer: a key the form does not have is a problem, a `null` counts as left out, and each
    value must have its field kind's wire type (`check_wire_value`). Constraints (lengths,
    bounds, options) are left to the model the schema was reduced from, which carries them all.
    Counts come first, so the work is bounded by the form, not by the answer: an answer with
    more keys than the form has fields is one problem, none of its keys read.

    Args:
        form: The form the client was shown.
        content: The answer's content, possibly None (counts as `{}`).
        offered: Per `Choices()` field, the options the question offered (what bounds a
            multi-select's length when `form` holds placeholder options).

    Returns:
        The values to validate (numbers parsed, nulls dropped) and one `(path, problem)`
        pair per problem; problems name the field and the kind of value, never the value.
    """
    fields = form.by_name
    cleaned: dict[str, Any] = {}
    problems: list[tuple[str, str]] = []
    if content is None:
        return cleaned, problems
    if len(content) > len(fields):
        problems.append(("(answer)", too_many_keys(len(content), len(fields))))
        return cleaned, problems
    for key, value in content.items():
        spec = fields.get(key)
        if spec is None:
            problems.append((str(key), "was not asked for (the form has no such field)"))
        elif value is not None:
            try:
                cleaned[key] = check_wire_value(spec, value, offered)
            except ValueError as problem:
                problems.append((key, str(problem)))
    return cleaned, problems


def too_many_keys(keys: int, fields: int) -> str:
    """The problem with an answer holding more keys than its form has fields (it names no key)."""
    return f"holds {keys} keys, more than the {fields} fields of the form"


def check_wire_value(
    spec: FieldSpec, value: object, offered: Mapping[str, frozenset[str]] | None = None
) -> ContentValue:
    """`value` if it has the wire type of `spec`'s kind (a number field's number parsed).

    The rules (`typed_elicit._forms.wire`): a boolean field takes only `true`/`false`; a number
    field what `wire_number` takes; a text or choice field only valid Unicode text, in the
    field's format when it has one; a multi-select only a list of such texts, with no more
    items than the field has options (the count `offered` gives for a `Choices()` field),
    checked before any item is read.

    One exception, for speed: an `email` field is left to the model. The reducer emits
    `format: email` only for `EmailStr` fields, whose validation calls the very function
    `check_email` calls (pydantic's `validate_email`), so checking here would run the
    costliest check twice for the same verdict.

    Raises:
        ValueError: Naming the problem and the kind of value, never the value.
    """
    kind = spec.kind  # the commonest kinds first: this runs for every field of every answer
    if kind == "string" or kind == "choice":
        if not isinstance(value, str):
            raise ValueError(f"expected a string, got {kind_of(value)}")
        check_text(value)
        if spec.format is not None and spec.format != "email":
            _FORMAT_CHECKS[spec.format](value)
        return value
    if kind == "integer" or kind == "number":
        return wire_number(value, integer=kind == "integer")
    if kind == "boolean":
        if not isinstance(value, bool):
            raise ValueError(f"expected true or false, got {kind_of(value)}")
        return value
    if not isinstance(value, list):
        raise ValueError(f"expected a list of options, got {kind_of(value)}")
    items = cast("list[object]", value)
    allowed = offered.get(spec.name) if offered else None
    count = len(spec.options) if allowed is None else len(allowed)
    if len(items) > count:  # `maxItems` is the model's to judge (its words); this bounds the work
        raise ValueError(f"holds {len(items)} items, more than the {count} options offered")
    for item in items:
        if not isinstance(item, str):
            raise ValueError(f"expected a list of options, got a list holding {kind_of(item)}")
        check_text(item)
    return cast("list[str]", items)


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

    def brief(self) -> str:
        """The short form for a transcript: `name: Title (kind: options, default <JSON>, required)`."""
        options = f": {', '.join(o.value for o in self.options)}" if self.options else ""
        default = f", default {json.dumps(self.default)}" if self.has_default else ""
        kind = self.kind.split(" ", 1)[0]
        head = f"{self.name}: {self.title}" if self.title else self.name
        return f"{head} ({kind}{options}{default}, {'required' if self.required else 'optional'})"


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


def field_path(parts: Sequence[int | str]) -> str:
    """The one way a problem's place is written, on both ends: `properties.x.enum[0]`, `picks[1]`.

    Names are joined with `.`, list positions written `[i]`; the whole form is `(form)`.
    """
    path = ""
    for part in parts:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path or "(form)"
