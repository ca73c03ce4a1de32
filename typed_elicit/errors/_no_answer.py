"""No-answer errors: a question got no usable answer (the client, the user, or a hook)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final, Literal, TypeAlias

from typed_elicit._core.text import escaped
from typed_elicit.errors._base import MAX_PROBLEM_LENGTH, NoAnswerError, bounded_errors, either

RETRY_ADVICE = "Pass retries=N to ctx.elicit to ask the user again with these problems stated."

"""What `InvalidResponse` advises unless its raiser knows better."""


class InvalidResponse(NoAnswerError, ValueError):
    """An answer does not fit the form: on the server, the client's; on a client, its handler's.

    On the server, the client accepted but its content does not satisfy the model, or its
    result is no valid elicitation result at all. On a client (`typed_elicit.client`), the
    handler's answer does not fit the form the server asked for (`not_the_form`).

    The message names each bad field and its problem, never the answer's values: it is
    logged by the SDK (INFO) and shown to the model as the tool's error. Problem texts
    are bounded: at most `MAX_PROBLEMS` problems (the last counting any others), paths
    cut to `MAX_PATH_LENGTH` and texts to `MAX_PROBLEM_LENGTH` characters (ending in
    `...`), lone surrogates and other unprintable characters escaped. Only a model's own
    validator message can quote a value (typed_elicit's checks name the kind instead:
    "expected a number, got a string"); keep such messages value-free.

    Attributes:
        model_name: The model the answer was validated against (`"the requested form"` on a client).
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
        self.errors = bounded_errors(errors)
        self.content = content
        self.advice = advice
        super().__init__(
            f"the answer to {model_name} is invalid: {self._lines()}. (The answer's values are not shown; "
            f"the tool reads them as InvalidResponse.content.) {advice}"
        )

    def _lines(self) -> str:
        return "; ".join(f"{path or '(form)'}: {msg}" for path, msg in self.errors)

    @classmethod
    def not_the_form(cls, errors: Iterable[tuple[str, str]], content: Mapping[str, Any]) -> InvalidResponse:
        """A client's own answer (from its handler) that does not fit the form the server asked for.

        The client half raises it before anything is sent; the server never sees the answer.

        Args:
            errors: One `(field name, message)` pair per problem; the name is empty for a
                problem with the whole answer.
            content: The answer as given.

        Returns:
            The error (its `model_name` is `"the requested form"`).
        """
        advice = "Answer with values that fit the field (its kind, bounds, format and options)."
        error = cls("the requested form", errors, dict(content), advice=advice)
        error.args = (f"the answer does not fit the requested form: {error._lines()}. {advice}",)
        return error

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


Policy: TypeAlias = Literal["raise", "defaults", "decline", "fallback"]

"""An `on_unsupported` policy, as `ElicitationUnsupported.advised` names them."""


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


class ElicitationUnsupported(NoAnswerError):
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
            + _advice(either(advised), asker, " to carry on without asking the client"),
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
            f"those fields defaults, or {_advice(either(advised), asker, start='pass')}",
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


class ClientError(NoAnswerError, RuntimeError):
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
        excerpt = escaped(client_message, MAX_PROBLEM_LENGTH)
        super().__init__(
            f"the client answered {question} with an error instead of a result (code {code}: "
            f"{excerpt!r}). This is the client's failure, not the user's answer: catch "
            "ClientError to carry on without the answer, or retry the call."
        )


class ElicitationTimeout(NoAnswerError, TimeoutError):
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
                f"the answer to {subject} arrived {_seconds(waited)} s after it was asked, later than "
                f"the {timeout:g} s timeout. {fix}"
            )
        else:
            message = (
                f"no answer to {subject} within {timeout:g} s: it was asked {_seconds(waited)} s ago, and "
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
            f"this call of {function} started {_seconds(age)} s ago, longer than its {limit:g} s "
            f"limit, so {subject} can no longer be answered. Call the tool again to start afresh, "
            "or pass a longer call_timeout= to @elicits.",
            subject=subject,
            timeout=limit,
            waited=age,
            scope="call",
        )


HookStage: TypeAlias = Literal["on_question", "on_answer"]

"""Which method of an `ElicitHook` failed, as `HookError.stage` says."""


class HookError(NoAnswerError, RuntimeError):
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


def _seconds(value: float) -> str:
    """Seconds as a person reads them, never rounded to a misleading 0: `12`, `1.5`, `0.25`."""
    if value >= 10:
        return f"{value:.0f}"
    return f"{value:.1f}" if value >= 1 else f"{value:.2f}"
