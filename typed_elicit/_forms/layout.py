"""A whole model reduced: `lay_out` builds its `Layout`, `render` writes it for one revision.

A model is reduced once, to one property per field in the newest revision's shape (its
`Layout`), and then rendered per protocol revision (`render`, which downgrades what an older
revision has no form for). Everything the wire format cannot express is rejected with a
`SchemaError` that lists every bad field.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from typed_elicit._core.eras import has_modern_enums, has_primitive_defaults
from typed_elicit._core.versions import PROTOCOL_VERSIONS, ProtocolVersion
from typed_elicit._forms.defaults import check_answerable, check_default, field_validator
from typed_elicit._forms.fieldinfo import FieldProblem, FieldShape, field_shape
from typed_elicit._forms.fields import reduce_field
from typed_elicit._forms.names import URL_MODE_FIX, page_form_fix, wire_name
from typed_elicit._forms.options import with_options
from typed_elicit._wire.rules import json_size
from typed_elicit._wire.spec import (
    MAX_FIELDS,
    MAX_QUESTION_SCHEMA_LENGTH,
)
from typed_elicit.errors import SchemaError


@dataclass(frozen=True)
class Layout:
    """A model reduced to newest-revision properties, plus per-revision caveats.

    What every schema about the model is rendered from (`render`): the cached one per
    revision, a page's, and each question shaped at call time. Holds no reference to the
    model class (the registry keeps it per class, weakly).
    """

    properties: dict[str, dict[str, Any]]
    required: list[str]
    multi_select: tuple[str, ...]  # python field names; arrays do not exist before 2025-11-25
    keys: dict[str, str]  # python field name -> wire name
    choices: tuple[str, ...]  # python field names of Choices() fields (options given per question)
    size: int = 0  # bytes of the newest revision's schema as compact ASCII JSON (no per-question options)
    groups: dict[str, str] = field(default_factory=dict[str, str])
    """A page form with groups: python name -> wire name of each field that is not a leaf (a group,
    rows, a choice of groups, key/value rows or a file), which takes no options or defaults per question."""

    @classmethod
    def of(cls, leaves: Sequence[LeafProperty], limit: int, groups: dict[str, str] | None = None) -> Layout:
        """The layout of reduced fields (`leaf_property`), its size counted up to `limit` bytes."""
        properties = {leaf.key: leaf.prop for leaf in leaves}
        required = [leaf.key for leaf in leaves if leaf.required]
        return cls(
            properties,
            required,
            tuple(leaf.name for leaf in leaves if leaf.multi),
            {leaf.name: leaf.key for leaf in leaves},
            tuple(leaf.name for leaf in leaves if leaf.choices),
            json_size(newest_schema(properties, required), limit),
            {} if groups is None else groups,
        )

    def with_placeholders(self) -> dict[str, dict[str, Any]]:
        """The properties, each `Choices()` field's with placeholder options (`option 0`, ...).

        The kinds and formats every question about the model shares, before one offers its options.
        """
        properties = dict(self.properties)
        for name in self.choices:
            prop = properties[self.keys[name]]
            options = [f"option {i}" for i in range(max(prop.get("minItems", 0), 1))]
            properties[self.keys[name]] = with_options(prop, options, MAX_QUESTION_SCHEMA_LENGTH)[0]
        return properties


def lay_out(model: type[BaseModel], *, page_form: bool = False) -> Layout:
    """Reduce `model` to its form-mode `Layout`, checking every field; not cached (the registry keeps it).

    A page form is reduced as a tree (`typed_elicit._forms.page.tree`), whose leaves take
    `leaf_property` too.

    Args:
        model: The model class.
        page_form: Whether it is declared `@form(page=True)` (its problems then advise `ctx.elicit_page`).

    Returns:
        The layout.

    Raises:
        SchemaError: Listing every field that cannot be elicited, and any problem of the whole.
        TypeError: If `model` is not a `pydantic.BaseModel` subclass.
    """
    require_model(model)
    name = model.__name__
    whole = model_problem(model, name)
    problems = [] if whole is None else [whole]
    leaves: list[LeafProperty] = []
    readable = model.model_fields.items() if model.__pydantic_complete__ else ()  # else: unresolved
    for field_name, info in readable:
        try:
            leaves.append(leaf_property(model, field_name, info, field_shape(info), page=False))
        except FieldProblem as problem:
            problems.append(f"{name}.{field_name}: {problem}")
    if problems:
        if page_form:  # never advise declaring what is declared already
            problems = [problem.replace(URL_MODE_FIX, page_form_fix(name)) for problem in problems]
        raise SchemaError(name, problems)
    base = Layout.of(leaves, MAX_QUESTION_SCHEMA_LENGTH)
    if base.size > MAX_QUESTION_SCHEMA_LENGTH:
        raise SchemaError(
            name,
            [
                f"{name}: its schema takes more than the {MAX_QUESTION_SCHEMA_LENGTH} bytes of JSON a "
                "question's schema may have; shorten titles and descriptions, offer fewer options, "
                "or ask in steps"
            ],
        )
    return base


def model_problem(model: type[BaseModel], where: str) -> str | None:
    """What keeps `model` as a whole from being a form (unresolved annotations, too many fields, none).

    A model pydantic left incomplete is rebuilt first; its fields can be read once it is complete
    (`__pydantic_complete__`), so the callers list their problems too, beside too many fields.
    """
    if not model.__pydantic_complete__:
        try:
            model.model_rebuild()
        except Exception as exc:
            return f"{where}: its annotations cannot be resolved ({exc}); define every type it names first"
    count = len(model.model_fields)
    if count > MAX_FIELDS:
        return f"{where}: {count} fields are more than the {MAX_FIELDS} clients accept; ask in steps"
    if not count:
        return (
            f"{where}: a model without fields asks nothing (some clients hang on empty schemas); "
            "add a field, e.g. `confirm: bool`"
        )
    return None


class LeafProperty(NamedTuple):
    """One field reduced to a wire property (`leaf_property`)."""

    name: str
    """The python field name."""
    key: str
    """Its wire name."""
    prop: dict[str, Any]
    multi: bool
    """Whether it is a multi-select."""
    choices: bool
    """Whether it is a `Choices()` field."""
    required: bool


def leaf_property(
    model: type[BaseModel], field_name: str, info: FieldInfo, shape: FieldShape, *, page: bool
) -> LeafProperty:
    """One field of `model` as a wire property, with its wire name and what the layout needs to know.

    Every rule of one field: its wire name, its annotation and constraints (`reduce_field`), and
    its default and answerability judged by the field's own validation. A page form's groups
    (`typed_elicit._forms.page.tree`) reduce their leaves with it too.

    Raises:
        FieldProblem: Saying why the field cannot be elicited, with the fix.
    """
    key = wire_name(field_name, info)
    if key != field_name and model.model_config.get("validate_by_alias") is False:
        raise FieldProblem(
            f"answers arrive keyed by the alias {key!r}, but the model validates by field name "
            "only (validate_by_alias=False), so every answer would be refused; drop the alias "
            "or validate_by_alias=False"
        )
    prop, is_multi, is_choices = reduce_field(field_name, key, info, shape, page=page)
    validator = field_validator(model, field_name)
    check_answerable(validator, prop)
    if "default" in prop:
        check_default(validator, info.default, prop, shape.metadata)
    return LeafProperty(field_name, key, prop, is_multi, is_choices, info.is_required())


def newest_schema(properties: dict[str, dict[str, Any]], required: list[str]) -> dict[str, Any]:
    """The schema of `properties` (the newest revision's shape, which the size limit measures; `render`'s)."""
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return schema


def render(model: type[BaseModel], base: Layout, version: ProtocolVersion) -> dict[str, Any]:
    """The `requestedSchema` of `base` on a revision (a fresh dict; its properties may be shared).

    Raises:
        SchemaError: If the revision has no form for one of its fields (multi-selects before 2025-11-25).
    """
    if not has_modern_enums(version) and base.multi_select:
        raise SchemaError(
            model.__name__,
            [
                f"{model.__name__}.{name}: multi-select fields need protocol 2025-11-25 or later, "
                f"but the client negotiated {version}; ask with a single choice or one bool per "
                "option for older clients"
                for name in base.multi_select
            ],
        )
    properties = {key: _downgrade(prop, version) for key, prop in base.properties.items()}
    return newest_schema(properties, list(base.required))


def _downgrade(prop: dict[str, Any], version: ProtocolVersion) -> dict[str, Any]:
    """Rewrite a newest-revision property for an older revision."""
    if has_modern_enums(version):
        return prop
    out = dict(prop)
    if "oneOf" in out:  # titled single select -> legacy enum + enumNames
        options = out.pop("oneOf")
        out["enum"] = [o["const"] for o in options]
        out["enumNames"] = [o["title"] for o in options]
    if not has_primitive_defaults(version) and out.get("type") != "boolean":
        out.pop("default", None)
    return out


def require_version(version: str) -> None:
    """Refuse a revision without elicitation (a programmer mistake).

    Raises:
        ValueError: If `version` is not one of `PROTOCOL_VERSIONS`.
    """
    if version not in PROTOCOL_VERSIONS:
        raise ValueError(
            f"protocol revision {version!r} has no elicitation; pass one of {', '.join(PROTOCOL_VERSIONS)}"
        )


def require_model(obj: object) -> None:
    """Refuse anything but a `pydantic.BaseModel` subclass.

    Raises:
        TypeError: Naming what was given.
    """
    if not (isinstance(obj, type) and issubclass(obj, BaseModel)):
        raise TypeError(f"elicitation models are pydantic.BaseModel subclasses, not {obj!r}")
