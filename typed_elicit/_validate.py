r"""Re-validation of an accepted answer against the model that asked for it.

The rules, applied in this order:

1. Missing content (`accept` without `content`) counts as `{}`: every field the
   user left out takes its model default, and a missing required field is an error.
2. A key the form did not ask for is an error: clients must answer the form they
   were shown, and a stray key is more likely a confused client than data to keep.
3. A `null` value counts as left out (the wire schema has no null).
4. Each value must have the wire type its property declares. A `boolean` field
   takes only `true`/`false` (never `1`, `"true"` or `"yes"`). A string field takes
   only strings. A number field (`number` or `integer`) takes a number, never a
   boolean (`True` never becomes `1`), and that number must be finite (no NaN, no
   infinity). Because some clients send numbers as strings, a number field also
   takes a string holding exactly one JSON number, matching
   `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?` with nothing around it: `"42"`
   and `"-1.5e3"` count, `" 7 "`, `"1_000"`, `"+1"`, `"01"`, `"NaN"` and
   `"Infinity"` do not. An `integer` field also needs an integral value (`2.0` and
   `"1e3"` count, `2.5` does not). The client half (`typed_elicit._client`) checks
   each number with the same function, `wire_number`, so both ends agree.
5. The model then validates the result, including every constraint that does not
   travel on the wire (patterns, validators, `multiple_of`, cross-field checks).

Any failure raises `InvalidResponse` with one `(field path, message)` pair per
problem and the raw content as received.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from ._errors import InvalidResponse
from ._wire import wire_number

M = TypeVar("M", bound=BaseModel)


def validate_content(model: type[M], schema: Mapping[str, Any], content: Mapping[str, Any] | None) -> M:
    """Validate accepted `content` against `model` and the `schema` it was asked with.

    Args:
        model: The model the question was asked with.
        schema: The `requestedSchema` the client was shown.
        content: The content of the client's `accept`, possibly None.

    Returns:
        The validated model instance.

    Raises:
        InvalidResponse: If the content breaks any rule in this module's docstring.
    """
    properties: Mapping[str, Mapping[str, Any]] = schema.get("properties", {})
    problems: list[tuple[str, str]] = []
    cleaned: dict[str, Any] = {}
    for key, value in (content or {}).items():
        prop = properties.get(key)
        if prop is None:
            problems.append((key, "was not asked for (the form has no such field)"))
        elif value is not None:
            try:
                cleaned[key] = _wire_value(prop, value)
            except ValueError as problem:
                problems.append((key, str(problem)))
    if not problems:
        try:
            return model.model_validate(cleaned)
        except ValidationError as exc:
            problems = [(_path(error["loc"]), error["msg"]) for error in exc.errors()]
    raise InvalidResponse(model.__name__, problems, content)


def _wire_value(prop: Mapping[str, Any], value: object) -> object:
    """`value` if it has the wire type `prop` declares (a number field's number parsed), else ValueError."""
    kind = prop.get("type")
    if kind in ("integer", "number"):
        return wire_number(value, integer=kind == "integer")
    checked: object = value  # what is returned: the value as it arrived
    if kind == "boolean" and not isinstance(value, bool):
        raise ValueError(f"expected true or false, got {value!r}")
    if kind == "string" and not isinstance(value, str):
        raise ValueError(f"expected a string, got {value!r}")
    if kind == "array" and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):  # pyright: ignore[reportUnknownVariableType]
        raise ValueError(f"expected a list of options, got {value!r}")
    return checked


def _path(loc: tuple[int | str, ...]) -> str:
    return ".".join(str(part) for part in loc) or "(form)"
