"""`typed-elicit schema` and `typed-elicit check`: what models become on the wire, and what cannot."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Mapping, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any, TextIO, cast

import annotated_types
from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel

from typed_elicit._calls.plugs import apps_for
from typed_elicit._core.versions import LATEST_PROTOCOL_VERSION, PROTOCOL_VERSIONS, ProtocolVersion
from typed_elicit._forms.reduce import (
    JSON_SCHEMA_DIALECT,
    Choices,
    OptionsArg,
    deferring_schema_errors,
    is_page_form,
    page_reduced,
    reduce_schema,
    schema_problems,
    shaped,
)
from typed_elicit._forms.registry import app_view, declared_forms

if TYPE_CHECKING:
    from typed_elicit._forms.page.tree import Leaf, Node
from typed_elicit.errors import OptionsError, SchemaError

from ._common import EXIT_OK, EXIT_PROBLEMS, UsageError
from ._load import (
    elicits_models_in,
    forms_in,
    load_model,
    load_module,
    misplaced_fallbacks,
    module_label,
    servers_in,
    walk,
)
from ._source import named_in
from ._talk import parse_pairs

_OPTION_SYNTAX = "FIELD=VALUE,VALUE,... or FIELD=VALUE=TITLE,VALUE=TITLE,..."


def parse_options(pairs: Sequence[str]) -> dict[str, OptionsArg]:
    """Read `--option FIELD=...` arguments: the options of `Choices()` fields, by field name.

    `FIELD=a,b` offers values, `FIELD=a=Alpha,b=Beta` values with titles (every option
    titled or none); text starting with `[` or `{` is JSON, a list of values or an object
    of value to title, for values holding `,` or `=`. Spaces around each entry are dropped.

    Raises:
        UsageError: An argument has no `=`, is bad JSON, or titles some options only.
    """
    return {
        field: _json_options(field, raw) if raw.lstrip().startswith(("[", "{")) else _listed(field, raw)
        for field, raw in parse_pairs(pairs, "--option", _OPTION_SYNTAX).items()
    }


def _json_options(field: str, raw: str) -> OptionsArg:
    fix = f"--option {field}: expected a JSON list of strings or a JSON object of string to string"
    try:
        given: object = json.loads(raw)
    except ValueError:
        raise UsageError(f"{fix}; this is not valid JSON") from None
    if isinstance(given, list) and all(isinstance(v, str) for v in cast("list[object]", given)):
        return cast("list[str]", given)
    if isinstance(given, dict) and all(isinstance(v, str) for v in cast("dict[str, object]", given).values()):
        return cast("dict[str, str]", given)
    raise UsageError(fix)


def _listed(field: str, raw: str) -> OptionsArg:
    entries = [entry.strip() for entry in raw.split(",") if entry.strip()]
    titled = [entry for entry in entries if "=" in entry]
    if not titled:
        return entries
    if len(titled) != len(entries):
        raise UsageError(
            f"--option {field}: give every option a title (VALUE=TITLE) or none; "
            f"{len(entries) - len(titled)} of {len(entries)} have none"
        )
    return {value.strip(): title.strip() for value, _, title in (entry.partition("=") for entry in entries)}


async def run_schema(args: argparse.Namespace, out: TextIO) -> int:
    """`typed-elicit schema`: print the wire schema of one model; notes about it go to standard error.

    A page form (`@form(page=True)`) prints the form its page shows, secret fields marked
    `"writeOnly": true`. A `Choices()` field takes its options from `--option`; one
    without them is printed without options, with a note that they are given per call.

    Raises:
        UsageError: `--option` is malformed, the model argument names no model, or the
            options do not fit it.
        SchemaError: The model cannot be elicited on `--protocol` (printed, exit 1).
    """
    options = parse_options(args.option)
    model = load_model(args.model)
    schema = _with_choices(model, args.protocol, options)
    if is_page_form(model):
        _note_page(model.__name__, _secret_paths(schema))
    if args.dialect:
        schema = {"$schema": JSON_SCHEMA_DIALECT, **schema}
    out.write(json.dumps(schema, indent=2) + "\n")
    return EXIT_OK


def _note_page(name: str, secrets: Sequence[str]) -> None:
    marked = (
        f'secret fields (password inputs, never echoed): {", ".join(secrets)} (marked "writeOnly": true)'
        if secrets
        else "no secret field"
    )
    _note(
        f"{name} is a page form (@form(page=True)): ctx.elicit_page asks it on the server's own page, "
        "never as a form, so this is the whole page: groups as objects, rows as arrays, a union as oneOf, "
        'files as "format": "binary" with their limits; in the newest revision\'s shape whatever '
        f"--protocol says; {marked}"
    )


def _node_schema(node: Node) -> dict[str, Any]:
    """A page form's node as JSON Schema: what `typed-elicit schema` shows of a page (never sent anywhere)."""
    if node.kind == "group":
        properties: dict[str, Any] = {}
        required: list[str] = []
        for child in node.children:
            if child.kind == "leaf":
                properties[child.key] = _leaf_schema(child)
                needed = child.key in node.schema.get("required", ())
            else:
                properties[child.key] = _node_schema(child)
                optional = child.optional if child.kind == "group" or child.kind == "union" else False
                needed = child.required and not optional
            required.extend([child.key] if needed else [])
        shown: dict[str, Any] = {"type": "object", "properties": properties}
        return {**shown, "required": required} if required else shown
    if node.kind == "rows":
        item = _node_schema(node.item) if node.item.kind == "group" else _leaf_schema(node.item)
        return {"type": "array", "items": item, "minItems": node.min_rows, "maxItems": node.max_rows}
    if node.kind == "pairs":
        value = _leaf_schema(node.value)
        return {"type": "object", "additionalProperties": value, "maxProperties": node.max_rows}
    if node.kind == "union":
        members = [_node_schema(group) for group in node.groups.values()]
        for tag, member in zip(node.groups, members, strict=True):
            member["properties"] = {node.tag: {"const": tag}, **member["properties"]}
            member["required"] = [node.tag, *member.get("required", [])]
        return {"oneOf": members, "discriminator": {"propertyName": node.tag}}
    assert node.kind == "file", "a leaf is told by its group"
    limits = {"maxBytes": node.limits.max_bytes, "mediaTypes": list(node.limits.media_types)}
    return {"type": "string", "format": "binary", "x-typed-elicit-file": limits}


def _secret_paths(schema: Mapping[str, Any], prefix: str = "") -> list[str]:
    """The dotted paths of the fields `_node_schema` marked `writeOnly` (rows and members included)."""
    found: list[str] = []
    for key, prop in schema.get("properties", {}).items():
        if prop.get("writeOnly"):
            found.append(f"{prefix}{key}")
        for inner in (prop, prop.get("items", {}), *prop.get("oneOf", ())):
            found.extend(_secret_paths(inner, f"{prefix}{key}."))
    return list(dict.fromkeys(found))


def _leaf_schema(leaf: Leaf) -> dict[str, Any]:
    return {**leaf.prop, "writeOnly": True} if leaf.secret else dict(leaf.prop)


def _with_choices(
    model: type[BaseModel], protocol: ProtocolVersion, options: Mapping[str, OptionsArg]
) -> dict[str, Any]:
    """What `schema` prints of `model` with `options`: its form on `protocol`, or its page.

    A `Choices()` field without options is shown without them.

    Raises:
        UsageError: If `options` do not fit the model.
        SchemaError: If no options could fit what the class declares.
    """
    unoffered = {
        name: _placeholders(name, info.metadata)
        for name, info in model.model_fields.items()
        if name not in options and any(isinstance(meta, Choices) for meta in info.metadata)
    }
    offered = {**unoffered, **options} or None
    try:
        if not is_page_form(model):
            reduced = reduce_schema(model, protocol_version=protocol, options=offered)
        else:
            page = (
                page_reduced(model)
                if offered is None
                else shaped(model, LATEST_PROTOCOL_VERSION, options=offered, page=True)
            )
            assert page.tree is not None, "every page form is a tree"
            reduced = _node_schema(page.tree.root)
        schema: dict[str, Any] = json.loads(json.dumps(reduced))  # a copy: the reducer's are cached
    except OptionsError as exc:
        if not options:  # no question could offer options that fit what the class declares
            stand_in = "said of the stand-in options (as many as it must select) shown without --option"
            raise SchemaError(model.__name__, [f"{line} ({stand_in})" for line in exc.problems]) from exc
        header = f"the --option values do not fit {model.__name__} (options= below is --option here):"
        raise UsageError("\n".join([header, *(f"  - {p}" for p in exc.problems)])) from exc
    asker = "ctx.elicit_page" if is_page_form(model) else "ctx.elicit"
    for name, values in unoffered.items():
        for prop in schema["properties"].values():
            holder = prop.get("items", prop)
            if holder.get("enum") == values:
                del holder["enum"]
        _note(
            f"{model.__name__}.{name} is a Choices() field: its options are given per call "
            f"({asker}(..., options=...)), so the schema shows it without them; "
            f"pass --option {name}=VALUE,VALUE (or VALUE=TITLE,...) to see one question's schema"
        )
    return schema


def _placeholders(name: str, metadata: Sequence[object]) -> list[str]:
    """Stand-in options for a `Choices()` field without `--option`: as many as it must select."""
    least = max((meta.min_length for meta in metadata if isinstance(meta, annotated_types.MinLen)), default=1)
    return [f"{name} option {number}" for number in range(1, max(least, 1) + 1)]


def _note(text: str) -> None:
    sys.stderr.write(f"note: {text}\n")


async def run_check(args: argparse.Namespace, out: TextIO) -> int:
    """`typed-elicit check`: reduce the models of the given modules (and their submodules) on each revision.

    The models are those declared with `@form` (in the module's namespace, or registered
    by `@form` with the module's name, such as a class nested in a class), those named in
    `@elicits(...)` (with or without `@form`), on functions and on tools of module-level
    servers, and, read from the source (`_source.named_in`), those named in `@elicits(...)`
    and `ctx.elicit*(...)` anywhere in it, such as on tools a factory function registers.
    Also reports `@elicits(on_unsupported="fallback")` on a prompt or resource template
    registered on a module's `MCPServer`, and a target in which no model is found. Inside
    the check (`deferring_schema_errors`, scoped to this context) a bad model does not stop
    its module's import, so every bad model of every module is listed in one run.

    Raises:
        UsageError: A target does not exist or fails to import for another reason.
    """
    protocols: Sequence[ProtocolVersion] = args.protocols or PROTOCOL_VERSIONS
    problems: list[str] = []
    models: dict[type[BaseModel], None] = {}
    servers: dict[MCPServer[Any], None] = {}
    for target in args.modules:
        found: dict[type[BaseModel], None] = {}
        decorators = 0
        with deferring_schema_errors() as deferred:
            try:
                for module in walk(load_module(target)):
                    found.update(dict.fromkeys(forms_in(module)))
                    found.update(dict.fromkeys(_registered_forms(module)))
                    found.update(dict.fromkeys(elicits_models_in(module)))
                    named, elicits, hidden = named_in(module)
                    found.update(dict.fromkeys(named))
                    decorators += elicits
                    problems.extend(hidden)
                    problems.extend(misplaced_fallbacks(module))
                    servers.update(dict.fromkeys(servers_in(module)))
            except SchemaError as exc:  # raised by the module's own code, not by a declaration
                problems.extend(f"{target}: {line}" for line in exc.problems)
        found.update(dict.fromkeys(deferred))
        if not found:
            problems.append(_none_found(target, decorators))
        models.update(found)
    for model in models:
        where = f"{module_label(model)}:{model.__qualname__}"
        seen: dict[str, list[str]] = {}
        for protocol in protocols:
            for line in schema_problems(model, protocol_version=protocol):
                seen.setdefault(line, []).append(protocol)
        problems.extend(f"{where} [{', '.join(revs)}]: {line}" for line, revs in seen.items())
    problems.extend(_unserved_views(models, servers))
    out.writelines(f"{line}\n" for line in problems)
    count = len(problems)
    out.write(
        f"checked {len(models)} form model(s) on {', '.join(protocols)}: "
        f"{count} problem{'s' if count != 1 else ''}\n"
    )
    return EXIT_PROBLEMS if problems else EXIT_OK


def _unserved_views(models: Iterable[type[BaseModel]], servers: Iterable[MCPServer[Any]]) -> list[str]:
    """A problem for each model declaring an app view when the checked servers serve none.

    Said only when the checked modules hold servers and none of them calls `serve_apps`: every
    question of such a model would be the plain form, silently.
    """
    found = list(servers)
    if not found or any(apps_for(server) is not None for server in found):
        return []
    names = ", ".join(repr(server.name) for server in found)
    return [
        f"{module_label(model)}:{model.__qualname__}: it declares an app view (@form(app=...)), but no "
        f"server here ({names}) serves app views, so every client gets the plain form; call "
        "typed_elicit.apps.serve_apps(server) after the models are declared, or drop app="
        for model in models
        if app_view(model) is not None
    ]


def _registered_forms(module: ModuleType) -> list[type[BaseModel]]:
    """The `@form` classes registered with `module`'s name that its namespace reaches by qualified name.

    Reaching them by `__qualname__` (`Forms.Inner`) keeps out classes of an earlier
    import of a module by the same name.
    """
    found: list[type[BaseModel]] = []
    for model in declared_forms():
        if model.__module__ != module.__name__:
            continue
        obj: object = module
        for part in model.__qualname__.split("."):
            obj = getattr(obj, part, None)
        if obj is model:
            found.append(model)
    return found


def _none_found(target: str, decorators: int) -> str:
    why = (
        f"its {decorators} @elicits decorator(s) name no model, and "
        if decorators
        else "no model named in @elicits(...), "
    )
    return (
        f"{target}: no form model found: no @form class, {why}no model class passed to ctx.elicit, "
        "ctx.elicit_page or ctx.elicit_all in its source (or its submodules'); so nothing was checked: "
        "name the modules that declare your models"
    )
