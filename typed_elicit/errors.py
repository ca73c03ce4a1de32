"""Every error typed_elicit raises derives from `TypedElicitError`.

Each error keeps what went wrong as attributes, and its message is worded from them
(as cattrs keeps the data of a validation failure apart from its wording): code reads
the attributes, people read the message. Every raise goes through a builder that takes
the situation's data: a classmethod (`ElicitationTimeout.unanswered(...)`,
`ReplayMismatch.between_rounds(...)`, ...) or a constructor that takes data, not a
message (`SchemaError(model_name, problems)`). The message-first constructors of the
older classes stay for code that built errors with them; typed_elicit never uses them.
An attribute is None only where its docstring says "None when ...": the situation has
no such data.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final, Literal, Protocol, TypeAlias, TypeVar

from typed_elicit._core.text import escaped


class TypedElicitError(Exception):
    """Base class of every error typed_elicit raises.

    Each message says what failed, why, and how to fix it.
    """


class SchemaError(TypedElicitError, TypeError):
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
        count = len(self.problems)
        header = f"{model_name} cannot be elicited ({count} problem{'s' if count != 1 else ''}):"
        super().__init__("\n".join([header, *(f"  - {p}" for p in self.problems)]))

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


RETRY_ADVICE = "Pass retries=N to ctx.elicit to ask the user again with these problems stated."
"""What `InvalidResponse` advises unless its raiser knows better."""


MAX_PROBLEMS: Final = 20
"""An error lists at most this many problems; the last one then counts the rest (`bounded`)."""
MAX_PATH_LENGTH: Final = 64
"""Longest field path `InvalidResponse` keeps (a stray key is client-controlled text)."""
MAX_PROBLEM_LENGTH: Final = 200
"""Longest problem text `InvalidResponse` keeps (a model's own validator may quote the value)."""


class InvalidResponse(TypedElicitError, ValueError):
    """The client accepted, but its content does not satisfy the model.

    Also raised when the client's result is not a valid elicitation result at all.

    The message names each bad field and its problem, never the answer's values: it is
    logged by the SDK (INFO) and shown to the model as the tool's error. Problem texts
    are bounded: at most `MAX_PROBLEMS` problems (the last counting any others), paths
    cut to `MAX_PATH_LENGTH` and texts to `MAX_PROBLEM_LENGTH` characters (ending in
    `...`), lone surrogates and other unprintable characters escaped. Only a model's own
    validator message can quote a value (typed_elicit's checks name the kind instead:
    "expected a number, got a string"); keep such messages value-free.

    Attributes:
        model_name: The model the answer was validated against.
        errors: One `(field path, message)` pair per problem, bounded as above.
        content: The raw content the client sent, unchanged: for the tool's own code only.
            None when the client's result carried no content.
        advice: The message's last sentence: how to fix it.
    """

    def __init__(
        self,
        model_name: str,
        errors: Iterable[tuple[str, str]],
        content: Mapping[str, Any] | None,
        *,
        advice: str = RETRY_ADVICE,
    ) -> None:
        """Build the error.

        Args:
            model_name: The model the answer was validated against.
            errors: One `(field path, message)` pair per problem.
            content: The raw content the client sent (kept as `content`, never shown).
            advice: The last sentence of the message: how to fix it.
        """
        self.model_name = model_name
        self.errors = _bounded(errors)
        self.content = content
        self.advice = advice
        lines = "; ".join(f"{path}: {msg}" for path, msg in self.errors)
        super().__init__(
            f"the answer to {model_name} is invalid: {lines}. (The answer's values are not shown; "
            f"the tool reads them as InvalidResponse.content.) {advice}"
        )

    @classmethod
    def too_large(cls, subject: str, limit: int, default: int) -> InvalidResponse:
        """An answer over `@elicits(max_answer_bytes=...)`; it keeps no content.

        Args:
            subject: The model asked for.
            limit: The limit, in bytes of compact JSON content.
            default: The limit's default, for the advice.

        Returns:
            The error.
        """
        return cls(
            subject,
            [("(answer)", f"the answer is larger than the limit of {limit} bytes")],
            None,
            advice=(
                f"An answer may carry at most {limit} bytes of JSON content "
                f"(@elicits(max_answer_bytes=...), {default} by default), so that it fits in the "
                "request state a 2026-07-28 round carries. Ask for less per question (set max_length "
                "on long text fields, or split the form), or pass a larger max_answer_bytes to @elicits."
            ),
        )

    @classmethod
    def malformed_result(cls, subject: str) -> InvalidResponse:
        """The client's elicitation result is no valid result at all (never asked again).

        Args:
            subject: What was asked.

        Returns:
            The error.
        """
        return cls(
            subject,
            [("(result)", "the client's elicitation result is malformed")],
            None,
            advice=(
                "This is the client's failure, not the user's answer, and is never asked again: "
                "fix the client, or catch InvalidResponse to carry on without the answer."
            ),
        )

    def out_of_retries(self, retries: int) -> InvalidResponse:
        """This error as raised once the re-asks are used up: with `retries` > 0 its advice says so.

        Args:
            retries: The re-asks the question allowed.

        Returns:
            This error (no re-asks allowed), or one whose advice counts the attempts.
        """
        if retries == 0:
            return self
        return type(self)(
            self.model_name,
            self.errors,
            self.content,
            advice=(
                f"The user was asked {retries + 1} times (retries={retries}) and no answer was valid; "
                "catch InvalidResponse to carry on without it, or make the form easier to fill in "
                "(clearer message, titles, descriptions)."
            ),
        )


T = TypeVar("T")


def bounded(problems: Iterable[T], shown: Callable[[T], T], counted: Callable[[str], T]) -> tuple[T, ...]:
    """At most `MAX_PROBLEMS` of `problems`, each as `shown` makes it; the last counts any others.

    The one bound on the problems an error lists (`InvalidResponse`, and the client's
    `RequestedSchemaError`). Only the kept problems are shown, however many there are.

    Args:
        problems: The problems, in order.
        shown: Makes one problem fit a message (cuts and escapes its texts).
        counted: Makes the last problem out of "and N more problems".

    Returns:
        The problems to keep.
    """
    kept: list[T] = []
    more = 0
    for problem in problems:
        if len(kept) < MAX_PROBLEMS:
            kept.append(shown(problem))
        else:
            more += 1
    if more:
        more += 1  # the last kept problem makes way for the count
        kept[-1] = counted(f"and {more} more problem{'s' if more != 1 else ''}")
    return tuple(kept)


def _bounded(errors: Iterable[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    """`errors` bounded as `InvalidResponse` promises; already bounded errors come back unchanged."""
    return bounded(
        errors,
        lambda error: (_shown(error[0], MAX_PATH_LENGTH), _shown(error[1], MAX_PROBLEM_LENGTH)),
        lambda more: ("(form)", more),
    )


def _shown(text: str, limit: int) -> str:
    """`text` with unprintable characters escaped, cut to `limit` characters (`_text.escaped`)."""
    return escaped(text, limit)


Policy: TypeAlias = Literal["raise", "defaults", "decline", "fallback"]
"""An `on_unsupported` policy, as `ElicitationUnsupported.advised` names them."""


def _either(options: Sequence[str]) -> str:
    """`a`, `a or b`, `a, b or c`."""
    return options[0] if len(options) == 1 else f"{', '.join(options[:-1])} or {options[-1]}"


_TAKE_ON_UNSUPPORTED: Final = ("ctx.elicit", "ctx.elicit_all", "ctx.elicit_url")
"""The asking calls that take an `on_unsupported=` of their own (`ctx.elicit_page` does not)."""


def _advice(
    policies: str, asker: str, purpose: str = "", *, start: str = "Pass", decorator: bool = True
) -> str:
    """The sentence advising `policies` where a question `asker` asked takes them: that call, or `@elicits`.

    Args:
        policies: The policies, as the message writes them (`"'decline'"`).
        asker: The call the tool made to ask.
        purpose: What the policy achieves, e.g. `" to carry on without asking"`.
        start: The sentence's first word (`"pass"` inside a sentence).
        decorator: Whether to name `@elicits` beside a call that takes the policy itself.
    """
    if asker not in _TAKE_ON_UNSUPPORTED:
        return (
            f"{start} on_unsupported={policies} to @elicits{purpose} "
            f"({asker} takes no on_unsupported= of its own)."
        )
    where = f"to {asker} or @elicits" if decorator else f"to {asker}"
    return f"{start} on_unsupported={policies} {where}{purpose}."


class ElicitationUnsupported(TypedElicitError):
    """The client did not declare the elicitation capability this question needs.

    Attributes:
        mode: The elicitation mode the question needed (`"form"` or `"url"`).
        subject: The model asked for (its class name). None when the question is a
            URL-mode one (`ctx.elicit_url`, a page's consent), which asks for no model.
        reason: Why the client cannot be asked (e.g. "the client did not declare the
            elicitation capability").
        missing: The fields without a default, when `on_unsupported="defaults"` could not
            fill the model; else empty.
        advised: The policies the message advises, as written in it (e.g. `"'decline'"`).
        asker: The call the tool made to ask (`"ctx.elicit"`, `"ctx.elicit_all"`,
            `"ctx.elicit_url"`, `"ctx.elicit_page"`): the advice names where its policy goes.
    """

    def __init__(
        self,
        message: str,
        *,
        mode: Literal["form", "url"] = "form",
        subject: str | None = None,
        reason: str | None = None,
        missing: Sequence[str] = (),
        advised: Sequence[str] = (),
        asker: str | None = None,
    ) -> None:
        """Build the error from a finished message; the classmethods word it from the data.

        Args:
            message: What failed, why, and the fix.
            mode: The elicitation mode the question needed.
            subject: The model asked for (its class name).
            reason: Why the client cannot be asked.
            missing: The fields without a default.
            advised: The policies the message advises.
            asker: The call the tool made to ask.
        """
        super().__init__(message)
        self.mode: Literal["form", "url"] = mode
        self.subject = subject
        self.reason = reason
        self.missing = tuple(missing)
        self.advised = tuple(advised)
        self.asker = asker

    @classmethod
    def for_form(
        cls, subject: str, reason: str, advised: Sequence[str], asker: str = "ctx.elicit"
    ) -> ElicitationUnsupported:
        """A form question the client cannot take (`on_unsupported="raise"`).

        Args:
            subject: The model asked for (its class name).
            reason: Why the client cannot be asked.
            advised: The policies that would carry on here, as the message writes them.
            asker: The call the tool made to ask (`"ctx.elicit"` or `"ctx.elicit_all"`).

        Returns:
            The error.
        """
        return cls(
            f"cannot ask for {subject}: {reason}. "
            + _advice(_either(advised), asker, " to carry on without asking the client"),
            subject=subject,
            reason=reason,
            advised=advised,
            asker=asker,
        )

    @classmethod
    def without_defaults(
        cls,
        subject: str,
        reason: str,
        missing: Sequence[str],
        advised: Sequence[str],
        asker: str = "ctx.elicit",
    ) -> ElicitationUnsupported:
        """`on_unsupported="defaults"` met a model with fields that have no default.

        Args:
            subject: The model asked for (its class name).
            reason: Why the client cannot be asked.
            missing: The fields without a default.
            advised: The policies that would carry on here, as the message writes them.
            asker: The call the tool made to ask (`"ctx.elicit"` or `"ctx.elicit_all"`).

        Returns:
            The error.
        """
        return cls(
            f"cannot ask for {subject}: {reason}; on_unsupported='defaults' needs a default "
            f"for every field, but {subject} has none for {', '.join(missing)}. Give "
            f"those fields defaults, or {_advice(_either(advised), asker, start='pass')}",
            subject=subject,
            reason=reason,
            missing=missing,
            advised=advised,
            asker=asker,
        )

    @classmethod
    def for_url(cls, reason: str, asker: str = "ctx.elicit_url") -> ElicitationUnsupported:
        """A URL question the client cannot take.

        Args:
            reason: Why the client cannot be asked (with why a policy counts as "raise").
            asker: The call the tool made to ask (`"ctx.elicit_url"` or `"ctx.elicit_page"`).

        Returns:
            The error.
        """
        return cls(
            f"cannot send the user to a URL: {reason}. "
            + _advice("'decline'", asker, " to carry on without asking", decorator=False),
            mode="url",
            reason=reason,
            advised=("'decline'",),
            asker=asker,
        )


class ClientError(TypedElicitError, RuntimeError):
    """The client answered a question with a JSON-RPC error instead of a result.

    This is the client's failure, not the user's answer (a timeout is
    `ElicitationTimeout` instead). The SDK's `MCPError` is the `__cause__`.

    Attributes:
        question: Which question failed, e.g. `"the question for Confirm"`.
        code: The client's JSON-RPC error code.
        client_message: The client's error message, whole (the message shows at most
            `MAX_PROBLEM_LENGTH` characters of it, unprintable ones escaped).
    """

    def __init__(self, question: str, code: int, client_message: str) -> None:
        """Build the error.

        Args:
            question: Which question failed, e.g. `"the question for Confirm"`.
            code: The client's JSON-RPC error code.
            client_message: The client's error message.
        """
        self.question = question
        self.code = code
        self.client_message = client_message
        shown = _shown(client_message, MAX_PROBLEM_LENGTH)
        super().__init__(
            f"the client answered {question} with an error instead of a result (code {code}: "
            f"{shown!r}). This is the client's failure, not the user's answer: catch "
            "ClientError to carry on without the answer, or retry the call."
        )


class ElicitationTimeout(TypedElicitError, TimeoutError):
    """The user did not answer in time, or a 2026-07-28 round's state expired.

    Attributes:
        subject: What was asked (e.g. the model's name).
        timeout: The limit that passed, in seconds: the question's timeout, or the call's
            `call_timeout` when `scope` is `"call"`.
        waited: Seconds since the question was asked (or the call started); a push
            question's wait is its timeout.
        scope: `"question"` (the question's timeout passed) or `"call"` (the call's).
        answered: Whether an answer came, too late.
    """

    def __init__(
        self,
        message: str,
        *,
        subject: str | None = None,
        timeout: float | None = None,
        waited: float | None = None,
        scope: Literal["question", "call"] = "question",
        answered: bool = False,
    ) -> None:
        """Build the error from a finished message; the classmethods word it from the data.

        Args:
            message: What failed, why, and the fix.
            subject: What was asked.
            timeout: The limit that passed, in seconds.
            waited: Seconds since the question was asked (or the call started).
            scope: Whose limit passed: the question's or the call's.
            answered: Whether an answer came, too late.
        """
        super().__init__(message)
        self.subject = subject
        self.timeout = timeout
        self.waited = waited
        self.scope: Literal["question", "call"] = scope
        self.answered = answered

    @classmethod
    def unanswered(cls, subject: str, timeout: float, asker: str) -> ElicitationTimeout:
        """A pushed question got no answer within its timeout (and was cancelled).

        Args:
            subject: What was asked.
            timeout: The question's timeout, in seconds.
            asker: The call to pass `timeout=` to (`"ctx.elicit"` or `"ctx.elicit_url"`).

        Returns:
            The error.
        """
        return cls(
            f"no answer to {subject} within {timeout:g} s; the pending question was "
            f"cancelled (notifications/cancelled sent). Pass timeout= to {asker} or "
            "@elicits to wait longer.",
            subject=subject,
            timeout=timeout,
            waited=timeout,
        )

    @classmethod
    def page_not_submitted(
        cls, subject: str, timeout: float, *, poll_seconds: float | None = None
    ) -> ElicitationTimeout:
        """A page question's page was not submitted within its timeout (the link has expired).

        Args:
            subject: The model asked for.
            timeout: The question's timeout, in seconds.
            poll_seconds: On 2026-07-28, how long each round waited for the page
                (`serve_pages(poll_seconds=...)`); the message then names the client's budget
                of rounds when the timeout is longer than it. None on push eras.

        Returns:
            The error.
        """
        budget = ""
        rounds = 10  # the SDK client's default input_required_max_rounds
        if poll_seconds is not None and timeout > rounds * poll_seconds:
            budget = (
                f" On 2026-07-28 the client polls the page: each round waits up to {poll_seconds:g} s, and "
                f"the SDK's client stops after input_required_max_rounds rounds ({rounds} by default), so by "
                f"default it gives up after about {rounds * poll_seconds:g} s whatever the timeout: raise "
                "serve_pages(poll_seconds=...) or the client's input_required_max_rounds too."
            )
        return cls(
            f"the page for {subject} was not submitted within {timeout:g} s, and its link has expired. "
            f"Pass timeout= to ctx.elicit_page or @elicits to give the user longer.{budget}",
            subject=subject,
            timeout=timeout,
            waited=timeout,
        )

    @classmethod
    def too_late(
        cls, subject: str, timeout: float, waited: float, asker: str, *, answered: bool
    ) -> ElicitationTimeout:
        """A 2026-07-28 (or fallback) question's timeout passed before its answer came.

        Args:
            subject: What was asked.
            timeout: The question's timeout, in seconds.
            waited: Seconds since the question was asked.
            asker: The call to pass `timeout=` to (`"ctx.elicit"` or `"ctx.elicit_url"`).
            answered: Whether the answer came (too late), or the round only refreshed it.

        Returns:
            The error.
        """
        fix = (
            f"Pass timeout= to {asker} or @elicits to wait longer (and keep the server's "
            "RequestStateSecurity ttl above it)."
        )
        if answered:
            message = (
                f"the answer to {subject} arrived {waited:.0f} s after it was asked, later than "
                f"the {timeout:g} s timeout. {fix}"
            )
        else:
            message = (
                f"no answer to {subject} within {timeout:g} s: it was asked {waited:.0f} s ago, and "
                f"asking again does not restart its timeout. Call the tool again to start afresh. {fix}"
            )
        return cls(message, subject=subject, timeout=timeout, waited=waited, answered=answered)

    @classmethod
    def call_expired(cls, function: str, subject: str, limit: float, age: float) -> ElicitationTimeout:
        """A 2026-07-28 (or fallback) call outlived its `call_timeout`.

        Args:
            function: The tool function's name.
            subject: What was being asked.
            limit: The call's `call_timeout`, in seconds.
            age: Seconds since the call's first round.

        Returns:
            The error.
        """
        return cls(
            f"this call of {function} started {age:.0f} s ago, longer than its {limit:g} s "
            f"limit, so {subject} can no longer be answered. Call the tool again to start afresh, "
            "or pass a longer call_timeout= to @elicits.",
            subject=subject,
            timeout=limit,
            waited=age,
            scope="call",
        )


class Described(Protocol):
    """A recorded question: anything that says what it asked, without its answer."""

    def describe(self) -> str:
        """A short human-readable form for error messages (model, key and digest; no values)."""
        ...


class ReplayMismatch(TypedElicitError, RuntimeError):
    """On a 2026-07-28 retry, the tool asked a different question than the one recorded.

    Between rounds the tool body runs again from the top; the code before each
    `ctx.elicit` must ask the same questions in the same order.

    Attributes:
        index: The question's position in the call, from 0.
        recorded: The question recorded there when the client answered it.
        asked: The question this round asked there instead.
    """

    def __init__(
        self,
        message: str,
        *,
        index: int | None = None,
        recorded: Described | None = None,
        asked: Described | None = None,
    ) -> None:
        """Build the error from a finished message; `between_rounds` words it from the data.

        Args:
            message: What failed, why, and the fix.
            index: The question's position in the call, from 0.
            recorded: The question recorded there.
            asked: The question this round asked there instead.
        """
        super().__init__(message)
        self.index = index
        self.recorded = recorded
        self.asked = asked

    @classmethod
    def between_rounds(cls, index: int, recorded: Described, asked: Described) -> ReplayMismatch:
        """Question `index` was `recorded` when answered, but this round asked `asked`.

        Args:
            index: The question's position in the call, from 0.
            recorded: The question recorded there when the client answered it.
            asked: The question this round asked there instead.

        Returns:
            The error.
        """
        return cls(
            f"question #{index + 1} of this call was {recorded.describe()} when the client answered it, "
            f"but this round asked {asked.describe()} there. On protocol 2026-07-28 the function runs "
            "again from the top on every round and earlier answers are replayed in order, so the code "
            "before each ctx.elicit must be deterministic: the same arguments and answers must lead to "
            "the same questions in the same order. Wrap side effects and changing reads (time, random, "
            "databases) in `await ctx.once(key, fn)`.",
            index=index,
            recorded=recorded,
            asked=asked,
        )


HookStage: TypeAlias = Literal["on_question", "on_answer"]
"""Which method of an `ElicitHook` failed, as `HookError.stage` says."""


class HookError(TypedElicitError, RuntimeError):
    """An elicitation hook raised, or returned something it may not.

    The message reaches the client and the model (as the tool's error), so it names the
    hook's class, the stage and the TYPE of what went wrong, never a hook's own words:
    a hook's exception text, its `repr` and what it returned may all quote an answer.
    The hook's own exception, if any, is the `__cause__`, for the server's logs only.
    Nothing is retried: the question (or answer) the hook was looking at is abandoned
    and the call fails.

    Attributes:
        hook: The failing hook's class, as `type(hook).__qualname__`.
        stage: `"on_question"` or `"on_answer"`.
        problem: What went wrong, by type only: `"raised ValueError"`, or what it returned
            (`"returned str, not None or a dict with string keys"`).
    """

    def __init__(self, hook: str, stage: str, problem: str) -> None:
        """Build the error from its data; `raised` and `returned` word `problem` for a hook.

        Args:
            hook: The failing hook's class name.
            stage: `"on_question"` or `"on_answer"`.
            problem: What went wrong (no value from the hook or the answer).
        """
        self.hook = hook
        self.stage = stage
        self.problem = problem
        super().__init__(
            f"the elicitation hook {hook}.{stage} failed: it {problem}. Fix the hook, or remove it "
            "(remove_hooks, or the hooks= of @elicits)."
        )

    @classmethod
    def raised(cls, hook: object, stage: HookStage, error: type[BaseException]) -> HookError:
        """`hook`'s `stage` raised an exception of type `error` (chain the exception itself).

        Args:
            hook: The failing hook.
            stage: The method that raised.
            error: The type of the exception it raised.

        Returns:
            The error.
        """
        return cls(type(hook).__qualname__, stage, f"raised {error.__qualname__}")

    @classmethod
    def returned(cls, hook: object, stage: HookStage, what: str) -> HookError:
        """`hook`'s `stage` returned something it may not.

        Args:
            hook: The failing hook.
            stage: The method that returned it.
            what: What it returned and why that is wrong, by type only (never the value).

        Returns:
            The error.
        """
        return cls(type(hook).__qualname__, stage, f"returned {what}")


class FallbackNotInstalled(TypedElicitError, RuntimeError):
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


TokenProblem: TypeAlias = Literal["altered", "expired", "used", "other_server", "other_user"]
"""Why a fallback token is unusable, as `InvalidFallbackToken.problem` says."""

_TOKEN_FIX: Final = "Ask the tool again to get a fresh question and token."


class InvalidFallbackToken(TypedElicitError, ValueError):
    """A token handed to the fallback companion tool is unusable.

    It was tampered with, has expired, was already used, or is not for this server.

    Attributes:
        problem: Which of these it is.
        tool: The tool the token was for. None when the problem is not `"used"`: only a
            token that was used is read far enough to know its tool.
        ttl: How long tokens are valid, in seconds. None when the problem is not
            `"expired"`.
    """

    def __init__(
        self,
        message: str,
        *,
        problem: TokenProblem | None = None,
        tool: str | None = None,
        ttl: float | None = None,
    ) -> None:
        """Build the error from a finished message; `because` words it from the data.

        Args:
            message: What failed, why, and the fix.
            problem: Why the token is unusable.
            tool: The tool the token was for.
            ttl: How long tokens are valid, in seconds.
        """
        super().__init__(message)
        self.problem: TokenProblem | None = problem
        self.tool = tool
        self.ttl = ttl

    @classmethod
    def because(cls, problem: TokenProblem, *, tool: str = "", ttl: float = 0.0) -> InvalidFallbackToken:
        """The error for `problem`, worded as the companion tool shows it.

        Args:
            problem: Why the token is unusable.
            tool: The tool the token was for (worded when `problem` is `"used"`).
            ttl: How long tokens are valid, in seconds (worded when `problem` is `"expired"`).

        Returns:
            The error.
        """
        if problem == "used":
            message = (
                "the token was already used: each token delivers one answer, once, and the tool "
                f"already ran with it. To answer again, call the tool {tool!r} again; it asks "
                "the question again and gives a fresh token."
            )
            return cls(message, problem=problem, tool=tool)
        if problem == "expired":
            message = f"the token has expired (tokens are valid for {ttl:g} s). {_TOKEN_FIX}"
            return cls(message, problem=problem, ttl=ttl)
        message = {
            "altered": "the token is not one this server issued, or it was altered; pass the token from "
            "the question unchanged.",
            "other_server": "the token was issued by another server.",
            "other_user": "the token was issued to another user.",
        }[problem]
        return cls(f"{message} {_TOKEN_FIX}", problem=problem)


UsageProblem: TypeAlias = Literal["unwrapped", "swallowed", "concurrent", "argument"]
"""Which misuse an `ElicitUsageError` reports, as its `problem` says."""


class ElicitUsageError(TypedElicitError, RuntimeError):
    """typed_elicit is used in a way that cannot work; the message says how to fix it.

    Raised when the SDK meets a parameter annotated `ElicitContext` without
    `@elicits` (at registration), when one call asks questions concurrently
    through the fallback, when a function swallows the internal signal with which
    `ctx.elicit` ends a round (`except BaseException:` or a bare `except:`), and, as
    its subclass `ElicitArgumentError`, when a call gets an argument it cannot use
    (`on_unsupported="fallback"` for a prompt or resource among them).

    Attributes:
        problem: Which of these it is (`"unwrapped"`, `"concurrent"`, `"swallowed"` or
            `"argument"`).
        subject: The function (for `"unwrapped"`, the parameter; for `"argument"`, the
            call) concerned. None when pydantic names no parameter (`"unwrapped"` for an
            `ElicitContext` met outside a function's parameters).
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


class ElicitArgumentError(ElicitUsageError, ValueError, TypeError):
    """A typed_elicit call got an argument it cannot use; the message says what, why and the fix.

    Raised by every `ElicitContext` method (`elicit`, `elicit_all`, `elicit_url`,
    `elicit_page`, `complete_url`, `once`) and by `@elicits`, `add_hooks`,
    `remove_hooks` and `set_default_timeout`, before anything is asked. Being a
    `TypedElicitError`, it reaches the client as the tool's error with its text
    (`@elicits`), not as the SDK's bare "Error executing tool".

    One class derives from both `ValueError` and `TypeError`: these mistakes were plain
    `ValueError`s (a bad timeout, URL or policy) and `TypeError`s (a model that is no
    model, a message that is no string), and which one a caller met was never part of
    the promise. So `except ValueError` and `except TypeError` written for either still
    catch every one of them, and one `except ElicitArgumentError` (or its base,
    `ElicitUsageError`) catches them all, without sorting mistakes into two classes.

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


class OptionsError(TypedElicitError, ValueError):
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
        count = len(self.problems)
        header = (
            f"the options or defaults for {model_name} do not fit it "
            f"({count} problem{'s' if count != 1 else ''}):"
        )
        super().__init__("\n".join([header, *(f"  - {p}" for p in self.problems)]))


StoreOperation: TypeAlias = Literal["claim", "put", "get", "wait"]
"""Which `Store` operation a `StoreUnavailable` reports, as its `operation` says."""


class StoreUnavailable(TypedElicitError, ConnectionError):
    """The shared store (e.g. Redis) could not be reached, or did not answer in time.

    Raised for the call in progress; nothing that depended on the operation was applied.
    A claim whose outcome is unknown (sent, but its reply lost) counts as NOT made for
    this call: the call is refused rather than risk applying an answer twice, and a
    retry of the same round or token may then be refused as already used.

    Attributes:
        store: Where the store is, without credentials (e.g. `"redis 127.0.0.1:6379 db 0"`).
        operation: The store operation that failed.
        namespace: What the key protects (`"round"`, `"token"`, `"page"`, ...); never the key itself.
        cause: Why, in a few words (e.g. `"timed out after 2 s"`, `"connection refused"`).
        timeout: The store's per-operation timeout in seconds.
    """

    def __init__(
        self,
        message: str,
        *,
        store: str = "",
        operation: StoreOperation | None = None,
        namespace: str = "",
        cause: str = "",
        timeout: float | None = None,
    ) -> None:
        """Build the error from a finished message; `during` words it from the data.

        Args:
            message: What failed, why, and the fix.
            store: Where the store is, without credentials.
            operation: The store operation that failed.
            namespace: What the key protects.
            cause: Why, in a few words.
            timeout: The store's per-operation timeout in seconds.
        """
        super().__init__(message)
        self.store = store
        self.operation: StoreOperation | None = operation
        self.namespace = namespace
        self.cause = cause
        self.timeout = timeout

    @classmethod
    def during(
        cls, operation: StoreOperation, *, store: str, namespace: str, cause: str, timeout: float
    ) -> StoreUnavailable:
        """The error for a store `operation` that failed for `cause`.

        Args:
            operation: The store operation that failed.
            store: Where the store is, without credentials.
            namespace: What the key protects (`"round"`, `"token"`, `"page"`).
            cause: Why, in a few words.
            timeout: The store's per-operation timeout in seconds.

        Returns:
            The error.
        """
        what = f"a {namespace} key" if namespace else "a key"
        consequence = {
            "claim": "The claim counts as not made, so this call is refused and nothing was applied, "
            "rather than risk applying an answer twice (if the claim did reach the store, a retry of the "
            "same round or token is refused as already used: call the tool again to start afresh).",
            "put": "The value may not be stored, and whoever waits for it may not be woken.",
            "get": "The value could not be read.",
            "wait": "The wait for the value ended early.",
        }[operation]
        return cls(
            f"the shared store ({store}) could not {operation} {what}: {cause}. {consequence} Check "
            "that the store is running and reachable from this server, or give it more time (each "
            f"store operation is bounded by {timeout:g} s); calls work again as soon as it answers.",
            store=store,
            operation=operation,
            namespace=namespace,
            cause=cause,
            timeout=timeout,
        )


class PagesNotServed(TypedElicitError, RuntimeError):
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


class PageSetupError(TypedElicitError, ValueError):
    """A page setting (of `serve_pages` or `PageBrand`) cannot be used as given.

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
        """A `PageBrand(logo_url=...)` that is neither a plain https URL nor a base64 image data URL."""
        return cls(
            "logo_url",
            f"PageBrand logo_url cannot be used: {why}. Its host goes into the page's "
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
