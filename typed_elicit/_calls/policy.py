"""Policy: what a question does by default, and the checks on every setting.

`OnUnsupported`, the default timeouts and limits, the `check_*` functions used by
`@elicits`, `ctx.elicit` and `ctx.elicit_url`, the process-wide default timeout,
`Policy` (the defaults one decorated function carries), `resolve` (one question's
settings: its own arguments over the function's policy over the process default)
and what a question the client cannot be asked turns into (`unsupported`).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Final, Literal, TypeAlias

from typed_elicit._observe.heartbeat import DEFAULT_HEARTBEAT
from typed_elicit._observe.hooks import ElicitHook
from typed_elicit.errors import ElicitArgumentError

OnUnsupported: TypeAlias = Literal["raise", "defaults", "decline", "fallback"]
"""What `ctx.elicit` does when the client cannot be asked.

- `"raise"`: raise `ElicitationUnsupported` (the default).
- `"defaults"`: return `Accepted(Model())` built from the model's defaults; raises
  `ElicitationUnsupported` if any field has no default.
- `"decline"`: return `Declined()`, as if the user had said no.
- `"fallback"`: end the tool call with a result asking the model to put the question
  to the user and to send the answer through the companion tool of
  `install_fallback`, which runs the tool again (tools only; see `install_fallback`).
"""

UrlOnUnsupported: TypeAlias = Literal["raise", "decline"]
"""What `ctx.elicit_url` does when the client cannot be sent to a URL.

- `"raise"`: raise `ElicitationUnsupported` (the default).
- `"decline"`: return `Declined()`, as if the user had said no.

There is no `"defaults"`: an out-of-band page has no default outcome; and no
`"fallback"`: a URL must not pass through the model. Passing either to
`ctx.elicit_url` is an `ElicitArgumentError`; inherited from `@elicits(on_unsupported=...)`
they count as `"raise"`.
"""

DEFAULT_TIMEOUT: Final = 300.0
"""Seconds a question waits for its answer unless configured otherwise (5 minutes)."""

DEFAULT_CALL_TIMEOUT: Final = 3600.0
"""Seconds a 2026-07-28 (or fallback) call may take from its first round to its last answer (1 hour)."""

DEFAULT_MAX_ANSWER_BYTES: Final = 64 * 1024
"""The largest answer accepted, in bytes of compact ASCII JSON content (64 KiB)."""

SDK_STATE_TTL: Final = 600.0
"""Seconds the SDK's default `RequestStateSecurity` keeps a 2026-07-28 request state valid."""

_default_timeout: float = DEFAULT_TIMEOUT


def set_default_timeout(seconds: float) -> None:
    """Set the process-wide default per-question timeout.

    A timeout given to `@elicits(timeout=...)` or `ctx.elicit(timeout=...)` wins
    over this one. `math.inf` waits forever.

    Args:
        seconds: The new default, in seconds.

    Raises:
        ElicitArgumentError: If `seconds` is not positive.

    Warns:
        UserWarning: If `seconds` exceeds the SDK's default request-state TTL (600 s).
    """
    global _default_timeout
    _default_timeout = check_timeout(seconds, "set_default_timeout", argument="seconds")
    warn_if_over_state_ttl(seconds, "set_default_timeout", stacklevel=2)


def get_default_timeout() -> float:
    """The process-wide default per-question timeout, in seconds."""
    return _default_timeout


def check_timeout(seconds: float, owner: str, *, argument: str = "timeout") -> float:
    """`seconds` if it is a valid timeout (positive, `math.inf` allowed).

    Args:
        seconds: The timeout to check.
        owner: The call it was given to, for the message (`"@elicits"`, `"ctx.elicit"`, ...).
        argument: The argument's name in that call.

    Returns:
        `seconds`, unchanged.

    Raises:
        ElicitArgumentError: If it is not.
    """
    if not seconds > 0:
        raise ElicitArgumentError(
            owner,
            argument,
            f"got {argument}={seconds!r}, which is not a positive number of seconds (or math.inf)",
            f"Pass {argument}=N for N seconds, or math.inf to wait as long as it takes.",
        )
    return seconds


def check_call_timeout(seconds: float, owner: str) -> float:
    """`seconds` if it is a valid call limit (positive and finite).

    Finite, because a single-use round's id must be remembered until the round can
    no longer be answered, and the call limit is what bounds that.

    Args:
        seconds: The limit to check.
        owner: The call it was given to, for the message.

    Returns:
        `seconds`, unchanged.

    Raises:
        ElicitArgumentError: If it is not.
    """
    if isinstance(seconds, bool) or not isinstance(seconds, int | float) or not 0 < seconds < math.inf:  # pyright: ignore[reportUnnecessaryIsInstance]
        raise ElicitArgumentError(
            owner,
            "call_timeout",
            f"call_timeout must be a positive, finite number of seconds, got {seconds!r}: every "
            "question of a 2026-07-28 call must be answered within it",
            f"Pass call_timeout=N for N seconds (the default is {DEFAULT_CALL_TIMEOUT:g} s).",
        )
    return seconds


def check_max_answer_bytes(limit: int, owner: str) -> int:
    """`limit` if it is a valid answer size limit (a positive int, not a bool).

    Raises:
        ElicitArgumentError: If it is not.
    """
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:  # pyright: ignore[reportUnnecessaryIsInstance]
        raise ElicitArgumentError(
            owner,
            "max_answer_bytes",
            f"max_answer_bytes must be a positive int, got {limit!r}",
            f"Pass a number of bytes (the default is {DEFAULT_MAX_ANSWER_BYTES}).",
        )
    return limit


def warn_if_over_state_ttl(seconds: float, owner: str, stacklevel: int) -> None:
    """Warn (`UserWarning`) when a finite timeout exceeds the SDK's default request-state TTL."""
    if SDK_STATE_TTL < seconds < math.inf:
        warnings.warn(
            f"{owner} timeout={seconds:g} s exceeds the {SDK_STATE_TTL:g} s a 2026-07-28 request state "
            "lives by default: such a question fails before asking on a server that keeps the default. "
            "Give the server a longer ttl, MCPServer(..., request_state_security="
            "RequestStateSecurity.ephemeral(ttl=...)) for one process or RequestStateSecurity(keys=[secret], "
            f"ttl=...) for several replicas, or keep the timeout at most {SDK_STATE_TTL:g} s.",
            UserWarning,
            stacklevel=stacklevel + 1,
        )


ON_UNSUPPORTED: Final[tuple[OnUnsupported, ...]] = ("raise", "defaults", "decline", "fallback")
URL_ON_UNSUPPORTED: Final[tuple[UrlOnUnsupported, ...]] = ("raise", "decline")


@dataclass(frozen=True)
class Policy:
    """Defaults for every question one decorated function asks (set by `@elicits`).

    Attributes:
        timeout: Seconds per question; None means the process-wide default.
        retries: How often an invalid answer is asked again before `InvalidResponse`.
        on_unsupported: What to do when the client cannot be asked.
        hooks: The function's own hooks (after the process-wide ones).
        call_timeout: Seconds from a 2026-07-28 (or fallback) call's first round
            within which every answer must arrive.
        max_answer_bytes: The largest answer accepted (compact ASCII JSON of its content).
        single_use_rounds: Whether each 2026-07-28 round (and fallback question) takes one answer.
        heartbeat: Seconds between progress notifications while a push-era question
            waits (when the client sent a `progressToken`); None for none.
    """

    timeout: float | None = None
    retries: int = 0
    on_unsupported: OnUnsupported = "raise"
    hooks: tuple[ElicitHook, ...] = ()
    call_timeout: float = DEFAULT_CALL_TIMEOUT
    max_answer_bytes: int = DEFAULT_MAX_ANSWER_BYTES
    single_use_rounds: bool = True
    heartbeat: float | None = DEFAULT_HEARTBEAT


DEFAULT_POLICY = Policy()


@dataclass(slots=True)
class Settings:
    """One question's settings, resolved: its own arguments, else its function's, else the defaults.

    Read-only by convention, not frozen (one is made per question; see `Question`).

    Attributes:
        timeout: Seconds to wait for the answer.
        retries: Re-asks allowed after an invalid answer.
        on_unsupported: What to do when the client cannot be asked.
    """

    timeout: float
    retries: int
    on_unsupported: OnUnsupported


def resolve(
    policy: Policy,
    owner: str,
    *,
    timeout: float | None,
    retries: int | None = None,
    on_unsupported: OnUnsupported | None = None,
    allowed: tuple[str, ...] = ON_UNSUPPORTED,
    why: str = "",
) -> Settings:
    """Check one question's arguments and merge them over `policy` and the process-wide default.

    Args:
        policy: The decorated function's policy.
        owner: The asking call, for messages (`"ctx.elicit"`, `"ctx.elicit_url"`).
        timeout: The question's own timeout, or None.
        retries: The question's own re-ask count, or None.
        on_unsupported: The question's own policy, or None.
        allowed: The policies `owner` accepts.
        why: Appended to the message when `on_unsupported` is not allowed.

    Returns:
        The question's settings.

    Raises:
        ElicitArgumentError: If an argument is out of range or not an allowed policy.
    """
    default = policy.timeout if policy.timeout is not None else _default_timeout
    wait = check_timeout(timeout if timeout is not None else default, owner)
    if retries is None:
        retries = policy.retries
    elif isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:  # pyright: ignore[reportUnnecessaryIsInstance]
        raise ElicitArgumentError(
            owner,
            "retries",
            f"retries must be 0 or more (an int, not a bool), got {retries!r}",
            "Pass how many times to ask again after an invalid answer, e.g. retries=2.",
        )
    if on_unsupported is None:
        on_unsupported = policy.on_unsupported
    elif on_unsupported not in allowed:
        names = ", ".join(repr(a) for a in allowed[:-1]) + f" or {allowed[-1]!r}"
        raise ElicitArgumentError(
            owner,
            "on_unsupported",
            f"takes on_unsupported={names}, got {on_unsupported!r}{why}",
            "Pass one of these.",
        )
    return Settings(wait, retries, on_unsupported)
