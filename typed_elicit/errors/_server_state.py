"""Server-state errors: what a call carries between requests, or the store behind it, cannot be used."""

from __future__ import annotations

from typing import Final, Literal, Protocol, TypeAlias

from typed_elicit.errors._base import ServerStateError


class Described(Protocol):
    """A recorded question: anything that says what it asked, without its answer."""

    def describe(self) -> str:
        """A short human-readable form for error messages (model, key and digest; no values)."""
        ...


class ReplayMismatch(ServerStateError, RuntimeError):
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


TokenProblem: TypeAlias = Literal["altered", "expired", "used", "other_server", "other_user"]

"""Why a fallback token is unusable, as `InvalidFallbackToken.problem` says."""


_TOKEN_FIX: Final = "Ask the tool again to get a fresh question and token."


class InvalidFallbackToken(ServerStateError, ValueError):
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


StoreOperation: TypeAlias = Literal["claim", "put", "get", "wait"]

"""Which `Store` operation a `StoreUnavailable` reports, as its `operation` says."""

ClaimLeft: TypeAlias = Literal["no", "maybe"]

"""Whether a failed store operation may have left a claim behind, as `StoreUnavailable.claimed` says."""


class StoreUnavailable(ServerStateError, ConnectionError):
    """The shared store (e.g. Redis) could not be reached, refused us, or did not answer in time.

    Raised for the call in progress; nothing that depended on the operation was applied.
    A claim whose outcome is unknown (sent, but its reply lost) counts as NOT made for
    this call: the call is refused rather than risk applying an answer twice. The store
    then marks that claim as abandoned, so that a retry of the same round or token can
    claim it (`claimed == "no"`); only if the store cannot be reached to do so is a retry
    possibly refused as already used (`claimed == "maybe"`).

    Attributes:
        store: Where the store is, without credentials (e.g. `"redis 127.0.0.1:6379 db 0"`).
        operation: The store operation that failed.
        namespace: What the key protects (`"round"`, `"token"`, `"page"`, ...); never the key itself.
        cause: Why, in a few words (e.g. `"no answer within 2 s"`, `"connection refused"`,
            `"authentication failed (AuthenticationError)"`, `"TLS certificate verification failed: ..."`).
        timeout: The store's per-operation timeout in seconds.
        fix: What to do about it (the message's last sentence).
        claimed: `"no"` if the operation left no claim in the store (every operation but a
            claim; a claim that never reached the store, or was marked abandoned): the same
            round or token can be sent again. `"maybe"` for a claim that may have been made
            and could not be marked abandoned: a retry of that round or token may be
            refused as already used.
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
        fix: str = "",
        claimed: ClaimLeft = "maybe",
    ) -> None:
        """Build the error from a finished message; `during` words it from the data.

        Args:
            message: What failed, why, and the fix.
            store: Where the store is, without credentials.
            operation: The store operation that failed.
            namespace: What the key protects.
            cause: Why, in a few words.
            timeout: The store's per-operation timeout in seconds.
            fix: What to do about it.
            claimed: Whether the operation may have left a claim in the store.
        """
        super().__init__(message)
        self.store = store
        self.operation: StoreOperation | None = operation
        self.namespace = namespace
        self.cause = cause
        self.timeout = timeout
        self.fix = fix
        self.claimed: ClaimLeft = claimed

    @classmethod
    def during(
        cls,
        operation: StoreOperation,
        *,
        store: str,
        namespace: str,
        cause: str,
        timeout: float,
        fix: str = "",
        claimed: ClaimLeft | None = None,
    ) -> StoreUnavailable:
        """The error for a store `operation` that failed for `cause`.

        Args:
            operation: The store operation that failed.
            store: Where the store is, without credentials.
            namespace: What the key protects (`"round"`, `"token"`, `"page"`).
            cause: Why, in a few words (never a password, a key or a value).
            timeout: The store's per-operation timeout in seconds.
            fix: What to do about it; by default, to check that the store runs and is reachable.
            claimed: Whether a claim may have been left in the store (`"maybe"` by default for
                a claim, `"no"` for the other operations).

        Returns:
            The error.
        """
        what = f"a {namespace} key" if namespace else "a key"
        left: ClaimLeft = claimed or ("maybe" if operation == "claim" else "no")
        if operation != "claim":
            consequence = {
                "put": "The value may not be stored, and whoever waits for it may not be woken.",
                "get": "The value could not be read.",
                "wait": "The wait for the value ended early.",
            }[operation]
        elif left == "no":
            consequence = (
                "Nothing was claimed and nothing was applied: the same round or token can be sent "
                "again once the store answers."
            )
        else:
            consequence = (
                "The claim counts as not made, so this call is refused and nothing was applied, rather "
                "than risk applying an answer twice; it may have reached the store and could not be "
                "marked abandoned, so a retry of the same round or token may be refused as already "
                "used: call the tool again to start afresh."
            )
        advice = fix or (
            "Check that the store is running and reachable from this server, or give it more time (each "
            f"store operation is bounded by {timeout:g} s); calls work again as soon as it answers."
        )
        return cls(
            f"the shared store ({store}) could not {operation} {what}: {cause}. {consequence} {advice}",
            store=store,
            operation=operation,
            namespace=namespace,
            cause=cause,
            timeout=timeout,
            fix=advice,
            claimed=left,
        )
