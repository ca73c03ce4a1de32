"""The schema reducer: a Pydantic model in, the spec's restricted `requestedSchema` out.

A model is reduced once, to one property per field in the newest revision's
shape, and then rendered per protocol revision. Everything the wire format
cannot express is rejected with a `SchemaError` that lists every bad field.
"""

from __future__ import annotations

import dataclasses
import enum
import math
import operator
import re
import types
import weakref
from collections.abc import Callable, Generator, Iterable, Mapping, Sequence, Sized
from contextlib import contextmanager, suppress
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import date, datetime
from functools import cached_property
from itertools import islice
from typing import Annotated, Any, Literal, TypeAlias, TypeVar, Union, cast, get_args, get_origin, overload

import annotated_types as at
from mcp_types import ElicitRequestFormParams
from pydantic import AnyUrl, BaseModel, EmailStr, SecretBytes, SecretStr
from pydantic.fields import FieldInfo
from pydantic.networks import validate_email
from pydantic_core import (
    CoreSchema,
    ErrorDetails,
    PydanticCustomError,
    PydanticSerializationError,
    PydanticUndefined,
    SchemaValidator,
    ValidationError,
    to_jsonable_python,
)

from typed_elicit._core.digests import schema_digest
from typed_elicit._core.versions import (
    LATEST_PROTOCOL_VERSION,
    PROTOCOL_VERSIONS,
    ProtocolVersion,
    has_modern_enums,
    has_primitive_defaults,
)
from typed_elicit._forms.spec import (
    MAX_FIELDS,
    MAX_NAME_LENGTH,
    MAX_OPTION_LENGTH,
    MAX_OPTIONS,
    MAX_QUESTION_SCHEMA_LENGTH,
    MAX_TEXT_LENGTH,
    FormSpec,
    parse_requested_schema,
)
from typed_elicit._forms.wire import check_date, check_datetime, check_text, check_uri, json_size
from typed_elicit.errors import OptionsError, SchemaError

ModelT = TypeVar("ModelT", bound=type[BaseModel])

JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


@dataclass(frozen=True, init=False)
class Titles:
    """Display titles for the options of a `Literal` or `Enum` field.

    Put it in the field's `Annotated[...]`; keys are option values (or `Enum`
    members), values are what the user sees. Every option needs a title, of at most
    `MAX_OPTION_LENGTH` (1,000) characters.

    Example:
        `size: Annotated[Literal["s", "l"], Titles(s="Small", l="Large")]`
    """

    titles: Mapping[str, str]
    legacy: bool

    def __init__(
        self, titles: Mapping[str | enum.Enum, str] | None = None, /, *, legacy: bool = False, **by_value: str
    ) -> None:
        """Collect titles from a mapping and/or keyword arguments.

        Args:
            titles: Option value (or `Enum` member) -> display title.
            legacy: Send the deprecated `enum` + `enumNames` form on every revision
                (single select only), for clients that know nothing newer. Without
                it, that form is sent on 2025-06-18 only. An option named `legacy`
                goes in the mapping.
            **by_value: The same as `titles`, for option values that are identifiers.
        """
        # At most one title past MAX_OPTIONS is kept from each source: enough for the
        # reducer to refuse too many (SchemaError), without reading a hostile mapping whole.
        merged = {_option_value(key): title for key, title in islice((titles or {}).items(), MAX_OPTIONS + 1)}
        merged.update(islice(by_value.items(), MAX_OPTIONS + 1))
        object.__setattr__(self, "titles", types.MappingProxyType(merged))
        object.__setattr__(self, "legacy", legacy)


@dataclass(frozen=True)
class Choices:
    """Marks a text field whose options are given per question, not in the class.

    Put it in the field's `Annotated[...]`: `Annotated[str, Choices()]` asks for one
    option, `Annotated[list[str], Choices(), Field(min_length=1, max_length=3)]` for
    several (2025-11-25 and later). Every question about the model then names the
    options it offers, optionally with titles:
    `ctx.elicit(PickAccount, options={"account": ["acc-1", "acc-2"]})` or
    `options={"account": {"acc-1": "Checking", "acc-2": "Savings"}}`. The answer is
    validated against exactly the options offered, and on 2026-07-28 the options are
    part of the question's pinned digest (compute them inside `ctx.once` when they
    come from a side effect). A `Choices()` field takes no default in the class but
    `None` (or `[]` for several): give one per question with `defaults=`. Page forms
    (`@form(page=True)`) cannot have `Choices()` fields yet.

    Example:
        `account: Annotated[str, Choices()] = Field(description="The account to charge")`
    """


def _option_value(option: object) -> str:
    return str(option.value) if isinstance(option, enum.Enum) else str(option)


@dataclass(frozen=True)
class _FormInfo:
    message: str | None


_FORMS: dict[type[BaseModel], _FormInfo] = {}
_REDUCED: weakref.WeakKeyDictionary[type[BaseModel], _Reduced] = weakref.WeakKeyDictionary()
_PAGE_REDUCED: weakref.WeakKeyDictionary[type[BaseModel], _Reduced] = weakref.WeakKeyDictionary()
"""Models reduced for page questions (secret fields allowed), kept apart from `_REDUCED`."""
_PAGE_FORMS: weakref.WeakSet[type[BaseModel]] = weakref.WeakSet()
_PAGE_RECORDS: weakref.WeakKeyDictionary[type[BaseModel], Reduced] = weakref.WeakKeyDictionary()
_RECORDS: weakref.WeakKeyDictionary[type[BaseModel], dict[str, Reduced]] = weakref.WeakKeyDictionary()
"""Per model class (weakly: a class that goes away takes its records along), per revision."""


_NOTHING: Mapping[str, Any] = types.MappingProxyType({})


@dataclass(frozen=True, eq=False)
class Reduced:
    """Everything the server needs to ask about one model on one revision, computed once.

    Holds no reference to the model class (the cache is keyed weakly by it).
    """

    protocol_version: ProtocolVersion
    schema: dict[str, Any]
    """The `requestedSchema`, as `reduce_schema` returns it (read-only)."""
    digest: str
    """`schema_digest(schema)`: what a recorded 2026-07-28 answer is pinned to."""
    fill: Mapping[str, Any] = dataclasses.field(default_factory=lambda: _NOTHING)
    """Wire name -> wire value filled in for a field the answer leaves out (per-question defaults)."""
    offered: Mapping[str, frozenset[str]] = dataclasses.field(default_factory=lambda: _NOTHING)
    """Wire name of each `Choices()` field -> the option values this question offered."""
    kinds: FormSpec | None = None
    """A form with this one's fields, kinds and formats, shared by every question about the model
    (a shaped record's own `form` costs a pydantic model per question); None: use `form`."""

    @cached_property
    def form(self) -> FormSpec:
        """The schema parsed as both ends read it (built on first use: it costs a pydantic model)."""
        return parse_requested_schema(self.schema, cached=False)

    @cached_property
    def field_count(self) -> int:
        """How many fields the form has: more keys than this in an answer is refused uncounted."""
        return len(self.schema["properties"])

    @cached_property
    def with_dialect(self) -> dict[str, Any]:
        """The schema with `"$schema"` first (`reduce_schema(..., include_dialect=True)`)."""
        return {"$schema": JSON_SCHEMA_DIALECT, **self.schema}

    def prefilled(self, values: Mapping[str, Any]) -> Reduced:
        """This record's form with `values` (wire name -> wire value) as the fields' defaults.

        What a re-ask shows: the valid part of the last answer filled in. Only fields the
        revision lets carry a default are filled (booleans alone on 2025-06-18); which
        fields are required does not change, nor does anything get filled in on arrival.

        Args:
            values: Checked wire values of fields of this form.

        Returns:
            A record for showing only (its digest is its schema's, not the question's).
        """
        properties = dict(self.schema["properties"])
        for key, value in values.items():
            prop = properties[key]
            if has_primitive_defaults(self.protocol_version) or prop.get("type") == "boolean":
                properties[key] = _ordered({**prop, "default": value})
        schema = {**self.schema, "properties": properties}
        return Reduced(
            self.protocol_version, schema, schema_digest(schema), self.fill, self.offered, self.kinds
        )

    def params(self, message: str) -> ElicitRequestFormParams:
        """The form request's params.

        Validated, not `model_construct`ed: pydantic-core validates these two fields in
        Rust faster than `model_construct` assembles the object in Python.
        """
        return ElicitRequestFormParams(message=message, requested_schema=self.schema)


@dataclass(frozen=True)
class _Reduced:
    """A model reduced to newest-revision properties, plus per-revision caveats."""

    properties: dict[str, dict[str, Any]]
    required: list[str]
    multi_select: tuple[str, ...]  # python field names; arrays do not exist before 2025-11-25
    keys: dict[str, str]  # python field name -> wire name
    choices: tuple[str, ...]  # python field names of Choices() fields (options given per question)
    size: int = 0  # bytes of the newest revision's schema as compact ASCII JSON (no per-question options)


@overload
def form(cls: ModelT, /) -> ModelT: ...
@overload
def form(*, message: str | None = None, page: bool = False) -> Callable[[ModelT], ModelT]: ...
def form(
    cls: ModelT | None = None, /, *, message: str | None = None, page: bool = False
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

    Args:
        cls: The model class (when used bare).
        message: The message shown to the user when `ctx.elicit` gets none.
        page: Declare a page form (secret fields allowed, for `ctx.elicit_page` only).

    Returns:
        The class itself, unchanged, or a decorator that returns it.

    Raises:
        SchemaError: If any field cannot be elicited; lists every bad field.
        TypeError: If the decorated object is not a `pydantic.BaseModel` subclass.
    """

    def decorate(model: ModelT) -> ModelT:
        _require_model(model)
        _FORMS[model] = _FormInfo(message=message)
        if page:
            _PAGE_FORMS.add(model)
        try:
            _reduce(model, page=page)
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
            page_reduced(model)
        else:
            check_elicitable(model, protocol_version)
    except SchemaError as exc:
        return exc.problems
    return ()


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


def is_form(model: type[BaseModel]) -> bool:
    """Whether `model` was declared with `@form`."""
    return model in _FORMS


def is_page_form(model: type[BaseModel]) -> bool:
    """Whether `model` was declared with `@form(page=True)` (secret fields allowed)."""
    return model in _PAGE_FORMS


def page_forms() -> tuple[type[BaseModel], ...]:
    """Every model declared `@form(page=True)` (and still alive) in this process."""
    return tuple(_PAGE_FORMS)


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
        TypeError: If `model` is not a `pydantic.BaseModel` subclass.
    """
    try:
        return _PAGE_RECORDS[model]
    except (KeyError, TypeError):
        pass
    schema = _render(model, _reduce(model, page=True), LATEST_PROTOCOL_VERSION)
    record = Reduced(LATEST_PROTOCOL_VERSION, schema, schema_digest(schema))
    _PAGE_RECORDS[model] = record
    return record


def secret_fields(model: type[BaseModel]) -> frozenset[str]:
    """The wire names of `model`'s fields that hold secrets: `SecretStr`/`SecretBytes` or a secret name.

    The same test `ctx.elicit` refuses fields by; a page renders these as password
    inputs and never echoes their values back.
    """
    found: set[str] = set()
    for field_name, info in model.model_fields.items():
        key = info.alias if isinstance(info.alias, str) else field_name
        annotation: Any = info.annotation
        if get_origin(annotation) in (Union, types.UnionType):
            annotation = next((a for a in get_args(annotation) if a is not type(None)), None)
        annotation = _strip_annotated(annotation)[0]
        if annotation in (SecretStr, SecretBytes) or _looks_secret(field_name) or _looks_secret(key):
            found.add(key)
    return frozenset(found)


def form_message(model: type[BaseModel]) -> str:
    """The message for a question about `model` when the caller gives none.

    The rule: `@form(message=...)` if given, else the first paragraph of the
    model's docstring, else `"Please provide <model title>."`.

    Args:
        model: The response model.

    Returns:
        The message to show the user.
    """
    info = _FORMS.get(model)
    if info is not None and info.message:
        return info.message
    doc = model.__doc__
    if doc and doc.strip():
        return " ".join(doc.strip().split("\n\n", 1)[0].split())
    title = model.model_config.get("title") or model.__name__
    return f"Please provide {title}."


def reduced(model: type[BaseModel], protocol_version: ProtocolVersion) -> Reduced:
    """The record of `model` on a revision: schema, digest, request params and form, made once.

    Cached per model class (weakly) and revision: later calls cost two dict lookups and
    return the same record, whose schema is the same object every time.

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
    try:
        return _RECORDS[model][protocol_version]
    except (KeyError, TypeError):
        pass
    if protocol_version not in PROTOCOL_VERSIONS:
        raise ValueError(
            f"protocol revision {protocol_version!r} has no elicitation; "
            f"pass one of {', '.join(PROTOCOL_VERSIONS)}"
        )
    base = _reduce(model)
    schema = _render(model, base, protocol_version)
    if base.choices:
        raise _options_error(model, [(name, _NO_OPTIONS) for name in base.choices])
    ElicitRequestFormParams(message="", requested_schema=schema)  # the SDK's own check, once
    record = Reduced(protocol_version, schema, schema_digest(schema))
    _RECORDS.setdefault(model, {})[protocol_version] = record
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
    for record in _RECORDS.get(model, {}).values():
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


OptionsArg: TypeAlias = Sequence[str] | Mapping[str, str]
"""The options of one `Choices()` field: values, or value -> title (in the order shown)."""

_NO_OPTIONS = (
    "is a Choices() field, so each question must offer its options; pass options={name: [...]} to ctx.elicit"
)


def _options_error(model: type[BaseModel], problems: list[tuple[str, str]]) -> OptionsError:
    order = list(model.model_fields)
    problems.sort(key=lambda p: order.index(p[0]) if p[0] in order else len(order))
    return OptionsError(model.__name__, problems)


def shaped(
    model: type[BaseModel],
    protocol_version: ProtocolVersion,
    *,
    options: Mapping[str, OptionsArg] | None = None,
    defaults: Mapping[str, object] | None = None,
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

    Returns:
        The per-question record.

    Raises:
        SchemaError: If the model cannot be elicited on that revision.
        OptionsError: Listing every problem of `options` and `defaults` (see its docstring).
        ValueError: If the revision is not one of `PROTOCOL_VERSIONS`.
        TypeError: If `model` is not a `pydantic.BaseModel` subclass.
    """
    if protocol_version not in PROTOCOL_VERSIONS:
        raise ValueError(
            f"protocol revision {protocol_version!r} has no elicitation; "
            f"pass one of {', '.join(PROTOCOL_VERSIONS)}"
        )
    base = _reduce(model)
    _render(model, base, protocol_version)  # the revision's own refusals (multi-select) first
    problems: list[tuple[str, str]] = []
    fields = len(base.keys)
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
        raise _options_error(model, problems)
    properties = dict(base.properties)
    given = dict(options or {})
    # What the offered options and defaults add to the schema, in bytes of its JSON: at least
    # `least` (refused once over the limit, so no more than the limit's worth is read) and at
    # most `most` (when the whole may pass the limit, it is measured exactly at the end).
    least, most = 0, base.size
    for name in given:
        if name not in base.keys:
            problems.append((name, _unknown(model, name, "options")))
        elif name not in base.choices:
            problems.append(
                (
                    name,
                    "is not a Choices() field, so its options are fixed in the class; offer options "
                    "for Choices() fields only (declare it Annotated[str, Choices()] to give them "
                    "per question)",
                )
            )
    for name in base.choices:
        if name not in given:
            problems.append((name, _NO_OPTIONS))
            continue
        key = base.keys[name]
        try:
            properties[key], low, high = _with_options(
                properties[key], given[name], MAX_QUESTION_SCHEMA_LENGTH - least
            )
        except _FieldProblem as problem:
            problems.append((name, str(problem)))
            continue
        least, most = least + low, most + high
    required = list(base.required)
    fill: dict[str, Any] = {}
    for name, value in (defaults or {}).items():
        if name not in base.keys:
            problems.append((name, _unknown(model, name, "defaults")))
            continue
        key = base.keys[name]
        prop = properties[key]
        if name in base.choices and not _has_options(prop):
            continue  # its options are wrong: already a problem
        try:
            _check_default_size(value, prop, MAX_QUESTION_SCHEMA_LENGTH - least)
            wire = _call_default(model, name, value, prop, protocol_version)
        except _FieldProblem as problem:
            problems.append((name, str(problem)))
            continue
        size = json_size(wire, MAX_QUESTION_SCHEMA_LENGTH) + len(',"default":')
        least, most = least + size, most + size
        properties[key] = _ordered({**prop, "default": wire})
        fill[key] = wire
        if key in required:
            required.remove(key)
    if not problems and most > MAX_QUESTION_SCHEMA_LENGTH:
        exact = json_size(_newest_schema(properties, required), MAX_QUESTION_SCHEMA_LENGTH)
        if exact > MAX_QUESTION_SCHEMA_LENGTH:
            problems.append(
                (
                    "(question)",
                    f"its schema takes more than the {MAX_QUESTION_SCHEMA_LENGTH} bytes of JSON a question's "
                    "schema may have; offer fewer or shorter options or defaults (or ask in steps)",
                )
            )
    if problems:
        raise _options_error(model, problems)
    shaped_base = dataclasses.replace(base, properties=properties, required=required)
    schema = _render(model, shaped_base, protocol_version)
    offered = {
        base.keys[name]: frozenset(_offered_values(properties[base.keys[name]])) for name in base.choices
    }
    return Reduced(
        protocol_version,
        schema,
        schema_digest(schema),
        types.MappingProxyType(fill),
        types.MappingProxyType(offered),
        _kinds(model, base, protocol_version),
    )


_KINDS: weakref.WeakKeyDictionary[type[BaseModel], dict[str, FormSpec]] = weakref.WeakKeyDictionary()
"""Per model with `Choices()` fields (weakly), per revision: the form its answers' kinds are checked with."""


def _kinds(model: type[BaseModel], base: _Reduced, version: ProtocolVersion) -> FormSpec:
    """The model's form with placeholder options: the kinds and formats every shaped question shares."""
    try:
        return _KINDS[model][version]
    except KeyError:
        pass
    properties = dict(base.properties)
    for name in base.choices:
        prop = properties[base.keys[name]]
        properties[base.keys[name]] = _with_options(
            prop, [f"option {i}" for i in range(max(prop.get("minItems", 0), 1))], MAX_QUESTION_SCHEMA_LENGTH
        )[0]
    schema = _render(model, dataclasses.replace(base, properties=properties), version)
    form = parse_requested_schema(schema, cached=False)
    _KINDS.setdefault(model, {})[version] = form
    return form


def _offered_values(prop: Mapping[str, Any]) -> list[str]:
    """The option values of a choice property (a multi-select's titled ones are `anyOf`)."""
    return _options(_holder(prop), "anyOf" if prop["type"] == "array" else "oneOf")


def _holder(prop: Mapping[str, Any]) -> Mapping[str, Any]:
    """Where a choice property keeps its options: itself, or a multi-select's `items`."""
    return cast("Mapping[str, Any]", prop["items"]) if prop["type"] == "array" else prop


def _unknown(model: type[BaseModel], name: str, argument: str) -> str:
    fields = ", ".join(model.model_fields)
    return f"is no field of {model.__name__} (it has {fields}); fix the key in {argument}="


def _has_options(prop: Mapping[str, Any]) -> bool:
    holder = _holder(prop)
    return "enum" in holder or "oneOf" in holder or "anyOf" in holder


def _with_options(prop: Mapping[str, Any], given: object, room: int) -> tuple[dict[str, Any], int, int]:
    """`prop` with the offered options: `enum` for plain values, titled `oneOf`/`anyOf` for titles.

    Counts and lengths are checked before anything is read (`len`), and the options are
    read only until their JSON passes `room` bytes, so a hostile offer costs work bounded
    by the limits, not by its size.

    Returns:
        The property, and at least and at most how many bytes of JSON the options add.
    """
    if isinstance(given, str) or not isinstance(given, Sequence | Mapping):
        raise _FieldProblem(
            f"its options must be a list of values or a mapping of value to title, not "
            f"{type(given).__name__}; wrap a single option in a list"
        )
    offer = cast("Sequence[object] | Mapping[object, object]", given)
    count = len(offer)
    if not count:
        raise _FieldProblem("offers no options, so no answer could be valid; offer at least one")
    if count > MAX_OPTIONS:
        raise _FieldProblem(
            f"offers {count} options, more than the {MAX_OPTIONS} clients accept; offer fewer"
        )
    pairs: Iterable[tuple[object, object]]
    if isinstance(offer, Mapping):
        titled, pairs = True, offer.items()
    else:
        titled, pairs = False, ((v, None) for v in offer)
    entries: list[tuple[str, str | None]] = []
    least = most = 40  # the keys around them ("enum":[...], "items":{"anyOf":[...]}) at most
    for value, title in islice(pairs, MAX_OPTIONS + 1):  # a sequence may understate its length
        if len(entries) == MAX_OPTIONS:
            raise _FieldProblem(
                f"offers at least {MAX_OPTIONS + 1} options, more than the {MAX_OPTIONS} clients accept; "
                "offer fewer"
            )
        if not isinstance(value, str) or (title is not None and not isinstance(title, str)):
            raise _FieldProblem(
                f"its options must be strings (and titles strings), got a {type(value).__name__}"
                f"{'' if title is None else ' titled by a ' + type(title).__name__}; convert them with str()"
            )
        _check_option_length(value, title)
        text = len(value) + (0 if title is None else len(title))
        least += text + (3 if title is None else 24)  # "v", or {"const":"v","title":"t"},
        most += 12 * text + (3 if title is None else 24)  # 12: the longest ASCII escape of a character
        if least > room:
            raise _FieldProblem(
                f"its options take more than the {MAX_QUESTION_SCHEMA_LENGTH} bytes of JSON a question's "
                "schema may have (with the rest of the form); offer fewer or shorter options "
                "(or ask in steps)"
            )
        _valid_text(value, "option")
        if title is not None:
            _valid_text(title, "title")
        entries.append((value, title))
    values = [value for value, _ in entries]
    seen: set[str] = set()
    for value in values:
        if value in seen:
            raise _FieldProblem(f"offers {value[:40]!r} more than once; offer each option once")
        seen.add(value)
    out = dict(prop)
    if prop["type"] == "array":
        out["items"] = (
            {"anyOf": [{"const": v, "title": t} for v, t in entries]}
            if titled
            else {"type": "string", "enum": values}
        )
        if out.get("minItems", 0) > len(values):
            raise _FieldProblem(
                f"offers {len(values)} options, fewer than its min_length={out['minItems']} selections; "
                "offer more options or lower min_length"
            )
    elif titled:
        out["oneOf"] = [{"const": v, "title": t} for v, t in entries]
    else:
        out["enum"] = values
    return _ordered(out), least, most


def _check_default_size(value: object, prop: Mapping[str, Any], room: int) -> None:
    """Refuse a per-question default by its length alone (`len`, nothing read) when it cannot fit.

    A multi-select's default may hold no more items than the field offers options, and
    no default may be longer than the bytes of JSON the question's schema has left.
    """
    if not isinstance(value, str | bytes | list | tuple | set | frozenset | dict):
        return
    length = len(cast("Sized", value))
    if prop["type"] == "array" and not isinstance(value, str | bytes | dict):
        holder = _holder(prop)
        count = len(holder.get("enum") or holder.get("anyOf") or ())
        if length > count:
            raise _FieldProblem(
                f"the default holds {length} items, more than the {count} options offered; "
                "pick among the options, or leave the field out of defaults="
            )
    if length > room:
        unit = "characters" if isinstance(value, str) else "items"
        raise _FieldProblem(
            f"the default has {length} {unit}, more than the {room} bytes of JSON the question's schema "
            "has left; pass a shorter default, or leave the field out of defaults="
        )


def _call_default(
    model: type[BaseModel], name: str, value: object, prop: Mapping[str, Any], version: ProtocolVersion
) -> Any:
    """The wire form of a per-question default, checked as a class default is (`_check_default`)."""
    if value is None:
        raise _FieldProblem("the default None pre-fills nothing; leave the field out of defaults=")
    if not has_primitive_defaults(version) and prop["type"] != "boolean":
        raise _FieldProblem(
            f"protocol {version} carries defaults for yes/no fields only, so the person would not see "
            "this one; ask without it on this revision (say the value in the message instead)"
        )
    try:
        wire = _wire_default(value, prop)
        info = model.model_fields[name]
        annotation, _ = _strip_none(info.annotation)
        _, inner_meta = _strip_annotated(annotation)
        metadata = [*info.metadata, *inner_meta]
        _check_default(_field_validator(model, name), value, {**prop, "default": wire}, metadata)
    except _FieldProblem as problem:  # the class default's advice, worded for a per-question one
        raise _FieldProblem(str(problem).replace(_DEFAULT_FIX, _CALL_DEFAULT_FIX)) from None
    return wire


_CALL_DEFAULT_FIX = "pass a default the field (and the offer) accepts, or leave the field out of defaults="


def _render(model: type[BaseModel], base: _Reduced, version: ProtocolVersion) -> dict[str, Any]:
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
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if base.required:
        schema["required"] = list(base.required)
    return schema


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


def _require_model(obj: object) -> None:
    if not (isinstance(obj, type) and issubclass(obj, BaseModel)):
        raise TypeError(f"elicitation models are pydantic.BaseModel subclasses, not {obj!r}")


def _reduce(model: type[BaseModel], *, page: bool = False) -> _Reduced:
    cache = _PAGE_REDUCED if page else _REDUCED
    try:
        return cache[model]
    except KeyError:
        pass
    _require_model(model)
    name = model.__name__
    if not model.__pydantic_complete__:
        try:
            model.model_rebuild()
        except Exception as exc:
            raise SchemaError(
                name,
                [
                    f"{name}: its annotations cannot be resolved ({exc}); "
                    "define every referenced type before the model"
                ],
            ) from exc
    problems: list[str] = []
    properties: dict[str, dict[str, Any]] = {}
    required: list[str] = []
    multi: list[str] = []
    choices: list[str] = []
    keys: dict[str, str] = {}
    for field_name, info in model.model_fields.items():
        where = f"{name}.{field_name}"
        try:
            key = _wire_name(field_name, info)
            if key != field_name and model.model_config.get("validate_by_alias") is False:
                raise _FieldProblem(
                    f"answers arrive keyed by the alias {key!r}, but the model validates by field name "
                    "only (validate_by_alias=False), so every answer would be refused; drop the alias "
                    "or validate_by_alias=False"
                )
            prop, is_multi, is_choices = _reduce_field(field_name, key, info, page=page)
            validator = _field_validator(model, field_name)
            _check_answerable(validator, prop)
            if "default" in prop:
                _check_default(validator, info.default, prop, info.metadata)
        except _FieldProblem as problem:
            problems.append(f"{where}: {problem}")
            continue
        properties[key] = prop
        if info.is_required():
            required.append(key)
        if is_multi:
            multi.append(field_name)
        if is_choices:
            choices.append(field_name)
        keys[field_name] = key
    if len(model.model_fields) > MAX_FIELDS:
        problems.append(
            f"{name}: {len(model.model_fields)} fields are more than the {MAX_FIELDS} clients accept "
            "in one form; ask in several steps"
        )
    if not model.model_fields:
        problems.append(
            f"{name}: a model without fields asks nothing (some clients hang on empty schemas); "
            "add a field, e.g. `confirm: bool`"
        )
    if problems:
        if not page and model in _PAGE_FORMS:  # never advise declaring what is declared already
            problems = [problem.replace(_URL_MODE_FIX, _page_form_fix(name)) for problem in problems]
        raise SchemaError(name, problems)
    size = json_size(_newest_schema(properties, required), MAX_QUESTION_SCHEMA_LENGTH)
    if size > MAX_QUESTION_SCHEMA_LENGTH and not page:  # a page's schema never travels
        raise SchemaError(
            name,
            [
                f"{name}: its schema takes more than the {MAX_QUESTION_SCHEMA_LENGTH} bytes of JSON a "
                "question's schema may have; shorten titles and descriptions, offer fewer options, "
                "or ask in steps"
            ],
        )
    reduced = _Reduced(
        properties=properties,
        required=required,
        multi_select=tuple(multi),
        keys=keys,
        choices=tuple(choices),
        size=size,
    )
    cache[model] = reduced
    return reduced


def _newest_schema(properties: dict[str, dict[str, Any]], required: list[str]) -> dict[str, Any]:
    """The schema in the newest revision's shape: what the size limit measures (older ones are smaller)."""
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return schema


class _FieldProblem(Exception):
    """Internal: why one field cannot be elicited, with the fix."""


def _wire_name(field_name: str, info: FieldInfo) -> str:
    alias = info.validation_alias
    if alias is not None and not isinstance(alias, str):
        raise _FieldProblem(
            "AliasPath/AliasChoices validation aliases have no single wire name; use a plain `alias=`"
        )
    # The name answers are validated under, exactly: an empty alias is still the alias.
    name = alias if alias is not None else info.alias if info.alias is not None else field_name
    if not 0 < len(name) <= MAX_NAME_LENGTH or not name.isprintable():
        raise _FieldProblem(
            f"the wire name {name[:40]!r} is not 1-{MAX_NAME_LENGTH} printable characters, which clients "
            "refuse; choose a plain alias"
        )
    return name


# Secret names, matched on whole words of a field's name and alias (split at `_`, `-`, digits'
# neighbours and camelCase humps), so `pinned`, `spin`, `shipping`, `topping` and `secretary`
# stay allowed. `session_id` is not among them: a conference session is no secret.
_SECRET_WORDS = frozenset(
    {
        "password", "passwd", "pwd", "passphrase", "passcode", "secret", "token", "apikey",
        "pin", "pincode", "otp", "totp", "hotp", "cvv", "cvv2", "cvc", "cvc2", "ssn", "iban",
        "creditcard", "cardnumber", "privatekey",
    }
)  # fmt: skip
_SECRET_RUNS = frozenset(
    {
        ("api", "key"), ("access", "key"), ("private", "key"), ("session", "key"),
        ("card", "number"), ("credit", "card"), ("security", "code"), ("verification", "code"),
        ("auth", "code"), ("mfa", "code"), ("social", "security"), ("one", "time", "code"),
    }
)  # fmt: skip


def _looks_secret(name: str) -> bool:
    words = [w.lower() for w in re.findall(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])", name)]
    return bool(_SECRET_WORDS.intersection(words)) or any(
        tuple(words[i : i + len(run)]) == run for run in _SECRET_RUNS for i in range(len(words))
    )


_URL_MODE_FIX = (
    "form mode MUST NOT collect passwords, API keys, tokens or payment data (MCP spec); "
    "send the user to a page of yours with URL mode instead (declare the model "
    "`@form(page=True)` and ask with `ctx.elicit_page`)"
)
"""The fix for a secret field of a form; a page form gets `_page_form_fix` (it is declared already)."""


def _page_form_fix(name: str) -> str:
    """The fix for a secret field of the page form `name`, met in form mode (`reduce_schema`)."""
    return (
        f"{name} is a page form (@form(page=True)): ask it with ctx.elicit_page, since form mode "
        "MUST NOT collect passwords, API keys, tokens or payment data (MCP spec)"
    )


def _reduce_field(
    field_name: str, key: str, info: FieldInfo, *, page: bool
) -> tuple[dict[str, Any], bool, bool]:
    """A field's newest-revision property, whether it is a multi-select, whether a Choices() field."""
    if not page and (_looks_secret(field_name) or _looks_secret(key)):
        raise _FieldProblem(
            f"the name suggests a secret; {_URL_MODE_FIX} (or rename the field if it holds no secret)"
        )
    chosen_hint = _chosen_hint(info.json_schema_extra)
    annotation = info.annotation
    titles = _find_titles(info.metadata)
    has_default = info.default is not PydanticUndefined
    annotation, nullable = _strip_none(annotation)
    if nullable and not has_default and info.default_factory is None:
        raise _FieldProblem(
            "a nullable field needs a default, or the user could not leave it out; "
            "write `X | None = None` (optional) or drop `| None` (required)"
        )
    annotation, inner_meta = _strip_annotated(annotation)
    titles = titles or _find_titles(inner_meta)
    metadata = [*info.metadata, *inner_meta]
    is_choices = _has_choices(metadata)

    prop: dict[str, Any]
    is_multi = False
    origin = get_origin(annotation)
    if is_choices:
        if page:
            raise _FieldProblem(
                "a page question cannot take options per question yet (ctx.elicit_page has no "
                "options=); declare the options in the class with Literal[...] or a StrEnum"
            )
        if titles is not None:
            raise _FieldProblem(
                "Titles(...) cannot title options given per question; pass titles with the options "
                "(options={name: {value: title, ...}}) and remove Titles(...)"
            )
        if (
            has_default and info.default is not None and info.default != []
        ) or info.default_factory is not None:
            raise _FieldProblem(
                "a Choices() field takes no default in the class but None (or [] for several), as its "
                "options are only known per question; pass defaults={name: ...} with the options"
            )
        prop, is_multi = _choices_property(annotation, metadata)
    elif _option_values(annotation) is not None:
        prop = _options_property(annotation, titles)
    elif origin in (list, set, frozenset):
        prop = _multi_select_property(annotation, titles, metadata)
        is_multi = True
    else:
        if titles is not None:
            raise _FieldProblem("Titles(...) applies to Literal or Enum options only; remove it")
        prop = _scalar_property(annotation, metadata, page=page)

    _check_ranges(prop)
    if info.title is not None:
        prop["title"] = info.title
    hint = _hint(annotation, metadata) if chosen_hint is True else chosen_hint or None
    description = _with_hint(info.description, hint)
    if description is not None:
        prop["description"] = description
    for key in ("title", "description"):
        if len(prop.get(key) or "") > MAX_TEXT_LENGTH:
            raise _FieldProblem(
                f"its {key} has {len(prop[key])} characters, more than the {MAX_TEXT_LENGTH} clients accept; "
                "shorten it"
            )
    if has_default and info.default is not None:
        prop["default"] = _wire_default(info.default, prop)
    return _ordered(prop), is_multi, is_choices


# --- hints: constraints the wire cannot carry, told to the person -----------------------------
#
# The wire schema carries lengths, inclusive bounds on numbers (and exact integer bounds), and
# options. A pattern, `multiple_of`, an exclusive bound on a float and any bound on a date or
# datetime are checked on arrival but invisible to the client, so the person would guess.
# Each becomes a clause of one sentence appended to the description.

_DATE_WORDS = {"ge": "on or after", "gt": "after", "le": "on or before", "lt": "before"}
_NUMBER_WORDS = {"gt": "more than", "lt": "less than"}


def _flat(metadata: Iterable[Any]) -> Generator[Any, None, None]:
    """Every constraint object, with `Field(...)` inside `Annotated` and grouped metadata opened."""
    for meta in metadata:
        if isinstance(meta, FieldInfo):
            yield from _flat(meta.metadata)
        elif isinstance(meta, at.GroupedMetadata):
            yield from _flat(cast("Iterable[Any]", meta))
        else:
            yield meta


def _chosen_hint(extra: object) -> str | bool:
    """The field's own hint from `json_schema_extra={"hint": ...}`: its text, False for none, else True.

    `json_schema_extra` cannot travel (the wire schema admits only the spec's keys), so
    it is refused, except for the one key typed_elicit reads itself.
    """
    if extra is None:
        return True
    if isinstance(extra, dict) and list(cast("dict[str, object]", extra)) == ["hint"]:
        value = cast("dict[str, object]", extra)["hint"]
        if value is False or (isinstance(value, str) and value.strip()):
            if isinstance(value, str):
                _valid_text(value, "hint")
            return value
        raise _FieldProblem(
            'json_schema_extra={"hint": ...} takes a text (sent instead of the automatic hint) or '
            f"False (no hint), not {value!r}; fix it"
        )
    raise _FieldProblem(
        "json_schema_extra cannot travel: the wire schema admits only the spec's keys; "
        "remove it and enforce extra rules with a validator (checked when the answer arrives); "
        'only json_schema_extra={"hint": "..." or False} is read, to word or drop the hint'
    )


def _hint(annotation: Any, metadata: list[Any]) -> str | None:
    """The sentence explaining what the wire schema of this field leaves out, or None."""
    flat = list(_flat(metadata))
    if annotation is str:
        patterns: list[object] = [getattr(m, "pattern", None) for m in flat]
        shown = [
            cast("re.Pattern[str]", p).pattern if isinstance(p, re.Pattern) else str(p)
            for p in patterns
            if p is not None
        ]
        return f"Must match the pattern {shown[-1]}." if shown else None
    clauses: list[str] = []
    if isinstance(annotation, type) and issubclass(annotation, date):
        for meta in flat:
            for kind, name, _ in _BOUNDS:
                if isinstance(meta, kind):
                    bound = getattr(meta, name)
                    shown_bound = bound.isoformat() if isinstance(bound, date) else str(bound)
                    clauses.append(f"{_DATE_WORDS[name]} {shown_bound}")
    elif annotation is int or annotation is float:
        for meta in flat:
            if annotation is float and isinstance(meta, at.Gt | at.Lt):
                name = "gt" if isinstance(meta, at.Gt) else "lt"
                clauses.append(f"{_NUMBER_WORDS[name]} {_shown_number(getattr(meta, name))}")
            elif isinstance(meta, at.MultipleOf):
                clauses.append(f"a multiple of {_shown_number(meta.multiple_of)}")
    if not clauses:
        return None
    listed = clauses[0] if len(clauses) == 1 else f"{', '.join(clauses[:-1])} and {clauses[-1]}"
    return f"Must be {listed}."


def _shown_number(value: object) -> str:
    """`5` for 5 and 5.0, `0.5` for 0.5: a number as a person writes it."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e16:
        return str(int(value))
    return str(value)


def _with_hint(description: str | None, hint: str | None) -> str | None:
    if not hint:
        return description
    if not description:
        return hint
    text = description.rstrip()
    return f"{text} {hint}" if text.endswith((".", "!", "?", ":")) else f"{text}. {hint}"


def _has_choices(metadata: list[Any]) -> bool:
    if any(m is Choices for m in metadata):
        raise _FieldProblem("Choices is a marker to instantiate: write Annotated[str, Choices()]")
    return any(isinstance(m, Choices) for m in metadata)


def _choices_property(annotation: Any, metadata: list[Any]) -> tuple[dict[str, Any], bool]:
    """A `Choices()` field's property without its options (they are added per question)."""
    if annotation is str:
        return {"type": "string"}, False
    args = get_args(annotation)
    if get_origin(annotation) in (list, set, frozenset) and args and _strip_annotated(args[0])[0] is str:
        prop: dict[str, Any] = {"type": "array", "items": {"type": "string"}}
        for meta in metadata:
            if isinstance(meta, at.MinLen):
                prop["minItems"] = meta.min_length
            elif isinstance(meta, at.MaxLen):
                prop["maxItems"] = meta.max_length
        return prop, True
    raise _FieldProblem(
        f"Choices() marks a str field (one option) or a list[str] field (several), not "
        f"{_type_name(annotation)}; declare it as one of those"
    )


def _check_ranges(prop: Mapping[str, Any]) -> None:
    """Refuse bounds that leave no valid answer: every client refuses such a schema."""
    for low, high, what in (
        ("minimum", "maximum", "ge/gt and le/lt leave no number"),
        ("minLength", "maxLength", "min_length and max_length leave no text"),
        ("minItems", "maxItems", "min_length and max_length leave no selection"),
    ):
        if low in prop and high in prop and prop[low] > prop[high]:
            raise _FieldProblem(f"{what}: {low} {prop[low]} is more than {high} {prop[high]}; fix the bounds")
    if prop["type"] == "array" and ("enum" in prop["items"] or "anyOf" in prop["items"]):
        count = len(_options(prop["items"], "anyOf"))
        if prop.get("minItems", 0) > count:
            raise _FieldProblem(
                f"min_length={prop['minItems']} asks for more selections than the {count} options; "
                "lower it or add options"
            )


_KEY_ORDER = ("type", "title", "description")


def _ordered(prop: dict[str, Any]) -> dict[str, Any]:
    head = {k: prop[k] for k in _KEY_ORDER if k in prop}
    return {**head, **{k: v for k, v in prop.items() if k not in head}}


def _wire_default(default: object, prop: Mapping[str, Any]) -> Any:
    """The JSON value a default travels as; a `_FieldProblem` if it has none of the field's kind."""
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


# --- defaults: a default must satisfy its own field --------------------------------------------
#
# A default is sent to the client (every kind on 2025-11-25 and later, booleans on 2025-06-18),
# pre-filled in the form, and comes back as an answer; when the user leaves the field out,
# the tool gets it as is (pydantic does not validate defaults). So a default that breaks its
# own field makes the client refuse the whole schema, or makes the user's "keep the default"
# an invalid answer, or hands the tool an invalid value. It is refused when the model is
# reduced, which happens once per model and not per revision: the check applies on every
# revision, 2025-06-18 included, although that revision carries only boolean defaults.

_SHOWN_DEFAULT = 80
"""Longest default repr quoted in a message (the default is developer-written, but may be long)."""

_DEFAULT_FIX = "choose a default the field accepts, or drop it to make the field required"

_BOUNDS: tuple[tuple[type[at.BaseMetadata], str, Callable[[Any, Any], bool]], ...] = (
    (at.Ge, "ge", operator.ge),
    (at.Gt, "gt", operator.gt),
    (at.Le, "le", operator.le),
    (at.Lt, "lt", operator.lt),
)


def _default_problem(default: object, reason: str) -> _FieldProblem:
    shown = repr(default)
    if len(shown) > _SHOWN_DEFAULT:
        shown = shown[: _SHOWN_DEFAULT - 3] + "..."
    return _FieldProblem(f"the default {shown} {reason}; {_DEFAULT_FIX}")


def _check_default(
    validator: SchemaValidator | None, default: object, prop: Mapping[str, Any], metadata: list[Any]
) -> None:
    """Raise a `_FieldProblem` naming the rule `prop["default"]` breaks, if it breaks one.

    Three checks, the first failure wins: the wire rules a client checks the default
    against (`_wire_default_reason`, the same rules as `typed_elicit.client._handler`), the
    developer's own constraints by name (`ge=1`, `max_length=3`), and last the field's
    own pydantic validation (`_field_validation_reason`), which covers the rest exactly.
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
        items = prop["items"]
        options = _options(items, "anyOf") if "enum" in items or "anyOf" in items else []
        unknown = [v for v in cast("list[str]", wire) if v not in options]
        return _not_an_option(unknown[0], options) if unknown else None
    if not isinstance(wire, str):
        return "is not a string, as a text field needs"
    try:
        check_text(wire)
    except ValueError as exc:
        return f"is not valid text: {exc}"
    if "enum" in prop or "oneOf" in prop:
        options = _options(prop, "oneOf")
        return None if wire in options else _not_an_option(wire, options)
    fmt = prop.get("format")
    try:
        if fmt == "date":
            check_date(wire)
        elif fmt == "date-time":
            check_datetime(wire)
        elif fmt == "email":
            validate_email(wire)
        elif fmt == "uri":
            check_uri(wire)
    except (ValueError, PydanticCustomError) as exc:
        hint = ""
        if fmt == "date-time":
            hint = " (a datetime default needs a timezone, e.g. tzinfo=timezone.utc)"
        return f"does not fit format {fmt!r} as {wire!r}: {exc}{hint}"
    return None


def _options(prop: Mapping[str, Any], titled_key: str) -> list[str]:
    """The option values of an enum property (or of a multi-select's `items`)."""
    if titled_key in prop:
        return [o["const"] for o in prop[titled_key]]
    return cast("list[str]", prop["enum"])


def _not_an_option(value: str, options: list[str]) -> str:
    shown = ", ".join(repr(o) for o in options[:10]) + (", ..." if len(options) > 10 else "")
    return f"offers {value!r}, which is not one of the options {shown}"


def _constraint_reason(wire: Any, metadata: list[Any]) -> str | None:
    """Which of the developer's bound or length constraints `wire` breaks, by its pydantic name."""
    for meta in metadata:
        for kind, name, holds in _BOUNDS:
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


def _check_answerable(validator: SchemaValidator | None, prop: Mapping[str, Any]) -> None:
    """Refuse a field whose type check refuses every JSON value an answer can arrive as.

    Answers arrive as JSON: options, dates, date-times and URLs as text, selections as
    lists. `strict=True` (on the field or in the model config) makes pydantic refuse text
    for an `Enum`, `date` or `datetime` and a list for a `set`, so no answer could ever be
    valid. A well-formed sample answer is validated; a type error (not a constraint or a
    validator's error) means that field can never be answered.
    """
    kind, fmt = prop["type"], prop.get("format")
    sample: Any
    if kind == "array":
        items = prop["items"]
        sample = _options(items, "anyOf")[:1] if "enum" in items or "anyOf" in items else ["option"]
    elif "enum" in prop or "oneOf" in prop:
        sample = _options(prop, "oneOf")[0]
    else:
        sample = _SAMPLES[fmt or kind]
    for error in _field_errors(validator, sample):
        if error["type"] == "is_instance_of" or error["type"].endswith("_type"):
            raise _FieldProblem(
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


def _field_validator(model: type[BaseModel], field_name: str) -> SchemaValidator | None:
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


def _find_titles(metadata: list[Any]) -> Titles | None:
    return next((m for m in metadata if isinstance(m, Titles)), None)


def _strip_none(annotation: Any) -> tuple[Any, bool]:
    if get_origin(annotation) in (Union, types.UnionType):
        args = get_args(annotation)
        rest = [a for a in args if a is not type(None)]
        if len(rest) == 1 and len(rest) != len(args):
            return rest[0], True
        raise _FieldProblem(
            f"a union of several types ({_type_name(annotation)}) cannot be elicited; "
            "declare one type (or Literal options), or ask in separate fields"
        )
    return annotation, False


def _strip_annotated(annotation: Any) -> tuple[Any, list[Any]]:
    if get_origin(annotation) is Annotated:
        base, *meta = get_args(annotation)
        return base, list(meta)
    return annotation, []


def _option_values(annotation: Any) -> list[object] | None:
    """The raw options of a `Literal` or `Enum` annotation, else None."""
    if get_origin(annotation) is Literal:
        # A str-Enum member travels as its value, which pydantic accepts for it.
        return [
            a.value if isinstance(a, enum.Enum) and isinstance(a, str) else a for a in get_args(annotation)
        ]
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return [member.value for member in annotation]
    return None


def _string_options(annotation: Any) -> list[str]:
    values = _option_values(annotation)
    if values is None:  # pragma: no cover - callers check first
        raise AssertionError(annotation)
    bad = [v for v in values if not isinstance(v, str)]
    if bad:
        raise _FieldProblem(
            f"option values must be strings on the wire, got {', '.join(repr(v) for v in bad)}; "
            "use Literal of strings or a StrEnum (e.g. `class Size(StrEnum): SMALL = 's'`)"
        )
    if not values:
        raise _FieldProblem("an Enum without members offers no choice; add members")
    if len(values) > MAX_OPTIONS:
        raise _FieldProblem(
            f"{len(values)} options are more than the {MAX_OPTIONS} clients accept; ask in steps"
        )
    options = [str(v) for v in values]  # pydantic itself refuses options that are not valid text
    for option in options:
        _check_option_length(option)
    return options


def _check_option_length(value: str, title: str | None = None) -> None:
    """Refuse an option value or title over `MAX_OPTION_LENGTH` characters (a `len`, nothing read)."""
    if len(value) > MAX_OPTION_LENGTH:
        raise _FieldProblem(
            f"offers an option of {len(value)} characters, more than {MAX_OPTION_LENGTH} allowed; "
            "shorten it (an option is a short value; say more in the title or the description)"
        )
    if title is not None and len(title) > MAX_OPTION_LENGTH:
        raise _FieldProblem(
            f"titles an option with {len(title)} characters, more than {MAX_OPTION_LENGTH} allowed; "
            "shorten the title (say more in the field's description)"
        )


def _valid_text(value: str, what: str) -> None:
    try:
        check_text(value)
    except ValueError:
        raise _FieldProblem(
            f"the {what} {value[:40]!r} is not valid Unicode text (a lone surrogate); fix it"
        ) from None


def _titled(options: list[str], titles: Titles) -> list[dict[str, str]]:
    if len(titles.titles) > MAX_OPTIONS:  # Titles keeps one past the limit: never read whole
        raise _FieldProblem(
            f"Titles(...) names more than {MAX_OPTIONS} options, more than any field may offer; "
            "title each option of the field once"
        )
    offered = set(options)
    missing = [o for o in options if o not in titles.titles]
    extra = [k for k in titles.titles if k not in offered]
    if missing or extra:
        parts: list[str] = []
        if missing:
            parts.append(f"no title for {_listed(missing)}")
        if extra:
            parts.append(f"titles for unknown options {_listed(extra)}")
        raise _FieldProblem(f"Titles(...) must name every option exactly once: {'; '.join(parts)}")
    for title in titles.titles.values():
        if not isinstance(title, str):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise _FieldProblem(f"Titles(...) must map options to strings, got {title!r}; give text")
        if len(title) > MAX_OPTION_LENGTH:
            raise _FieldProblem(
                f"Titles(...) titles an option with {len(title)} characters, more than "
                f"{MAX_OPTION_LENGTH} allowed; shorten the title (say more in the field's description)"
            )
        _valid_text(title, "title")
    return [{"const": o, "title": titles.titles[o]} for o in options]


def _listed(values: list[str]) -> str:
    """The first ten values, quoted, then how many more."""
    shown = ", ".join(repr(v[:40]) for v in values[:10])
    return f"{shown} and {len(values) - 10} more" if len(values) > 10 else shown


def _options_property(annotation: Any, titles: Titles | None) -> dict[str, Any]:
    options = _string_options(annotation)
    if titles is None:
        return {"type": "string", "enum": options}
    titled = _titled(options, titles)
    if titles.legacy:
        return {"type": "string", "enum": options, "enumNames": [o["title"] for o in titled]}
    return {"type": "string", "oneOf": titled}


def _multi_select_property(annotation: Any, titles: Titles | None, metadata: list[Any]) -> dict[str, Any]:
    args = get_args(annotation)
    item, item_meta = _strip_annotated(args[0] if args else Any)
    titles = titles or _find_titles(item_meta)
    if titles is not None and titles.legacy:
        raise _FieldProblem(
            "Titles(legacy=True) has no multi-select form (enumNames titles single choices only); "
            "drop legacy=True"
        )
    if _option_values(item) is None:
        raise _FieldProblem(
            f"free-form lists ({_type_name(annotation)}) cannot be elicited, only multi-select "
            "options; use list[Literal[...]] or list[SomeStrEnum], or ask for one str and split it"
        )
    options = _string_options(item)
    items: dict[str, Any] = (
        {"type": "string", "enum": options} if titles is None else {"anyOf": _titled(options, titles)}
    )
    prop: dict[str, Any] = {"type": "array", "items": items}
    for meta in metadata:
        if isinstance(meta, at.MinLen):
            prop["minItems"] = meta.min_length
        elif isinstance(meta, at.MaxLen):
            prop["maxItems"] = meta.max_length
    return prop


def _scalar_property(annotation: Any, metadata: list[Any], *, page: bool = False) -> dict[str, Any]:
    if annotation is bool:
        return {"type": "boolean"}
    if annotation is int or annotation is float:
        return _number_property(annotation, metadata)
    fmt = _string_format(annotation)
    secret = page and annotation in (SecretStr, SecretBytes)  # a page's password input
    if fmt is not None or annotation is str or secret:
        prop: dict[str, Any] = {"type": "string"}
        if fmt:
            prop["format"] = fmt
        for meta in metadata:
            if isinstance(meta, at.MinLen):
                prop["minLength"] = meta.min_length
            elif isinstance(meta, at.MaxLen):
                prop["maxLength"] = meta.max_length
        return prop
    raise _FieldProblem(_rejection(annotation))


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


def _number_property(annotation: type[float], metadata: list[Any]) -> dict[str, Any]:
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
            raise _FieldProblem(
                f"the {key} {value} is beyond ±{_MAX_SAFE_INTEGER}, the largest integer every JSON client "
                "reads exactly; use a smaller bound (or a float bound on a float field)"
            )
    return prop


_MAX_SAFE_INTEGER = 2**53 - 1
"""The largest integer a JSON number carries exactly in every client (JavaScript's safe range)."""


def _bound(value: object, name: str) -> float:
    """A numeric bound that can travel as a JSON number, else a `_FieldProblem` saying why not."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _FieldProblem(
            f"the bound {name}={value!r} cannot travel as a JSON number; write it as an int or a float"
        )
    if isinstance(value, float) and not math.isfinite(value):
        raise _FieldProblem(f"the bound {name}={value!r} is not a finite number (JSON has none); drop it")
    return value


def _tighten(prop: dict[str, Any], key: str, value: Any, pick: Callable[[Any, Any], Any]) -> None:
    prop[key] = pick(prop[key], value) if key in prop else value


def _rejection(annotation: Any) -> str:
    origin = get_origin(annotation)
    shown = _type_name(annotation)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return (
            f"nested model {annotation.__name__} cannot be elicited; flatten it into primitive "
            "fields or ask for it in a second elicit"
        )
    if annotation is dict or origin is dict or (isinstance(origin, type) and issubclass(origin, Mapping)):
        return f"{shown} cannot be elicited (no free-form objects on the wire); declare one field per key"
    if annotation in (list, set, frozenset, tuple) or origin is tuple:
        return (
            f"{shown} cannot be elicited, only multi-select options; use list[Literal[...]] "
            "or one field per item"
        )
    if annotation in (bytes, bytearray):
        return (
            "bytes cannot be elicited; ask for a str (e.g. a URL or base64 text) or use URL mode for uploads"
        )
    if annotation is Any or annotation is object:
        return "Any cannot be elicited; declare a concrete type (str, int, float, bool, Literal[...], ...)"
    if annotation in (SecretStr, SecretBytes):
        return f"{shown} holds a secret; {_URL_MODE_FIX}"
    return (
        f"{shown} cannot be elicited; use str, int, float, bool, date, datetime, EmailStr, AnyUrl, "
        "Literal[...] or a string Enum (add validators for anything stricter)"
    )


def _type_name(annotation: Any) -> str:
    if isinstance(annotation, type) and get_origin(annotation) is None:
        return annotation.__name__
    return repr(annotation).replace("typing.", "")
