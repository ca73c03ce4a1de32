"""Questions shaped at call time: `Choices()` options and defaults given per question.

`ctx.elicit(model, options=..., defaults=...)` asks with `shaped`: the model's cached
`Layout`, with the offered options and the defaults written in, checked with work bounded
by the limits, as a `Reduced` record built afresh per question (never cached).
"""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias

from pydantic import BaseModel

from typed_elicit._core.digests import schema_digest
from typed_elicit._core.versions import (
    LATEST_PROTOCOL_VERSION,
    ProtocolVersion,
)
from typed_elicit._forms.defaults import call_default, check_default_size
from typed_elicit._forms.fieldinfo import FieldProblem, ordered
from typed_elicit._forms.layout import Layout, newest_schema, render, require_version
from typed_elicit._forms.options import has_options, offered_values, with_options
from typed_elicit._forms.record import Reduced
from typed_elicit._forms.registry import blueprint, layout, tree_of
from typed_elicit._wire.parse import parse_requested_schema
from typed_elicit._wire.rules import json_size
from typed_elicit._wire.spec import (
    MAX_QUESTION_SCHEMA_LENGTH,
    FormSpec,
)
from typed_elicit.errors import OptionsError

if TYPE_CHECKING:
    from typed_elicit._forms.page.tree import PageTree

OptionsArg: TypeAlias = Sequence[str] | Mapping[str, str]
"""The options of one `Choices()` field: values, or value -> title (in the order shown)."""

NO_OPTIONS = (
    "is a Choices() field, so each question must offer its options; pass options={name: [...]} to "
    "ctx.elicit (or ctx.elicit_page)"
)

MAX_PAGE_SHAPE_LENGTH = 262_144
"""The most bytes of JSON a page question's schema may take with its options and defaults.

A page's schema never travels to the client, but its call-time options and defaults are kept in
the page's sealed ticket (in the store), so they are bounded too, more widely than a question's."""


def options_error(model: type[BaseModel], problems: list[tuple[str, str]]) -> OptionsError:
    """The `OptionsError` listing `problems`, in the order of the model's fields."""
    order = list(model.model_fields)
    problems.sort(key=lambda p: order.index(p[0]) if p[0] in order else len(order))
    return OptionsError(model.__name__, problems)


def shaped(
    model: type[BaseModel],
    protocol_version: ProtocolVersion,
    *,
    options: Mapping[str, OptionsArg] | None = None,
    defaults: Mapping[str, object] | None = None,
    page: bool = False,
) -> Reduced:
    """The record of one question about `model`, shaped by per-question options and defaults.

    Built afresh on every call and never cached (the options are per question). The
    schema carries the offered options (`enum`, or titled `oneOf`/`anyOf`) and the
    defaults; a field with a default is no longer required, and an answer that leaves
    it out gets the default (`Reduced.fill`). The digest covers both, so on 2026-07-28 a
    re-run that offers other options, or other defaults, is a `ReplayMismatch`.

    Args:
        model: The response model.
        protocol_version: The negotiated revision.
        options: Per `Choices()` field name: its options as values, or value -> title.
        defaults: Per field name: the value the form is pre-filled with.
        page: Shape a page question (`ctx.elicit_page`): the page layout (secret fields
            allowed), the newest revision's shape whatever `protocol_version`, and
            `MAX_PAGE_SHAPE_LENGTH` as the limit. A page form with groups is shaped in its
            own fields (`typed_elicit._forms.page.shape`): the record's `tree` is shaped.

    Returns:
        The per-question record.

    Raises:
        SchemaError: If the model cannot be elicited on that revision.
        OptionsError: Listing every problem of `options` and `defaults` (see its docstring).
        ValueError: If the revision is not one of `PROTOCOL_VERSIONS`.
        TypeError: If `model` is not a `pydantic.BaseModel` subclass.
    """
    require_version(protocol_version)
    tree = tree_of(model) if page else None
    if tree is not None:
        protocol_version, base, limit = LATEST_PROTOCOL_VERSION, tree.layout, MAX_PAGE_SHAPE_LENGTH
    else:
        base, limit = layout(model), MAX_QUESTION_SCHEMA_LENGTH
    render(model, base, protocol_version)  # the revision's own refusals (multi-select) first
    problems: list[tuple[str, str]] = []
    fields = len(base.keys) + len(base.groups)
    for argument, keyed in (("options", options), ("defaults", defaults)):
        if keyed is not None and len(keyed) > fields:  # counted, not read: one problem for them all
            problems.append(
                (
                    f"({argument})",
                    f"{argument}= names {len(keyed)} keys, more than the {fields} fields of "
                    f"{model.__name__}; name each field at most once (fix the keys in {argument}=)",
                )
            )
    if problems:
        raise options_error(model, problems)
    properties = dict(base.properties)
    given = dict(options or {})
    # What the offered options and defaults add to the schema, in bytes of its JSON: at least
    # `least` (refused once over the limit, so no more than the limit's worth is read) and at
    # most `most` (when the whole may pass the limit, it is measured exactly at the end).
    least, most = 0, base.size
    for name in given:
        why = _misnamed(model, base, tree, name, "options")
        if why is None and name not in base.choices:
            why = (
                "is not a Choices() field, so its options are fixed in the class; offer options for "
                "Choices() fields only (declare it Annotated[str, Choices()] to give them per question)"
            )
        if why is not None:
            problems.append((name, why))
    for name in base.choices:
        if name not in given:
            problems.append((name, NO_OPTIONS))
            continue
        key = base.keys[name]
        try:
            properties[key], low, high = with_options(properties[key], given[name], limit - least, limit)
        except FieldProblem as problem:
            problems.append((name, str(problem)))
            continue
        least, most = least + low, most + high
    required = list(base.required)
    fill: dict[str, Any] = {}
    for name, value in (defaults or {}).items():
        why = _misnamed(model, base, tree, name, "defaults")
        if why is not None:
            problems.append((name, why))
            continue
        key = base.keys[name]
        prop = properties[key]
        if name in base.choices and not has_options(prop):
            continue  # its options are wrong: already a problem
        try:
            check_default_size(value, prop, limit - least)
            wire = call_default(model, name, value, prop, protocol_version)
        except FieldProblem as problem:
            problems.append((name, str(problem)))
            continue
        size = json_size(wire, limit) + len(',"default":')
        least, most = least + size, most + size
        properties[key] = ordered({**prop, "default": wire})
        fill[key] = wire
        if key in required:
            required.remove(key)
    if not problems and most > limit:
        exact = json_size(newest_schema(properties, required), limit)
        if exact > limit:
            problems.append(
                (
                    "(question)",
                    f"its schema takes more than the {limit} bytes of JSON a question's "
                    "schema may have; offer fewer or shorter options or defaults (or ask in steps)",
                )
            )
    if problems:
        raise options_error(model, problems)
    offered = {
        base.keys[name]: frozenset(offered_values(properties[base.keys[name]])) for name in base.choices
    }
    if tree is not None:  # page-form rules: loaded with the first page form
        from typed_elicit._forms.page.shape import shape_tree
        from typed_elicit._forms.page.tree import MAX_PAGE_INPUTS

        tree = shape_tree(tree, properties, required, fill, offered)
        if tree.inputs > MAX_PAGE_INPUTS:  # a multi-select shows one box per option
            too_many = (
                f"its page would show up to {tree.inputs} inputs with every list full, more than the "
                f"{MAX_PAGE_INPUTS} a page may hold; offer fewer options to its multi-selects or ask in steps"
            )
            raise options_error(model, [("(question)", too_many)])
        return Reduced(protocol_version, tree.root.schema, tree.digest, tree.fill, tree.offered, tree=tree)
    shaped_base = dataclasses.replace(base, properties=properties, required=required)
    schema = render(model, shaped_base, protocol_version)
    return Reduced(
        protocol_version,
        schema,
        schema_digest(schema),
        types.MappingProxyType(fill),
        types.MappingProxyType(offered),
        _kinds(model, base, protocol_version),
    )


def _kinds(model: type[BaseModel], base: Layout, version: ProtocolVersion) -> FormSpec:
    """The model's form with placeholder options: the kinds and formats every shaped question shares.

    Made once per model and revision, kept in its blueprint.
    """
    kinds = blueprint(model).kinds
    if version in kinds:
        return kinds[version]
    schema = render(model, dataclasses.replace(base, properties=base.with_placeholders()), version)
    form = kinds[version] = parse_requested_schema(schema, cached=False)
    return form


def _misnamed(
    model: type[BaseModel], base: Layout, tree: PageTree | None, name: str, argument: str
) -> str | None:
    """Why `argument=` may not name `name`: no field of `model`, or a page's group-like field; else None."""
    if tree is not None and name in base.groups:
        from typed_elicit._forms.page.shape import node_problem  # loaded with the first page form

        return node_problem(tree, name, argument)
    if name in base.keys:
        return None
    fields = ", ".join(model.model_fields)
    return f"is no field of {model.__name__} (it has {fields}); fix the key in {argument}="
