"""Every error keeps its data as attributes, and its message is worded from them."""

from __future__ import annotations

import inspect
import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import UnionType
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

import typed_elicit.errors
from tests import error_record
from typed_elicit.errors import (
    AppCannotRender,
    AppViewError,
    ClientError,
    DeclarationError,
    ElicitArgumentError,
    ElicitationTimeout,
    ElicitationUnsupported,
    ElicitUsageError,
    FallbackNotInstalled,
    HookError,
    InvalidFallbackToken,
    InvalidResponse,
    NoAnswerError,
    OptionsError,
    PageSetupError,
    PagesNotServed,
    ReplayMismatch,
    RequestedSchemaError,
    SchemaError,
    ScriptMistake,
    ServerStateError,
    StoreUnavailable,
    StoreUrlError,
    TypedElicitError,
)


@dataclass(frozen=True)
class Recorded:
    """A stand-in for a recorded question: it describes itself, nothing more."""

    text: str

    def describe(self) -> str:
        return self.text


def test_every_public_error_keeps_its_data_in_attributes() -> None:
    built = [
        ElicitationTimeout.unanswered("A", 1.0, "ctx.elicit"),
        ReplayMismatch.between_rounds(0, Recorded("A"), Recorded("B")),
        ElicitationUnsupported.for_url("no"),
        ClientError("q", 1, "m"),
        HookError.raised(object(), "on_question", ValueError),
        FallbackNotInstalled.for_function("f", "r"),
        InvalidFallbackToken.because("used", tool="t"),
        ElicitUsageError.swallowed("f"),
        ElicitArgumentError("ctx.elicit", "timeout", "timeout must be positive, got 0", "Pass 5."),
        SchemaError("M", ["p"]),
        InvalidResponse("M", [("a", "b")], None),
        OptionsError("M", [("a", "offers no options")]),
        StoreUnavailable.during("claim", store="redis h:1 db 0", namespace="round", cause="c", timeout=2.0),
        PagesNotServed("shop"),
        PageSetupError.words("a word is empty"),
        StoreUrlError("the scheme is not redis"),
        RequestedSchemaError(["properties.a: unknown type"]),
        ScriptMistake(["the script answered twice"]),
        AppViewError.served_twice("shop"),
        AppCannotRender("ui://typed-elicit/m.Ship", "the resource is not an app"),
    ]
    public = {getattr(typed_elicit.errors, n) for n in typed_elicit.errors.__all__}
    branches = {TypedElicitError, DeclarationError, NoAnswerError, ServerStateError}
    assert {type(e) for e in built} == public - branches
    for error in built:
        data = {k: v for k, v in vars(error).items() if not k.startswith("_")}
        assert data, type(error).__name__


# --- every error raised anywhere in the suite carries its documented fields (issue 18, item 14) ---


def _builders(cls: type[TypedElicitError]) -> list[Callable[..., TypedElicitError]]:
    """How `cls` is built from its data: its classmethods returning it, and a constructor that takes data."""
    found: list[Callable[..., TypedElicitError]] = [
        getattr(cls, name)
        for name, static in vars(cls).items()
        if isinstance(static, classmethod) and static.__func__.__annotations__.get("return") == cls.__name__
    ]
    if "__init__" in vars(cls) and not error_record._message_first(cls):
        found.append(cls)
    return found


def _samples(hint: Any) -> list[Any]:
    """Values for a parameter annotated `hint`: every one of a Literal, else one that fits."""
    origin, args = get_origin(hint), get_args(hint)
    if origin is Literal:
        return list(args)
    if origin in (Union, UnionType):
        return _samples(next(arg for arg in args if arg is not type(None)))
    simple: dict[Any, Any] = {str: "x", int: 3, float: 2.5, bool: True, Any: "x", object: object()}
    if hint in simple:
        return [simple[hint]]
    if origin is tuple:
        return [tuple(_samples(arg)[0] for arg in args)]
    if origin in (Sequence, Iterable, list):
        return [[_samples(args[0])[0]]]
    if origin in (Mapping, dict):
        return [{"k": "v"}]
    if origin is type:
        return [ValueError]
    if getattr(hint, "_is_protocol", False):  # e.g. `Described`: a stand-in with its methods
        return [Recorded("a question")]
    raise AssertionError(f"no sample value for {hint!r}: add one to _samples")


def _calls(builder: Callable[..., TypedElicitError]) -> list[dict[str, Any]]:
    """One call per combination of the Literal values among the builder's parameters."""
    target = builder.__init__ if isinstance(builder, type) else builder  # type: ignore[misc]
    hints = get_type_hints(inspect.unwrap(target))
    names = [
        name for name in inspect.signature(inspect.unwrap(target)).parameters if name not in ("self", "cls")
    ]
    choices = [_samples(hints[name]) for name in names]
    return [dict(zip(names, values, strict=True)) for values in itertools.product(*choices)]


def test_every_error_raised_in_the_suite_carries_its_documented_fields() -> None:
    """Runs last: every typed_elicit error the whole run built, and each builder once more, has its data.

    `tests/error_record.py` checked every instance as it was built (see there); this test also
    builds one of each builder, so it checks every builder when it runs alone.
    """
    classes = error_record.error_classes()
    assert len(classes) >= 16
    assert error_record.RECORD.installed
    for cls in classes:
        for builder in _builders(cls):
            for arguments in _calls(builder):
                builder(**arguments)
    declared = set().union(*(error_record.nullable(cls) for cls in classes))
    problems = [
        *(
            f"{cls.__qualname__} documents no Attributes"
            for cls in classes
            if not error_record.documented(cls)
        ),
        *(f"{cls.__qualname__} has no builder" for cls in classes if not _builders(cls)),
        *(
            f"{c}.{a} may be None but JUSTIFIED_NONE says not why"
            for c, a in declared - set(error_record.JUSTIFIED_NONE)
        ),
        *(
            f"{c}.{a} is in JUSTIFIED_NONE but documented never None"
            for c, a in set(error_record.JUSTIFIED_NONE) - declared
        ),
        *(str(shortfall) for shortfall in error_record.RECORD.shortfalls),
    ]
    assert problems == []
    assert error_record.RECORD.checked  # the recorder saw the builders above
