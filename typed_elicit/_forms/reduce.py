"""The schema reducer's face: a Pydantic model in, the spec's restricted `requestedSchema` out.

A model is reduced once, to one property per field in the newest revision's
shape, and then rendered per protocol revision. Everything the wire format
cannot express is rejected with a `SchemaError` that lists every bad field.

This module owns the entry points (`@form`, `reduce_schema`, the cached per-revision
record `reduced`, the page record `page_reduced`, the checks `typed-elicit check` runs)
and re-exports the reducer's other public names from where they live:

- `fields`: the annotation rules, one pydantic field to one wire property;
- `options`: `Literal`/`Enum` options, `Titles`, multi-selects, `Choices()`;
- `defaults`: defaults, and the field's own validation;
- `names`: wire names, and the names that say a field holds a secret;
- `layout`: a whole model reduced (`Layout`) and rendered per revision;
- `record`: `Reduced`, the record of one question;
- `registry`: one `Blueprint` per model class (weakly), `@form`'s declaration, the message rule;
- `shaping`: questions shaped at call time (`options=`, `defaults=`).
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping, Sequence
from contextlib import contextmanager, suppress
from contextvars import ContextVar
from typing import Any, TypeVar, overload

from mcp_types import ElicitRequestFormParams
from pydantic import BaseModel

from typed_elicit._core.digests import schema_digest
from typed_elicit._core.versions import (
    LATEST_PROTOCOL_VERSION,
    PROTOCOL_VERSIONS,
    ProtocolVersion,
)
from typed_elicit._forms.layout import render, require_version
from typed_elicit._forms.names import secret_fields
from typed_elicit._forms.options import Choices, Titles
from typed_elicit._forms.record import JSON_SCHEMA_DIALECT, Reduced
from typed_elicit._forms.registry import (
    blueprint,
    cached_record,
    declare,
    form_message,
    is_form,
    is_page_form,
    known,
    layout,
    page_forms,
    tree_of,
)
from typed_elicit._forms.shaping import NO_OPTIONS, OptionsArg, options_error, shaped
from typed_elicit._wire.parse import parse_requested_schema
from typed_elicit._wire.spec import (
    FormSpec,
)
from typed_elicit.errors import OptionsError, SchemaError

__all__ = [
    "JSON_SCHEMA_DIALECT",
    "Choices",
    "OptionsArg",
    "Reduced",
    "Titles",
    "check_elicitable",
    "check_page",
    "defer_schema_error",
    "deferring_schema_errors",
    "form",
    "form_message",
    "form_of",
    "is_form",
    "is_page_form",
    "page_forms",
    "page_reduced",
    "reduce_schema",
    "reduced",
    "refusals",
    "schema_problems",
    "secret_fields",
    "shaped",
]

ModelT = TypeVar("ModelT", bound=type[BaseModel])


@overload
def form(cls: ModelT, /) -> ModelT: ...
@overload
def form(
    *, message: str | None = None, page: bool = False, app: object = None
) -> Callable[[ModelT], ModelT]: ...
def form(
    cls: ModelT | None = None, /, *, message: str | None = None, page: bool = False, app: object = None
) -> ModelT | Callable[[ModelT], ModelT]:
    """Declare a Pydantic model as an elicitation form and reduce it now.

    Use bare (`@form`) or with a default message (`@form(message="...")`).
    The model is reduced for every protocol revision when the class is
    defined, so a model that cannot be elicited fails at import time.

    With `page=True` the model is a page form, asked with `ctx.elicit_page` on a
    web page of the server's own (`typed_elicit.pages`): it may hold secret fields
    (`SecretStr`, names like `password`, `api_key`, `otp`), which become password
    inputs there. Every other rule still applies at import. `ctx.elicit` still
    refuses such a model, and `@elicits(...)` does not reduce it for form mode.

    With `app=True` (or a `typed_elicit.apps.AppView`) a host that can render MCP Apps
    shows the question as the server's own app view (`typed_elicit.apps.serve_apps`);
    every other client gets the same plain form. Secrets stay page-only: a model with a
    secret field cannot have an app view.

    Args:
        cls: The model class (when used bare).
        message: The message shown to the user when `ctx.elicit` gets none.
        page: Declare a page form (secret fields allowed, for `ctx.elicit_page` only).
        app: `True` or a `typed_elicit.apps.AppView`: show it as an app view where the host can.

    Returns:
        The class itself, unchanged, or a decorator that returns it.

    Raises:
        SchemaError: If any field cannot be elicited (lists every bad field), or an app view
            is asked for a model with secret fields (naming them).
        TypeError: If the decorated object is not a `pydantic.BaseModel` subclass.
    """

    def decorate(model: ModelT) -> ModelT:
        if app is not None and app is not False and (page or secret_fields(model)):
            raise SchemaError.app_secret(model.__name__, sorted(secret_fields(model)))
        declare(model, message=message, page=page, app=app)
        try:
            if page:
                check_page(model)
            else:
                layout(model)
        except SchemaError:
            if not defer_schema_error(model):
                raise
        return model

    return decorate if cls is None else decorate(cls)


_deferred: ContextVar[list[type[BaseModel]] | None] = ContextVar("typed_elicit_deferred", default=None)
"""Set only inside `deferring_schema_errors()` (in the current context, never process-wide)."""


@contextmanager
def deferring_schema_errors() -> Generator[list[type[BaseModel]], None, None]:
    """Within this block (this context only), `@form` and `@elicits` defer a `SchemaError`.

    A model that cannot be elicited is appended to the yielded list instead of raising,
    so a tool that imports many modules (`typed-elicit check`) reads each module to its
    end and reports every bad model with `schema_problems`. Not for application code.

    Yields:
        The models whose errors were deferred, in definition order.
    """
    models: list[type[BaseModel]] = []
    token = _deferred.set(models)
    try:
        yield models
    finally:
        _deferred.reset(token)


def defer_schema_error(model: type[BaseModel]) -> bool:
    """Record `model` if inside `deferring_schema_errors()`; whether it was (else the caller raises)."""
    models = _deferred.get()
    if models is None:
        return False
    models.append(model)
    return True


def schema_problems(model: type[BaseModel], *, protocol_version: ProtocolVersion) -> tuple[str, ...]:
    """Why `model` cannot be elicited on a revision, without raising: empty when it can be.

    The pure counterpart of `reduce_schema` for tools that report every bad model in
    one run (`typed-elicit check`).

    Args:
        model: The response model.
        protocol_version: The revision to check it for.

    Returns:
        One line per problem, as in `SchemaError.problems`. A page form
        (`@form(page=True)`) is checked as a page question (secret fields allowed).
    """
    try:
        if is_page_form(model):
            check_page(model)
        else:
            check_elicitable(model, protocol_version)
    except SchemaError as exc:
        return exc.problems
    return ()


def refusals(models: Sequence[type[BaseModel]]) -> dict[ProtocolVersion, tuple[str, tuple[str, ...]]]:
    """Reduce the models `@elicits(...)` lists for every revision: the newest must take each.

    An older revision may legitimately refuse a field (multi-select before 2025-11-25); a
    call on it is then refused before its body runs, with what this returns for it.

    Returns:
        Per revision that refuses any listed model: the refused models' names (joined) and the
        problem lines of all of them (a `SchemaError`'s arguments).

    Raises:
        SchemaError: If the newest revision refuses a model (or no page can ask a page form).
    """
    found: dict[ProtocolVersion, list[SchemaError]] = {}
    for model in dict.fromkeys(models):
        if is_page_form(model):  # asked on a page (`ctx.elicit_page`), never in form mode
            check_page(model)  # its Choices() fields get options per call
            continue
        try:
            check_elicitable(model, LATEST_PROTOCOL_VERSION)
        except SchemaError:
            if not defer_schema_error(model):  # `typed-elicit check` reports it with the rest
                raise
            continue
        for version in PROTOCOL_VERSIONS:
            try:
                check_elicitable(model, version)
            except SchemaError as exc:
                found.setdefault(version, []).append(exc)
    return {
        version: (", ".join(e.model_name for e in errors), tuple(line for e in errors for line in e.problems))
        for version, errors in found.items()
    }


def check_elicitable(model: type[BaseModel], protocol_version: ProtocolVersion) -> None:
    """Raise if `model` cannot be elicited on a revision; `Choices()` fields need no options here.

    Args:
        model: The response model.
        protocol_version: The revision to check it for.

    Raises:
        SchemaError: If the model cannot be elicited on that revision.
        ValueError: If the revision is not one of `PROTOCOL_VERSIONS`.
        TypeError: If `model` is not a `pydantic.BaseModel` subclass.
    """
    # A model with Choices() fields: checked whole but for its options, asked with them.
    with suppress(OptionsError):
        reduced(model, protocol_version)


def check_page(model: type[BaseModel]) -> None:
    """Raise if no page can ask `model`; `Choices()` fields need no options here.

    Args:
        model: The response model.

    Raises:
        SchemaError: If the model cannot be asked on a page.
        TypeError: If `model` is not a `pydantic.BaseModel` subclass.
    """
    with suppress(OptionsError):  # a model with Choices() fields is asked with its options
        page_reduced(model)


def page_reduced(model: type[BaseModel]) -> Reduced:
    """The record of `model` as a page question: like `reduced`, with secret fields allowed.

    A page is rendered by the server itself, not by a client, so it is reduced once,
    in the newest revision's shape (multi-selects included), whatever the call's era.

    Args:
        model: A `pydantic.BaseModel` subclass (declared with `@form(page=True)` or not).

    Returns:
        The record (its `form` is what the page renders and checks answers against).

    Raises:
        SchemaError: If the model cannot be asked on a page (every rule of `reduce_schema`
            but the refusal of secrets).
        OptionsError: If the model has `Choices()` fields (ask it with `shaped(..., page=True)`).
        TypeError: If `model` is not a `pydantic.BaseModel` subclass.
    """
    entry = blueprint(model)
    if entry.page_record is not None:
        return entry.page_record
    tree = tree_of(model)  # a flat page form is a tree of leaves: one page pipeline
    if tree.layout.choices:
        raise options_error(model, [(name, NO_OPTIONS) for name in tree.layout.choices])
    entry.page_record = Reduced(LATEST_PROTOCOL_VERSION, tree.root.schema, tree.digest, tree=tree)
    return entry.page_record


def reduced(model: type[BaseModel], protocol_version: ProtocolVersion) -> Reduced:
    """The record of `model` on a revision: schema, digest, request params and form, made once.

    Kept in the model's blueprint (`typed_elicit._forms.registry`), per revision: later calls
    cost two dict lookups and return the same record, whose schema is the same object every time.

    Args:
        model: A `pydantic.BaseModel` subclass (declared with `@form` or not).
        protocol_version: The negotiated revision.

    Returns:
        The record.

    Raises:
        SchemaError: If the model cannot be elicited on that revision.
        OptionsError: If the model has `Choices()` fields (ask it with `shaped`).
        ValueError: If the revision is not one of `PROTOCOL_VERSIONS`.
        TypeError: If `model` is not a `pydantic.BaseModel` subclass.
    """
    record = cached_record(model, protocol_version)
    if record is not None:
        return record
    require_version(protocol_version)
    base = layout(model)
    schema = render(model, base, protocol_version)
    if base.choices:
        raise options_error(model, [(name, NO_OPTIONS) for name in base.choices])
    ElicitRequestFormParams(message="", requested_schema=schema)  # the SDK's own check, once
    record = Reduced(protocol_version, schema, schema_digest(schema))
    blueprint(model).records[protocol_version] = record
    return record


def form_of(model: type[BaseModel], schema: Mapping[str, Any]) -> FormSpec:
    """The form a question about `model` showed, for a schema `reduce_schema` returned.

    Args:
        model: The model asked with.
        schema: The schema sent (any other schema is parsed, and cached only when small).

    Returns:
        The parsed form.

    Raises:
        RequestedSchemaError: If `schema` is no valid elicitation schema (never for one
            the reducer produced).
    """
    entry = known(model)
    for record in entry.records.values() if entry is not None else ():
        if record.schema is schema:
            return record.form
    return parse_requested_schema(schema)


def reduce_schema(
    model: type[BaseModel],
    *,
    protocol_version: ProtocolVersion = LATEST_PROTOCOL_VERSION,
    include_dialect: bool = False,
    options: Mapping[str, OptionsArg] | None = None,
    defaults: Mapping[str, object] | None = None,
) -> dict[str, Any]:
    """The exact `requestedSchema` sent for `model` on a protocol revision.

    Without `options` and `defaults` the result is cached per model and revision:
    later calls cost two dict lookups and return the same object, so treat it as
    read-only. With either, it is the schema of one question shaped by them (as
    `ctx.elicit(model, options=..., defaults=...)` sends it), built afresh each call.

    Args:
        model: A `pydantic.BaseModel` subclass (declared with `@form` or not).
        protocol_version: The negotiated revision; the newest by default.
        include_dialect: Add `"$schema"` (off by default: some clients reject it).
        options: Per `Choices()` field name, the options offered: a list of values, or
            a mapping of value to title.
        defaults: Per field name, the value the form is pre-filled with.

    Returns:
        `{"type": "object", "properties": {...}, "required": [...]}`.

    Raises:
        SchemaError: If the model cannot be elicited on that revision.
        OptionsError: If the model has `Choices()` fields and no options are given for
            one of them, or `options`/`defaults` do not fit the model.
        ValueError: If `protocol_version` is not a revision with elicitation (a
            programmer mistake: pass one of `PROTOCOL_VERSIONS`).
        TypeError: If `model` is not a `pydantic.BaseModel` subclass.
    """
    if options is None and defaults is None:
        record = reduced(model, protocol_version)
    else:
        record = shaped(model, protocol_version, options=options, defaults=defaults)
    return record.with_dialect if include_dialect else record.schema
