"""Declaration errors: the code declares or asks for something that cannot work; fix the code."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, Literal, TypeAlias

from typed_elicit._core.text import escaped
from typed_elicit.errors._base import DeclarationError, bounded, listed


class SchemaError(DeclarationError, TypeError):
    """A model cannot be elicited as declared.

    Raised when `@form` decorates the class (import time) or when `reduce_schema`
    first meets a model. The message lists every bad field, one per line, as
    `Model.field: what is wrong; how to fix it`.

    Attributes:
        model_name: The model's class name.
        problems: One line per bad field, in declaration order.
    """

    def __init__(self, model_name: str, problems: Sequence[str]) -> None:
        """Build the error.

        Args:
            model_name: The model's class name.
            problems: One line per bad field, as `Model.field: what is wrong; how to fix it`.
        """
        self.model_name = model_name
        self.problems = tuple(problems)
        super().__init__(listed(f"{model_name} cannot be elicited", len(self.problems), self.problems))

    @classmethod
    def page_form(cls, model_name: str, call: str) -> SchemaError:
        """A page form (`@form(page=True)`) was passed to a call that asks in form mode.

        Args:
            model_name: The model's class name.
            call: The call that got it (`"ctx.elicit"`, `"ctx.elicit_all"`).

        Returns:
            The error.
        """
        return cls(
            model_name,
            [
                f"{model_name} is a page form: ask it with ctx.elicit_page, not {call} (a page form is "
                "asked on a page of this server's own, never in the client's form mode)"
            ],
        )

    @classmethod
    def app_secret(cls, model_name: str, fields: Sequence[str]) -> SchemaError:
        """`@form(app=...)` on a model with secret fields, or on a page form: secrets stay page-only.

        Args:
            model_name: The model's class name.
            fields: The wire names of its secret fields (empty for a page form without any).

        Returns:
            The error, one problem per secret field.
        """
        why = (
            "an app view is shown by the client's host, so a secret would pass through it; secrets "
            "stay page-only: drop app= and ask the model with ctx.elicit_page (@form(page=True))"
        )
        if not fields:
            return cls(model_name, [f"{model_name} is a page form, which cannot have an app view: {why}"])
        return cls(model_name, [f"{model_name}.{name}: holds a secret; {why}" for name in fields])


class FallbackNotInstalled(DeclarationError, RuntimeError):
    """`on_unsupported="fallback"` was used on a server without the companion tool.

    Attributes:
        function: The tool function that asked.
        reason: Why the client could not be asked directly.
    """

    def __init__(self, message: str, *, function: str | None = None, reason: str | None = None) -> None:
        """Build the error from a finished message; `for_function` words it from the data.

        Args:
            message: What failed, why, and the fix.
            function: The tool function that asked.
            reason: Why the client could not be asked directly.
        """
        super().__init__(message)
        self.function = function
        self.reason = reason

    @classmethod
    def for_function(cls, function: str, reason: str) -> FallbackNotInstalled:
        """`function` needed the fallback, and the server has no companion tool.

        Args:
            function: The tool function that asked.
            reason: Why the client could not be asked directly.

        Returns:
            The error.
        """
        return cls(
            f"cannot ask in {function}: {reason}, and on_unsupported='fallback' needs the "
            "companion tool that relays the answer. Call "
            "`typed_elicit.install_fallback(server)` once, after creating the MCPServer.",
            function=function,
            reason=reason,
        )


UsageProblem: TypeAlias = Literal["unwrapped", "swallowed", "concurrent", "argument", "unsealed"]

"""Which misuse an `ElicitUsageError` reports, as its `problem` says."""


class ElicitUsageError(DeclarationError, RuntimeError):
    """typed_elicit is used in a way that cannot work; the message says how to fix it.

    Raised when the SDK meets a parameter annotated `ElicitContext` without
    `@elicits` (at registration), when one call asks questions concurrently
    through the fallback, when a function swallows the internal signal with which
    `ctx.elicit` ends a round (`except BaseException:` or a bare `except:`), and, as
    its subclass `ElicitArgumentError`, when a call gets an argument it cannot use
    (`on_unsupported="fallback"` for a prompt or resource among them), and when pages or the
    fallback are set up on a server without the keys its request state is sealed with.

    Attributes:
        problem: Which of these it is (`"unwrapped"`, `"concurrent"`, `"swallowed"`,
            `"argument"` or `"unsealed"`).
        subject: The function (for `"unwrapped"`, the parameter; for `"argument"`, the
            call; for `"unsealed"`, the setup call) concerned. None when pydantic names no
            parameter (`"unwrapped"` for an `ElicitContext` met outside a function's parameters).
    """

    def __init__(
        self, message: str, *, problem: UsageProblem | None = None, subject: str | None = None
    ) -> None:
        """Build the error from a finished message; the classmethods word it from the data.

        Args:
            message: What failed, why, and the fix.
            problem: Which misuse it is.
            subject: The function (or parameter) concerned.
        """
        super().__init__(message)
        self.problem: UsageProblem | None = problem
        self.subject = subject

    @classmethod
    def unsealed(cls, server: str, needs: str) -> ElicitUsageError:
        """`needs` (pages, the fallback) seals with the server's keys, and the server has none.

        Args:
            server: The server's name.
            needs: What needs the keys (`"serve_pages"`, `"install_fallback"`).

        Returns:
            The error.
        """
        return cls(
            f"{needs} on server {server!r} needs the keys its request state is sealed with, and the server "
            "has none (no RequestStateBoundary in its middleware): build it as MCPServer(..., "
            "request_state_security=RequestStateSecurity(keys=[shared_secret])) (several replicas share the "
            "secret), or add RequestStateBoundary(RequestStateSecurity(keys=[...]), default_audience=...) "
            "to a low-level server's middleware",
            problem="unsealed",
            subject=needs,
        )

    @classmethod
    def swallowed(cls, function: str) -> ElicitUsageError:
        """`function` caught the internal signal with which `ctx.elicit` ends a round.

        Args:
            function: The tool function's name.

        Returns:
            The error.
        """
        return cls(
            f"{function} swallowed the signal with which ctx.elicit ends a round, so its question was never "
            "sent: on protocol 2026-07-28 (and with on_unsupported='fallback') ctx.elicit asks by raising "
            "an internal BaseException that @elicits turns into the question. Something around "
            "ctx.elicit caught it (`except BaseException:`, a bare `except:`, or a `finally:` that returns "
            "or raises). Catch `Exception` (or the typed_elicit errors) instead, or re-raise it: "
            "`except BaseException: ...; raise`.",
            problem="swallowed",
            subject=function,
        )

    @classmethod
    def concurrent(cls, function: str, count: int) -> ElicitUsageError:
        """`function` asked `count` questions at the same time through the fallback.

        Args:
            function: The tool function's name.
            count: How many questions it asked together.

        Returns:
            The error.
        """
        return cls(
            f"{function} asked {count} questions at the same time (concurrent ctx.elicit calls, a task "
            "group or ctx.elicit_all) through the fallback, where the model answers one question per "
            "round: concurrent questions go through the client only. Ask them one after another "
            "(`a = await ctx.elicit(A)`, then `b = await ctx.elicit(B)`), or put their fields in one model.",
            problem="concurrent",
            subject=function,
        )

    @classmethod
    def unwrapped(cls, parameter: str | None) -> ElicitUsageError:
        """The SDK registers a function whose `ElicitContext` parameter has no `@elicits` around it.

        Args:
            parameter: The parameter's name, if the SDK gave it.

        Returns:
            The error.
        """
        return cls(
            f"the SDK is registering a function whose parameter {parameter or '(unnamed)'!r} is annotated "
            "ElicitContext without @elicits in between: put @elicits directly under the SDK's "
            "decorator (and not above it), e.g.\n"
            "    @server.tool()\n"
            "    @elicits\n"
            "    async def book(city: str, ctx: ElicitContext) -> str: ...",
            problem="unwrapped",
            subject=parameter,
        )


class ElicitArgumentError(ElicitUsageError):
    """A typed_elicit call got an argument it cannot use; the message says what, why and the fix.

    Raised by every `ElicitContext` method (`elicit`, `elicit_all`, `elicit_url`,
    `elicit_page`, `complete_url`, `once`) and by `@elicits`, `add_hooks`,
    `remove_hooks` and `set_default_timeout`, before anything is asked. Being a
    `TypedElicitError`, it reaches the client as the tool's error with its text
    (`@elicits`), not as the SDK's bare "Error executing tool".

    It is neither a `ValueError` nor a `TypeError` (before 0.3 it was both): a mistake in
    how typed_elicit is called is no bad value of the tool's own, so an `except ValueError`
    around the tool's own code never hides it. `except ElicitArgumentError` (or its base,
    `ElicitUsageError`, a `RuntimeError`) catches every one.

    Attributes:
        problem: Always `"argument"`.
        subject: The call that got the argument, as the tool wrote it (`"ctx.elicit_all"`,
            `"@elicits"`).
        argument: The argument's name (`"options"`, `"timeout"`, `"model"`).
        reason: What is wrong with it, after the call's name (`"needs ..."`, `"got ..."`);
            never an answer's value.
        fix: How to call it instead.
    """

    def __init__(self, call: str, argument: str, reason: str, fix: str) -> None:
        """Build the error from its data: the message is `"{call} {reason}. {fix}"`.

        Args:
            call: The call that got the argument.
            argument: The argument's name.
            reason: What is wrong with it, worded to follow the call's name.
            fix: How to call it instead (a sentence).
        """
        super().__init__(f"{call} {reason}. {fix}", problem="argument", subject=call)
        self.argument = argument
        self.reason = reason
        self.fix = fix

    @classmethod
    def fallback_outside_tool(cls, call: str, function: str, method: str) -> ElicitArgumentError:
        """`on_unsupported="fallback"` for a function that serves a prompt or resource, not a tool.

        Raised wherever the policy is set (`@elicits` or the asking call), before anything is asked.

        Args:
            call: Where the policy was given (`"@elicits"`, `"ctx.elicit"`, `"ctx.elicit_all"`).
            function: The decorated function's name.
            method: The request it serves (e.g. `"prompts/get"`).

        Returns:
            The error.
        """
        return cls(
            call,
            "on_unsupported",
            f"got on_unsupported='fallback' in {function}, which is not a tool but serves {method}: the "
            "fallback re-runs a tool call through the model, so it works for tools only",
            f"Pass on_unsupported='raise', 'defaults' or 'decline' to {call} for a prompt or resource.",
        )

    @classmethod
    def longer_than_state(cls, call: str, function: str, timeout: float, ttl: float) -> ElicitArgumentError:
        """A 2026-07-28 question whose timeout outlives the server's request state.

        Args:
            call: The asking call (`"ctx.elicit"`, ...).
            function: The decorated function's name.
            timeout: The question's timeout, in seconds.
            ttl: The server's request-state TTL, in seconds.

        Returns:
            The error.
        """
        return cls(
            call,
            "timeout",
            f"in {function} has a {timeout:g} s timeout, longer than the {ttl:g} s this server's "
            "2026-07-28 request state lives (its RequestStateSecurity ttl): the SDK would refuse a "
            "later answer as 'Invalid or expired requestState'",
            f"Pass a timeout of at most {ttl:g} s, or give the server a longer ttl: MCPServer(..., "
            "request_state_security=RequestStateSecurity.ephemeral(ttl=...)) for one process, or "
            "RequestStateSecurity(keys=[secret], ttl=...) for several replicas.",
        )


class OptionsError(DeclarationError, ValueError):
    """The options or defaults given for one question do not fit its model.

    Raised by `ctx.elicit(..., options=..., defaults=...)` and `reduce_schema(...)`
    before anything is sent: a `Choices()` field asked without options, options or a
    default for a field the model does not have, options for a field that is no
    `Choices()` field, empty or duplicate options, a default that is not among the
    offered options or breaks the field's own constraints, or a default the negotiated
    revision cannot carry. Every problem of the call is listed, one per line, as
    `Model.field: what is wrong; how to fix it`. The offered values come from the
    server's own code, so a bad default is quoted (shortened); no answer is ever quoted.

    Attributes:
        model_name: The model's class name.
        problems: One line per problem, in the model's field order.
        fields: The field names concerned, in the same order (a name may repeat).
    """

    def __init__(self, model_name: str, problems: Sequence[tuple[str, str]]) -> None:
        """Build the error.

        Args:
            model_name: The model's class name.
            problems: One `(field name, what is wrong; how to fix it)` pair per problem.
        """
        self.model_name = model_name
        self.fields = tuple(name for name, _ in problems)
        self.problems = tuple(f"{model_name}.{name}: {text}" for name, text in problems)
        what = f"the options or defaults for {model_name} do not fit it"
        super().__init__(listed(what, len(self.problems), self.problems))


class PagesNotServed(DeclarationError, RuntimeError):
    """A page question was asked on a server that serves no pages.

    Attributes:
        server_name: The server's name.
    """

    def __init__(self, server_name: str) -> None:
        self.server_name = server_name
        super().__init__(
            f"ctx.elicit_page needs the server {server_name!r} to serve its pages, and it does not: "
            'call typed_elicit.pages.serve_pages(server, public_url="https://...") once after creating it'
        )


class PageSetupError(DeclarationError, ValueError):
    """A page setting (of `serve_pages`, or a `Brand`: how a page or an app view looks) cannot be used.

    Raised when the setting is made, never while a page is served. The message says what is
    wrong and the fix; a refused logo URL or words override is not quoted back.

    Attributes:
        setting: The setting refused: `logo_url`, `css`, `words`, `public_url`, `path`,
            `poll_seconds`, or `server` (pages served twice on one server).
    """

    def __init__(self, setting: str, message: str) -> None:
        """Build the error.

        Args:
            setting: The setting refused.
            message: What is wrong with it, and the fix.
        """
        self.setting = setting
        super().__init__(message)

    @classmethod
    def logo_url(cls, why: str) -> PageSetupError:
        """A `Brand(logo_url=...)` that is neither a plain https URL nor a base64 image data URL."""
        return cls(
            "logo_url",
            f"Brand logo_url cannot be used: {why}. Its host goes into the page's "
            "Content-Security-Policy, so it must be an https URL with a plain host name or IP address "
            'and an optional port, e.g. "https://cdn.example.com/logo.svg" (percent-encode any other '
            'character of its path), or a base64 image data URL, e.g. "data:image/png;base64,iVBORw0KGgo="',
        )

    @classmethod
    def words(cls, why: str) -> PageSetupError:
        """A `serve_pages(words=...)` override that is not a table of the page's words."""
        return cls(
            "words",
            f"serve_pages words cannot be used: {why}. Give a mapping from keys of the default "
            "table (docs/pages.md, 'What a page says about an invalid answer') to texts",
        )


_URL_FORM: Final = (
    "write it as redis://host:6379/0 (the database number after the port; "
    "redis://:password@host:6379/0 with a password, rediss:// for TLS, "
    "unix:///path/to/redis.sock?db=0 for a socket)"
)


class StoreUrlError(DeclarationError, ValueError):
    """A store URL that names no Redis: refused before anything connects.

    The message says what is wrong and how to write the URL; it never quotes the URL
    (it may carry a password).

    Attributes:
        problem: What is wrong with the URL, in a few words.
    """

    def __init__(self, problem: str, *, advice: str = _URL_FORM) -> None:
        """Build the error.

        Args:
            problem: What is wrong with the URL (never a part of it that may hold a secret).
            advice: How to write a URL of the kind given (`write it as ...`; by default
                the single-node form).
        """
        self.problem = problem
        super().__init__(f"a Redis store URL {problem}; {advice}")


REQUESTED_PROBLEM_LENGTH: Final = 300
"""Longest problem line a `RequestedSchemaError` keeps (a schema's values are shown shortened)."""


class RequestedSchemaError(DeclarationError, ValueError):
    """A server's requested schema is not a valid elicitation schema.

    The client answers such a request with a JSON-RPC error (-32602) instead of
    showing a form it cannot render or validate.

    Attributes:
        problems: One line per problem, as `path: what is wrong` (at most `MAX_PROBLEMS`
            lines, the last counting any others, of at most 300 characters; values are shown
            shortened and ASCII-escaped).
    """

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = bounded(
            problems, lambda problem: escaped(problem, REQUESTED_PROBLEM_LENGTH), lambda more: more
        )
        what = "the requested schema is not a valid elicitation schema"
        super().__init__(listed(what, len(problems), self.problems))


class ScriptMistake(DeclarationError, AssertionError):
    """The test's script went wrong, not the tool: no answer left, or an answer that does not fit.

    A question came with no scripted answer left, or an `accept` did not fit the question
    it answered. Raised by `call_tool`, `get_prompt` and `read_resource` of a client opened with
    `connect` (or the `elicit_connect` fixture) on every protocol revision, after the
    call the mistake happened in. It is an `AssertionError`, so pytest reports it as a
    failed test, never as a tool result a test could take for the tool's own error.

    Attributes:
        problems: The mistakes made during the call, one line each.
    """

    def __init__(self, problems: list[str]) -> None:
        self.problems = tuple(problems)
        super().__init__("ScriptedUser: " + "; ".join(self.problems))
