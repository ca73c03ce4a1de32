"""Defaults, and the field's own validation: a default must satisfy its own field.

A default is sent to the client (every kind on 2025-11-25 and later, booleans on 2025-06-18),
pre-filled in the form, and comes back as an answer; when the user leaves the field out,
the tool gets it as is (pydantic does not validate defaults). So a default that breaks its
own field makes the client refuse the whole schema, or makes the user's "keep the default"
an invalid answer, or hands the tool an invalid value. A class default is refused when the
model is reduced, which happens once per model and not per revision: the check applies on
every revision, 2025-06-18 included, although that revision carries only boolean defaults.
A per-question default (`defaults=`) is checked the same way when the question is shaped
(`call_default`).

The field's own validation (`field_validator`: the validator pydantic compiled for one field,
run alone) judges defaults last, and tells a field no answer could ever satisfy
(`check_answerable`: `strict=True` on a type that arrives as text).
"""

from __future__ import annotations

import enum
import math
import operator
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence, Sized
from typing import Any, cast

import annotated_types as at
from pydantic import BaseModel
from pydantic_core import (
    CoreSchema,
    ErrorDetails,
    PydanticSerializationError,
    SchemaValidator,
    ValidationError,
    to_jsonable_python,
)

from typed_elicit._core.eras import has_primitive_defaults
from typed_elicit._core.versions import ProtocolVersion
from typed_elicit._forms.fieldinfo import FieldProblem, field_shape
from typed_elicit._forms.options import not_an_option, offered_values
from typed_elicit._wire.rules import check_text
from typed_elicit._wire.spec import FORMAT_CHECKS


def wire_default(default: object, prop: Mapping[str, Any]) -> Any:
    """The JSON value a default travels as; a `FieldProblem` if it has none of the field's kind.

    Raises:
        FieldProblem: If the default has no wire form of the field's kind.
    """
    if prop["type"] == "array":
        if not isinstance(default, list | tuple | set | frozenset):
            raise _default_problem(default, "is not a list of options, as a multi-select default must be")
        items = cast("Iterable[object]", default)
        values = [v.value if isinstance(v, enum.Enum) else v for v in items]
        if not all(isinstance(v, str) for v in values):
            raise _default_problem(items, "holds a value that is not a string option")
        names = cast("list[str]", values)
        return sorted(names) if isinstance(default, set | frozenset) else names
    if isinstance(default, enum.Enum):
        return default.value
    try:
        return to_jsonable_python(default)
    except PydanticSerializationError:
        raise _default_problem(default, "has no JSON form") from None


_SHOWN_DEFAULT = 80
"""Longest default repr quoted in a message (the default is developer-written, but may be long)."""

_DEFAULT_FIX = "choose a default the field accepts, or drop it to make the field required"

BOUNDS: tuple[tuple[type[at.BaseMetadata], str, Callable[[Any, Any], bool]], ...] = (
    (at.Ge, "ge", operator.ge),
    (at.Gt, "gt", operator.gt),
    (at.Le, "le", operator.le),
    (at.Lt, "lt", operator.lt),
)


def _default_problem(default: object, reason: str) -> FieldProblem:
    shown = repr(default)
    if len(shown) > _SHOWN_DEFAULT:
        shown = shown[: _SHOWN_DEFAULT - 3] + "..."
    return FieldProblem(f"the default {shown} {reason}; {_DEFAULT_FIX}")


def check_default(
    validator: SchemaValidator | None, default: object, prop: Mapping[str, Any], metadata: Sequence[Any]
) -> None:
    """Raise a `FieldProblem` naming the rule `prop["default"]` breaks, if it breaks one.

    Three checks, the first failure wins: the wire rules a client checks the default
    against (`_wire_default_reason`, the same rules as `typed_elicit.client._handler`), the
    developer's own constraints by name (`ge=1`, `max_length=3`), and last the field's
    own pydantic validation (`_field_validation_reason`), which covers the rest exactly.

    Raises:
        FieldProblem: Naming the rule the default breaks.
    """
    wire = prop["default"]
    reason = (
        _wire_default_reason(prop, wire)
        or _constraint_reason(wire, metadata)
        or _field_validation_reason(validator, wire)
    )
    if reason is not None:
        raise _default_problem(default, reason)


def _wire_default_reason(prop: Mapping[str, Any], wire: Any) -> str | None:
    """Why a client refuses `wire` as the default of `prop`, or None: type, options, text, format."""
    kind = prop["type"]
    if kind == "boolean":
        return None if isinstance(wire, bool) else "is not true or false, as a bool field needs"
    if kind in ("integer", "number"):
        if isinstance(wire, bool) or not isinstance(wire, int | float):
            return f"is not a number, as an {kind} field needs"
        if isinstance(wire, float) and not math.isfinite(wire):
            return "is not a finite number (JSON has no NaN or infinity)"
        if kind == "integer" and isinstance(wire, float) and not wire.is_integer():
            return "is not a whole number, as an int field needs"
        return None
    if kind == "array":
        options = offered_values(prop)
        picked = cast("list[str]", wire)
        unknown = [v for v in picked if v not in options]
        if unknown:
            return not_an_option(unknown[0], options)
        twice = [value for value, count in Counter(picked).items() if count > 1]
        # a form shows each option once: no client can pre-select one twice
        return f"picks the option {twice[0]!r} more than once, as no multi-select can" if twice else None
    if not isinstance(wire, str):
        return "is not a string, as a text field needs"
    try:
        check_text(wire)
    except ValueError as exc:
        return f"is not valid text: {exc}"
    if "enum" in prop or "oneOf" in prop:
        options = offered_values(prop)
        return None if wire in options else not_an_option(wire, options)
    fmt = prop.get("format")
    try:
        if fmt is not None:
            FORMAT_CHECKS[fmt](wire)  # the client's own checks
    except ValueError as exc:
        hint = (
            " (a datetime default needs a timezone, e.g. tzinfo=timezone.utc)" if fmt == "date-time" else ""
        )
        return f"does not fit format {fmt!r} as {wire!r}: {exc}{hint}"
    return None


def _constraint_reason(wire: Any, metadata: Sequence[Any]) -> str | None:
    """Which of the developer's bound or length constraints `wire` breaks, by its pydantic name."""
    for meta in metadata:
        for kind, name, holds in BOUNDS:
            if isinstance(meta, kind):
                bound = getattr(meta, name)
                if not holds(wire, bound):
                    return f"breaks {name}={bound!r}"
        if isinstance(meta, at.MinLen | at.MaxLen):
            size = len(cast("Sized", wire))
            unit = "items" if isinstance(wire, list) else "characters"
            if isinstance(meta, at.MinLen) and size < meta.min_length:
                return f"has {size} {unit}, fewer than min_length={meta.min_length}"
            if isinstance(meta, at.MaxLen) and size > meta.max_length:
                return f"has {size} {unit}, more than max_length={meta.max_length}"
    return None


def _field_errors(validator: SchemaValidator | None, value: Any) -> list[ErrorDetails]:
    """The errors the field's own pydantic validation finds in `value`, as it would on arrival.

    Why this validator: an answer is validated by `model.model_validate` on the wire values
    (`typed_elicit._forms.validate`), and each field there runs the schema pydantic compiled for
    it: type, constraints (`pattern`, `multiple_of`, ...), the model's config (`strict`,
    `str_*`) and its `@field_validator`s. A `TypeAdapter` of the annotated type would miss
    the last two, and `validate_default` or `validate_assignment` would also run model
    validators that need the other fields. So the field's own compiled schema is taken from
    the model's core schema and run alone, in python mode like `model_validate`. A validator
    that needs the other fields (`info.data` is None here) and fails for want of them
    (any error but a `ValidationError`) cannot be judged alone and finds nothing; the
    answer is still validated whole on arrival.
    """
    if validator is None:  # pragma: no cover - a model whose core schema is not pydantic's own
        return []
    try:
        validator.validate_python(value)
    except ValidationError as exc:
        return exc.errors()
    except Exception:
        return []
    return []


def _field_validation_reason(validator: SchemaValidator | None, wire: Any) -> str | None:
    errors = _field_errors(validator, wire)
    return f"is refused by the field's own validation: {errors[0]['msg']}" if errors else None


def check_answerable(validator: SchemaValidator | None, prop: Mapping[str, Any]) -> None:
    """Refuse a field whose type check refuses every JSON value an answer can arrive as.

    Answers arrive as JSON: options, dates, date-times and URLs as text, selections as
    lists. `strict=True` (on the field or in the model config) makes pydantic refuse text
    for an `Enum`, `date` or `datetime` and a list for a `set`, so no answer could ever be
    valid. A well-formed sample answer is validated; a type error (not a constraint or a
    validator's error) means that field can never be answered.

    Raises:
        FieldProblem: If no answer could pass the field's type check.
    """
    kind, fmt = prop["type"], prop.get("format")
    sample: Any
    if kind == "array":
        sample = offered_values(prop)[:1] or ["option"]
    elif "enum" in prop or "oneOf" in prop:
        sample = offered_values(prop)[0]
    else:
        sample = _SAMPLES[fmt or kind]
    for error in _field_errors(validator, sample):
        if error["type"] == "is_instance_of" or error["type"].endswith("_type"):
            raise FieldProblem(
                f"its validation refuses the JSON value an answer arrives as ({sample!r}: "
                f"{error['msg']}), so no answer could be valid; drop strict=True for this field "
                "(Field(strict=False) overrides a strict model config)"
            )


_SAMPLES: dict[str, Any] = {
    "string": "",
    "integer": 0,
    "number": 0.5,
    "boolean": False,
    "date": "2000-01-01",
    "date-time": "2000-01-01T00:00:00Z",
    "email": "user@example.com",
    "uri": "https://example.com",
}


def field_validator(model: type[BaseModel], field_name: str) -> SchemaValidator | None:
    """The validator pydantic compiled for one field of `model`, run alone under the model's config."""
    compiled: object = model.__pydantic_core_schema__
    node = cast("Mapping[str, Any]", compiled)
    definitions: list[Any] = []
    config: Any = None
    for _ in range(64):  # a wrapper chain (validators, definitions) is a few levels deep
        kind = node.get("type")
        if kind == "definitions":
            definitions.extend(node["definitions"])
        elif kind == "model":
            config = node.get("config")
        elif kind == "model-fields":
            schema = node["fields"][field_name]["schema"]
            if definitions:
                schema = {"type": "definitions", "schema": schema, "definitions": definitions}
            return SchemaValidator(cast("CoreSchema", schema), config)
        if "schema" not in node:  # pragma: no cover - see _field_validation_reason
            break
        node = node["schema"]
    return None  # pragma: no cover - see _field_validation_reason


def check_default_size(value: object, prop: Mapping[str, Any], room: int) -> None:
    """Refuse a per-question default by its length alone (`len`, nothing read) when it cannot fit.

    A multi-select's default may hold no more items than the field offers options, and
    no default may be longer than the bytes of JSON the question's schema has left.

    Raises:
        FieldProblem: If the default cannot fit, by its length alone.
    """
    if not isinstance(value, str | bytes | list | tuple | set | frozenset | dict):
        return
    length = len(cast("Sized", value))
    if prop["type"] == "array" and not isinstance(value, str | bytes | dict):
        count = len(offered_values(prop))
        if length > count:
            raise FieldProblem(
                f"the default holds {length} items, more than the {count} options offered; "
                "pick among the options, or leave the field out of defaults="
            )
    if length > room:
        unit = "characters" if isinstance(value, str) else "items"
        raise FieldProblem(
            f"the default has {length} {unit}, more than the {room} bytes of JSON the question's schema "
            "has left; pass a shorter default, or leave the field out of defaults="
        )


def call_default(
    model: type[BaseModel], name: str, value: object, prop: Mapping[str, Any], version: ProtocolVersion
) -> Any:
    """The wire form of a per-question default, checked as a class default is (`check_default`).

    Raises:
        FieldProblem: If the default does not fit the field or the revision.
    """
    if value is None:
        raise FieldProblem("the default None pre-fills nothing; leave the field out of defaults=")
    if not has_primitive_defaults(version) and prop["type"] != "boolean":
        raise FieldProblem(
            f"protocol {version} carries defaults for yes/no fields only, so the person would not see "
            "this one; ask without it on this revision (say the value in the message instead)"
        )
    try:
        wire = wire_default(value, prop)
        metadata = field_shape(model.model_fields[name]).metadata
        check_default(field_validator(model, name), value, {**prop, "default": wire}, metadata)
    except FieldProblem as problem:  # the class default's advice, worded for a per-question one
        raise FieldProblem(str(problem).replace(_DEFAULT_FIX, _CALL_DEFAULT_FIX)) from None
    return wire


_CALL_DEFAULT_FIX = "pass a default the field (and the offer) accepts, or leave the field out of defaults="
