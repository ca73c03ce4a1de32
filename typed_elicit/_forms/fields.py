"""The annotation rules: one pydantic field in, its newest-revision wire property out.

`reduce_field` maps a field's annotation and constraints to the spec's restricted property
(text with its format and lengths, numbers with their bounds, booleans, options), or
raises a `FieldProblem` naming the fix. Constraints the wire cannot carry (a pattern,
`multiple_of`, an exclusive bound on a float, bounds on dates) become a hint appended to
the description. A declared `autocomplete` token is checked here (`_forms.autofill`); it never travels.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Mapping, Sequence
from datetime import date, datetime
from typing import Any, cast, get_origin

import annotated_types as at
from pydantic import AnyUrl, BaseModel, EmailStr, SecretBytes, SecretStr
from pydantic.fields import FieldInfo
from pydantic_core import (
    PydanticUndefined,
)

from typed_elicit._forms.autofill import checked_token
from typed_elicit._forms.defaults import wire_default
from typed_elicit._forms.fieldinfo import FieldProblem, FieldShape, ordered, type_name
from typed_elicit._forms.hints import described
from typed_elicit._forms.names import URL_MODE_FIX, looks_secret
from typed_elicit._forms.options import (
    choices_property,
    find_titles,
    has_choices,
    multi_select_property,
    offered_values,
    options_property,
    with_lengths,
)
from typed_elicit._wire.spec import (
    MAX_TEXT_LENGTH,
)


def reduce_field(
    field_name: str, key: str, info: FieldInfo, shape: FieldShape, *, page: bool
) -> tuple[dict[str, Any], bool, bool]:
    """A field's newest-revision property, whether it is a multi-select, whether a Choices() field.

    Raises:
        FieldProblem: Saying why the field cannot be elicited, with the fix.
    """
    if not page and (looks_secret(field_name) or (key != field_name and looks_secret(key))):
        raise FieldProblem(
            f"the name suggests a secret; {URL_MODE_FIX} (or rename the field if it holds no secret)"
        )
    if shape.members:
        raise FieldProblem(
            f"a union of several types ({type_name(shape.annotation)}) cannot be elicited; "
            "declare one type (or Literal options), or ask in separate fields"
        )
    has_default = info.default is not PydanticUndefined
    if shape.nullable and not has_default and info.default_factory is None:
        raise FieldProblem(
            "a nullable field needs a default, or the user could not leave it out; "
            "write `X | None = None` (optional) or drop `| None` (required)"
        )
    annotation, metadata = shape.annotation, shape.metadata
    titles = find_titles(metadata)
    files = sys.modules.get(_FILES)  # a FileLimits or UploadedFile exists only once it is loaded
    if files is not None and any(isinstance(m, files.FileLimits) for m in metadata):
        raise FieldProblem(
            "FileLimits applies to an UploadedFile field of a page form only; remove it (a form asks "
            f"no files), or {PAGE_FIX} with an UploadedFile field"
        )
    is_choices = has_choices(metadata)

    prop: dict[str, Any]
    is_multi = False
    if is_choices:
        if titles is not None:
            raise FieldProblem(
                "Titles(...) cannot title options given per question; pass titles with the options "
                "(options={name: {value: title, ...}}) and remove Titles(...)"
            )
        if (
            has_default and info.default is not None and info.default != []
        ) or info.default_factory is not None:
            raise FieldProblem(
                "a Choices() field takes no default in the class but None (or [] for several), as its "
                "options are only known per question; pass defaults={name: ...} with the options"
            )
        prop, is_multi = choices_property(shape)
    elif shape.options is not None:
        prop = options_property(shape.options, titles)
    elif shape.item is not None:
        prop = multi_select_property(shape, titles)
        is_multi = True
    else:
        if titles is not None:
            raise FieldProblem("Titles(...) applies to Literal or Enum options only; remove it")
        prop = _scalar_property(annotation, metadata, page=page)

    _check_ranges(prop)
    if info.json_schema_extra is not None:  # a declared autocomplete token (most fields have none)
        secret = page and (
            annotation in (SecretStr, SecretBytes) or looks_secret(field_name) or looks_secret(key)
        )
        checked_token(info.json_schema_extra, secret=secret, checkbox=prop["type"] in ("boolean", "array"))
    if info.title is not None:
        prop["title"] = info.title
    description = described(info, shape)
    if description is not None:
        prop["description"] = description
    for key in ("title", "description"):
        if len(prop.get(key) or "") > MAX_TEXT_LENGTH:
            raise FieldProblem(
                f"its {key} has {len(prop[key])} characters, more than the {MAX_TEXT_LENGTH} clients accept; "
                "shorten it"
            )
    if has_default and info.default is not None:
        prop["default"] = wire_default(info.default, prop)
    return ordered(prop), is_multi, is_choices


def _check_ranges(prop: Mapping[str, Any]) -> None:
    """Refuse bounds that leave no valid answer: every client refuses such a schema."""
    for low, high, what in (
        ("minimum", "maximum", "ge/gt and le/lt leave no number"),
        ("minLength", "maxLength", "min_length and max_length leave no text"),
        ("minItems", "maxItems", "min_length and max_length leave no selection"),
    ):
        if low in prop and high in prop and prop[low] > prop[high]:
            raise FieldProblem(f"{what}: {low} {prop[low]} is more than {high} {prop[high]}; fix the bounds")
    if prop["type"] == "array" and ("enum" in prop["items"] or "anyOf" in prop["items"]):
        count = len(offered_values(prop))
        if prop.get("minItems", 0) > count:
            raise FieldProblem(
                f"min_length={prop['minItems']} asks for more selections than the {count} options; "
                "lower it or add options"
            )


def _scalar_property(annotation: Any, metadata: Sequence[Any], *, page: bool = False) -> dict[str, Any]:
    if annotation is bool:
        return {"type": "boolean"}
    if annotation is int or annotation is float:
        return _number_property(annotation, metadata)
    fmt = _string_format(annotation)
    secret = page and annotation in (SecretStr, SecretBytes)  # a page's password input
    if fmt is not None or annotation is str or secret:
        prop: dict[str, Any] = {"type": "string", "format": fmt} if fmt else {"type": "string"}
        return with_lengths(prop, metadata, "Length")
    raise FieldProblem(_rejection(annotation, page=page))


def _string_format(annotation: Any) -> str | None:
    if not isinstance(annotation, type):
        return None
    if issubclass(annotation, datetime):
        return "date-time"
    if issubclass(annotation, date):
        return "date"
    if issubclass(annotation, cast("type", EmailStr)):  # a class at runtime, Annotated for checkers
        return "email"
    if issubclass(annotation, AnyUrl):
        return "uri"
    return None


def _number_property(annotation: type[float], metadata: Sequence[Any]) -> dict[str, Any]:
    is_int = annotation is int
    prop: dict[str, Any] = {"type": "integer" if is_int else "number"}
    for meta in metadata:
        # On integers every bound becomes the inclusive integer bound it implies (exactly:
        # math.ceil and math.floor of an int or a float never go through a rounded float).
        if isinstance(meta, at.Ge):
            bound = _bound(meta.ge, "ge")
            _tighten(prop, "minimum", math.ceil(bound) if is_int else bound, max)
        elif isinstance(meta, at.Le):
            bound = _bound(meta.le, "le")
            _tighten(prop, "maximum", math.floor(bound) if is_int else bound, min)
        elif isinstance(meta, at.Gt) and is_int:
            _tighten(prop, "minimum", math.floor(_bound(meta.gt, "gt")) + 1, max)
        elif isinstance(meta, at.Lt) and is_int:
            _tighten(prop, "maximum", math.ceil(_bound(meta.lt, "lt")) - 1, min)
    for key in ("minimum", "maximum"):
        value = prop.get(key)
        if isinstance(value, int) and abs(value) > _MAX_SAFE_INTEGER:
            raise FieldProblem(
                f"the {key} {value} is beyond ±{_MAX_SAFE_INTEGER}, the largest integer every JSON client "
                "reads exactly; use a smaller bound (or a float bound on a float field)"
            )
    return prop


_MAX_SAFE_INTEGER = 2**53 - 1
"""The largest integer a JSON number carries exactly in every client (JavaScript's safe range)."""


def _bound(value: object, name: str) -> float:
    """A numeric bound that can travel as a JSON number, else a `FieldProblem` saying why not."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise FieldProblem(
            f"the bound {name}={value!r} cannot travel as a JSON number; write it as an int or a float"
        )
    if isinstance(value, float) and not math.isfinite(value):
        raise FieldProblem(f"the bound {name}={value!r} is not a finite number (JSON has none); drop it")
    return value


def _tighten(prop: dict[str, Any], key: str, value: Any, pick: Callable[[Any, Any], Any]) -> None:
    prop[key] = pick(prop[key], value) if key in prop else value


PAGE_FIX = "declare the model @form(page=True) and ask with ctx.elicit_page"
_FILES = "typed_elicit._forms.page.files"
"""How a form-mode refusal says a page can ask for a field the wire cannot carry."""


def _rejection(annotation: Any, *, page: bool = False) -> str:
    """Why a field's type cannot be elicited, with the fix; in form mode, whether a page could ask it."""
    origin = get_origin(annotation)
    shown = type_name(annotation)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return (
            f"nested model {annotation.__name__} cannot be elicited in form mode (the wire carries flat "
            "fields only); flatten it into primitive fields, ask for it in a second elicit, or ask on a "
            f"page, which can: {PAGE_FIX}"
        )
    if annotation is dict or origin is dict or (isinstance(origin, type) and issubclass(origin, Mapping)):
        if page:
            return f"{shown} cannot be asked on a page; declare dict[str, X] with a plain X (key/value rows)"
        return (
            f"{shown} cannot be elicited (no free-form objects on the wire); declare one field per key "
            f"(a page can ask for key/value rows of a dict[str, ...]: {PAGE_FIX})"
        )
    if annotation in (list, set, frozenset, tuple) or origin is tuple:
        if page:
            return f"{shown} cannot be asked on a page; use list[X] (rows) or list[Literal[...]] (options)"
        return (
            f"{shown} cannot be elicited, only multi-select options; use list[Literal[...]] or one field "
            f"per item (a page can ask for rows of a list[...]: {PAGE_FIX})"
        )
    if annotation in (bytes, bytearray):
        if page:
            return "bytes cannot be asked on a page; declare an UploadedFile field for an upload"
        return (
            "bytes cannot be elicited; ask for a str (e.g. a URL or base64 text), or ask for an upload on a "
            f"page with an UploadedFile field ({PAGE_FIX})"
        )
    files = sys.modules.get(_FILES)
    if files is not None and annotation is files.UploadedFile:
        return f"an UploadedFile is asked on a page, never in a form: {PAGE_FIX}"
    if annotation is Any or annotation is object:
        return "Any cannot be elicited; declare a concrete type (str, int, float, bool, Literal[...], ...)"
    if annotation in (SecretStr, SecretBytes):
        return f"{shown} holds a secret; {URL_MODE_FIX}"
    return (
        f"{shown} cannot be elicited; use str, int, float, bool, date, datetime, EmailStr, AnyUrl, "
        "Literal[...] or a string Enum (add validators for anything stricter)"
    )
