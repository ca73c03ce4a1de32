"""Every error keeps its data as attributes, and its message is worded from them."""

from __future__ import annotations

import inspect
import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import UnionType
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

import pytest

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
from typed_elicit.errors._server_state import TokenProblem

FALLBACK = "'fallback' (the model relays the question; needs install_fallback(server))"


@dataclass(frozen=True)
class Recorded:
    """A stand-in for a recorded question: it describes itself, nothing more."""

    text: str

    def describe(self) -> str:
        return self.text


def test_a_pushed_question_that_timed_out_carries_its_subject_timeout_and_wait() -> None:
    error = ElicitationTimeout.unanswered("Confirm", 30.0, "ctx.elicit")
    assert (error.subject, error.timeout, error.waited, error.scope, error.answered) == (
        "Confirm",
        30.0,
        30.0,
        "question",
        False,
    )
    assert str(error) == (
        "no answer to Confirm within 30 s; the pending question was cancelled (notifications/cancelled "
        "sent). Pass timeout= to ctx.elicit or @elicits to wait longer."
    )
    assert isinstance(error, TimeoutError)


@pytest.mark.parametrize("answered", [True, False])
def test_a_round_past_its_question_timeout_carries_how_long_it_waited(answered: bool) -> None:
    error = ElicitationTimeout.too_late("Confirm", 300.0, 412.4, "ctx.elicit_url", answered=answered)
    assert (error.subject, error.timeout, error.waited, error.scope, error.answered) == (
        "Confirm",
        300.0,
        412.4,
        "question",
        answered,
    )
    fix = (
        "Pass timeout= to ctx.elicit_url or @elicits to wait longer (and keep the server's "
        "RequestStateSecurity ttl above it)."
    )
    expected = (
        f"the answer to Confirm arrived 412 s after it was asked, later than the 300 s timeout. {fix}"
        if answered
        else "no answer to Confirm within 300 s: it was asked 412 s ago, and asking again does not "
        f"restart its timeout. Call the tool again to start afresh. {fix}"
    )
    assert str(error) == expected


def test_a_call_past_its_call_timeout_carries_its_limit_and_age() -> None:
    error = ElicitationTimeout.call_expired("book", "Confirm", 3600.0, 3700.2)
    assert (error.subject, error.timeout, error.waited, error.scope) == ("Confirm", 3600.0, 3700.2, "call")
    assert str(error) == (
        "this call of book started 3700 s ago, longer than its 3600 s limit, so Confirm can no longer "
        "be answered. Call the tool again to start afresh, or pass a longer call_timeout= to @elicits."
    )


def test_a_message_first_timeout_still_builds_with_its_data_unset() -> None:
    error = ElicitationTimeout("no answer")
    assert str(error) == "no answer"
    assert (error.subject, error.timeout, error.waited, error.scope, error.answered) == (
        None,
        None,
        None,
        "question",
        False,
    )


def test_a_replay_mismatch_carries_the_index_and_both_questions() -> None:
    recorded, asked = Recorded("Confirm (key 'q0', schema ab12)"), Recorded("Address (key 'q0', schema cd34)")
    error = ReplayMismatch.between_rounds(1, recorded, asked)
    assert (error.index, error.recorded, error.asked) == (1, recorded, asked)
    assert str(error).startswith(
        "question #2 of this call was Confirm (key 'q0', schema ab12) when the client answered it, but "
        "this round asked Address (key 'q0', schema cd34) there. On protocol 2026-07-28"
    )
    assert str(error).endswith(
        "Wrap side effects and changing reads (time, random, databases) in `await ctx.once(key, fn)`."
    )
    assert ReplayMismatch("differs").index is None


def test_an_unsupported_form_question_carries_its_model_reason_and_advice() -> None:
    error = ElicitationUnsupported.for_form("Confirm", "the client has no form mode", ["'decline'", FALLBACK])
    assert (error.mode, error.subject, error.reason, error.missing, error.advised, error.asker) == (
        "form",
        "Confirm",
        "the client has no form mode",
        (),
        ("'decline'", FALLBACK),
        "ctx.elicit",
    )
    assert str(error) == (
        f"cannot ask for Confirm: the client has no form mode. Pass on_unsupported='decline' or {FALLBACK} "
        "to ctx.elicit or @elicits to carry on without asking the client."
    )
    together = ElicitationUnsupported.for_form("Confirm", "no form mode", ["'decline'"], "ctx.elicit_all")
    assert together.asker == "ctx.elicit_all"
    assert str(together).endswith(
        "Pass on_unsupported='decline' to ctx.elicit_all or @elicits to carry on without asking the client."
    )


def test_defaults_for_a_model_without_them_carry_the_missing_fields() -> None:
    error = ElicitationUnsupported.without_defaults(
        "Signup", "no form mode", ["email", "name"], ["'decline'"]
    )
    assert (error.subject, error.missing, error.advised) == ("Signup", ("email", "name"), ("'decline'",))
    assert str(error) == (
        "cannot ask for Signup: no form mode; on_unsupported='defaults' needs a default for every field, "
        "but Signup has none for email, name. Give those fields defaults, or pass on_unsupported='decline' "
        "to ctx.elicit or @elicits."
    )


def test_a_fallback_outside_a_tool_and_an_unsupported_url_carry_their_reason() -> None:
    outside = ElicitArgumentError.fallback_outside_tool("ctx.elicit", "greet", "prompts/get")
    assert (outside.problem, outside.subject) == ("argument", "ctx.elicit")
    assert outside.argument == "on_unsupported"
    assert str(outside) == (
        "ctx.elicit got on_unsupported='fallback' in greet, which is not a tool but serves prompts/get: "
        "the fallback re-runs a tool call through the model, so it works for tools only. Pass "
        "on_unsupported='raise', 'defaults' or 'decline' to ctx.elicit for a prompt or resource."
    )
    url = ElicitationUnsupported.for_url("the client has no URL mode")
    assert (url.mode, url.reason, url.advised, url.asker) == (
        "url",
        "the client has no URL mode",
        ("'decline'",),
        "ctx.elicit_url",
    )
    assert str(url) == (
        "cannot send the user to a URL: the client has no URL mode. Pass on_unsupported='decline' to "
        "ctx.elicit_url to carry on without asking."
    )


def test_a_message_first_unsupported_error_keeps_its_mode() -> None:
    error = ElicitationUnsupported("cannot", mode="url")
    assert (str(error), error.mode, error.subject, error.missing) == ("cannot", "url", None, ())


def test_a_client_error_carries_the_question_code_and_client_message() -> None:
    error = ClientError("the question for Confirm", -32603, "boom")
    assert (error.question, error.code, error.client_message) == ("the question for Confirm", -32603, "boom")
    assert (
        "the client answered the question for Confirm with an error instead of a result (code -32603: 'boom')"
        in str(error)
    )


def test_a_client_error_shows_a_bounded_client_message_and_keeps_it_whole() -> None:
    long = "x" * 100_000 + "\x00"
    error = ClientError("the question for Confirm", -32603, long)
    assert error.client_message == long
    assert len(str(error)) < 500
    assert "\x00" not in str(error)


class Audit:
    def __repr__(self) -> str:
        return "Audit(last={'pin': '4321'})"  # a repr may quote what the hook saw


def test_a_hook_error_carries_the_hook_stage_and_problem_by_type_only() -> None:
    raised = HookError.raised(Audit(), "on_answer", ValueError)
    assert (raised.hook, raised.stage, raised.problem) == ("Audit", "on_answer", "raised ValueError")
    assert str(raised).startswith("the elicitation hook Audit.on_answer failed: it raised ValueError.")
    returned = HookError.returned(Audit(), "on_answer", "str, not None or a dict with string keys")
    assert returned.problem == "returned str, not None or a dict with string keys"
    assert "4321" not in str(raised) + str(returned)


def test_a_missing_fallback_carries_the_function_and_reason() -> None:
    error = FallbackNotInstalled.for_function("book", "the client has no form mode")
    assert (error.function, error.reason) == ("book", "the client has no form mode")
    assert str(error) == (
        "cannot ask in book: the client has no form mode, and on_unsupported='fallback' needs the companion "
        "tool that relays the answer. Call `typed_elicit.install_fallback(server)` once, after creating the "
        "MCPServer."
    )
    assert FallbackNotInstalled("not installed").function is None


@pytest.mark.parametrize(
    ("problem", "wording"),
    [
        (
            "altered",
            "the token is not one this server issued, or it was altered; "
            "pass the token from the question unchanged.",
        ),
        ("other_server", "the token was issued by another server."),
        ("other_user", "the token was issued to another user."),
        ("expired", "the token has expired (tokens are valid for 600 s)."),
    ],
)
def test_an_unusable_fallback_token_says_which_problem_it_has(problem: TokenProblem, wording: str) -> None:
    error = InvalidFallbackToken.because(problem, ttl=600.0)
    assert error.problem == problem
    assert error.ttl == (600.0 if problem == "expired" else None)
    assert str(error) == f"{wording} Ask the tool again to get a fresh question and token."


def test_a_used_fallback_token_carries_its_tool() -> None:
    error = InvalidFallbackToken.because("used", tool="book")
    assert (error.problem, error.tool, error.ttl) == ("used", "book", None)
    assert str(error).startswith("the token was already used: each token delivers one answer, once,")
    assert "call the tool 'book' again" in str(error)


def test_a_usage_error_carries_its_problem_and_subject() -> None:
    swallowed = ElicitUsageError.swallowed("book")
    assert (swallowed.problem, swallowed.subject) == ("swallowed", "book")
    assert str(swallowed).startswith("book swallowed the signal with which ctx.elicit ends a round")
    outside = ElicitArgumentError.fallback_outside_tool("@elicits", "greet", "prompts/get")
    assert isinstance(outside, ElicitUsageError)
    assert (outside.problem, outside.subject) == ("argument", "@elicits")
    assert str(outside).startswith("@elicits got on_unsupported='fallback' in greet, which is not a tool")
    unwrapped = ElicitUsageError.unwrapped(None)
    assert (unwrapped.problem, unwrapped.subject) == ("unwrapped", None)
    assert "parameter '(unnamed)' is annotated ElicitContext" in str(unwrapped)
    assert "\n    @server.tool()\n    @elicits\n" in str(unwrapped)
    concurrent = ElicitUsageError.concurrent("book", 2)
    assert (concurrent.problem, concurrent.subject) == ("concurrent", "book")
    assert str(concurrent).startswith("book asked 2 questions at the same time")
    assert ElicitUsageError("misused").problem is None


def test_a_page_form_asked_in_form_mode_is_a_schema_error_naming_the_call() -> None:
    error = SchemaError.page_form("BillingKey", "ctx.elicit_all")
    assert error.model_name == "BillingKey"
    assert error.problems == (
        "BillingKey is a page form: ask it with ctx.elicit_page, not ctx.elicit_all (a page form is asked "
        "on a page of this server's own, never in the client's form mode)",
    )


def test_a_schema_error_and_an_invalid_response_carry_their_data() -> None:
    schema = SchemaError("Signup", ["Signup.age: not a wire type; use int"])
    assert (schema.model_name, schema.problems) == ("Signup", ("Signup.age: not a wire type; use int",))
    invalid = InvalidResponse(
        "Signup", [("age", "expected a number, got a string")], {"age": "secret"}, advice="Ask."
    )
    assert (invalid.model_name, invalid.errors, invalid.content, invalid.advice) == (
        "Signup",
        (("age", "expected a number, got a string"),),
        {"age": "secret"},
        "Ask.",
    )
    assert "secret" not in str(invalid)
    assert "secret" not in repr(invalid)


def test_the_client_errors_carry_their_data() -> None:
    schema = RequestedSchemaError(["properties.a: unknown type"])
    assert schema.problems == ("properties.a: unknown type",)
    answer = InvalidResponse.not_the_form([("a", "too long")], {"a": "x"})
    assert (answer.model_name, answer.errors, answer.content) == (
        "the requested form",
        (("a", "too long"),),
        {"a": "x"},
    )


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


@pytest.mark.parametrize(
    ("waited", "shown"), [(0.3, "0.30 s"), (0.004, "0.00 s"), (1.25, "1.2 s"), (42.6, "43 s")]
)
def test_a_late_answer_says_how_late_in_seconds_a_person_can_read(waited: float, shown: str) -> None:
    error = ElicitationTimeout.too_late("Size", 0.2, waited, "ctx.elicit", answered=True)
    assert f"arrived {shown} after it was asked, later than the 0.2 s timeout" in str(error)
