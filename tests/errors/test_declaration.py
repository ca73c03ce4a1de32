"""The errors of a misdeclared form or a misused call: each keeps its data, its message worded from it."""

from __future__ import annotations

from typed_elicit.errors import (
    ElicitArgumentError,
    ElicitationUnsupported,
    ElicitUsageError,
    FallbackNotInstalled,
    InvalidResponse,
    RequestedSchemaError,
    SchemaError,
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


def test_a_missing_fallback_carries_the_function_and_reason() -> None:
    error = FallbackNotInstalled.for_function("book", "the client has no form mode")
    assert (error.function, error.reason) == ("book", "the client has no form mode")
    assert str(error) == (
        "cannot ask in book: the client has no form mode, and on_unsupported='fallback' needs the companion "
        "tool that relays the answer. Call `typed_elicit.install_fallback(server)` once, after creating the "
        "MCPServer."
    )
    assert FallbackNotInstalled("not installed").function is None


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


def test_the_client_errors_carry_their_data() -> None:
    schema = RequestedSchemaError(["properties.a: unknown type"])
    assert schema.problems == ("properties.a: unknown type",)
    answer = InvalidResponse.not_the_form([("a", "too long")], {"a": "x"})
    assert (answer.model_name, answer.errors, answer.content) == (
        "the requested form",
        (("a", "too long"),),
        {"a": "x"},
    )
