"""The errors of a question that got no usable answer: each keeps its data, its message worded from it."""

from __future__ import annotations

import pytest

from typed_elicit.errors import (
    ClientError,
    ElicitationTimeout,
    ElicitationUnsupported,
    HookError,
    InvalidResponse,
    SchemaError,
)

FALLBACK = "'fallback' (the model relays the question; needs install_fallback(server))"


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


@pytest.mark.parametrize(
    ("waited", "shown"), [(0.3, "0.30 s"), (0.004, "0.00 s"), (1.25, "1.2 s"), (42.6, "43 s")]
)
def test_a_late_answer_says_how_late_in_seconds_a_person_can_read(waited: float, shown: str) -> None:
    error = ElicitationTimeout.too_late("Size", 0.2, waited, "ctx.elicit", answered=True)
    assert f"arrived {shown} after it was asked, later than the 0.2 s timeout" in str(error)


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
