"""A strict check of a requestedSchema against the spec's restricted schema, per revision.

The SDK's wire models use `extra="ignore"`, so validating with them alone would let
non-spec keys through. Here every property must match exactly one spec kind and may
carry no key outside that kind's fields (recursively, for enum items). The kinds come
from the SDK's generated spec types (`mcp_types._v2025_11_25`, `_v2026_07_28`); the
2025-06-18 revision is the 2025-11-25 set less what SEP-1034/SEP-1330 added.
"""

from __future__ import annotations

import types
from typing import Any, Union, get_args, get_origin

import mcp_types._v2025_11_25 as v2025_11_25
import mcp_types._v2026_07_28 as v2026_07_28
from pydantic import BaseModel

_MODERN = {"2025-11-25": v2025_11_25, "2026-07-28": v2026_07_28}

_KIND_NAMES = (
    "StringSchema",
    "NumberSchema",
    "BooleanSchema",
    "UntitledSingleSelectEnumSchema",
    "TitledSingleSelectEnumSchema",
    "UntitledMultiSelectEnumSchema",
    "TitledMultiSelectEnumSchema",
    "LegacyTitledEnumSchema",
)
# What 2025-06-18 has: no defaults but boolean's, no titled oneOf, no arrays.
_OLD_KINDS = {
    "StringSchema",
    "NumberSchema",
    "BooleanSchema",
    "UntitledSingleSelectEnumSchema",
    "LegacyTitledEnumSchema",
}


def _wire_keys(model: type[BaseModel]) -> dict[str, Any]:
    return {(f.alias or name): f.annotation for name, f in model.model_fields.items()}


def _nested_models(annotation: Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    if get_origin(annotation) in (Union, types.UnionType, list):
        return [m for arg in get_args(annotation) for m in _nested_models(arg)]
    return []


def strict_problems(kind: type[BaseModel], value: Any) -> list[str]:
    """Why `value` is not exactly `kind` (empty if it is): unknown keys or invalid values."""
    if not isinstance(value, dict):
        return [f"{value!r} is not an object"]
    keys = _wire_keys(kind)
    problems = [f"key {k!r} is not in {kind.__name__}" for k in value if k not in keys]
    try:
        kind.model_validate(value)
    except Exception as exc:
        problems.append(f"not a valid {kind.__name__}: {exc}")
        return problems
    for key, annotation in keys.items():
        nested = _nested_models(annotation)
        if key not in value or not nested:
            continue
        items = value[key] if isinstance(value[key], list) else [value[key]]
        for item in items:
            options = [strict_problems(m, item) for m in nested]
            if all(options):
                problems.extend(f"{key}: {p}" for p in options[0])
    return problems


def matching_kinds(prop: dict[str, Any], version: str) -> list[str]:
    """The spec kinds `prop` matches exactly on `version`."""
    module = _MODERN.get(version, v2025_11_25)
    names = _KIND_NAMES if version in _MODERN else [n for n in _KIND_NAMES if n in _OLD_KINDS]
    matches = []
    for name in names:
        if strict_problems(getattr(module, name), prop):
            continue
        # enumNames is optional in LegacyTitledEnumSchema, so an untitled enum matches both;
        # count the legacy kind only when it is what makes the difference.
        if name == "LegacyTitledEnumSchema" and "enumNames" not in prop:
            continue
        if version not in _MODERN and "default" in prop and name != "BooleanSchema":
            continue
        matches.append(name)
    return matches


def assert_spec_valid(schema: dict[str, Any], version: str, *, dialect: bool = False) -> None:
    """Fail unless `schema` is a spec-valid requestedSchema for `version`, with no extra key."""
    allowed_top = {"type", "properties", "required"} | ({"$schema"} if dialect else set())
    assert set(schema) <= allowed_top, f"top-level keys {set(schema) - allowed_top} are not allowed"
    assert schema["type"] == "object"
    properties = schema["properties"]
    assert properties, "an empty schema hangs some clients"
    assert set(schema.get("required", [])) <= set(properties)
    assert "required" not in schema or schema["required"], "an empty required list is noise"
    for key, prop in properties.items():
        kinds = matching_kinds(prop, version)
        assert len(kinds) == 1, f"{key}: {prop} matches {kinds or 'no spec kind'} on {version}"
