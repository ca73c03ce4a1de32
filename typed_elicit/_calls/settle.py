"""How a call of an `@elicits` function ends: its round's result, its errors as the client reads them.

`@elicits` awaits the function's body itself (no coroutine of ours waits beside it while a
question is pending) and hands what it returned to `settled`, what it raised to `failed`.
A suspension (`InputRequired`, `FallbackRequired`) becomes the round's result; several
suspensions of one round (a task group, `elicit_all`) merge into the fullest
`InputRequiredResult`; one that never reached here was swallowed by the tool
(`ElicitUsageError`). No internal signal ever escapes. On a later 2026-07-28 round the body
runs inside the call's first trace (`joined`).
`for_client` words a typed_elicit error for the request that failed.
"""

from __future__ import annotations

from typing import Any, Protocol, cast

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR

from typed_elicit._calls.call import Call
from typed_elicit._calls.reach import capability_error
from typed_elicit._calls.signals import FallbackRequired, InputRequired, RoundRefused
from typed_elicit._observe import telemetry
from typed_elicit.errors import ElicitationUnsupported, ElicitUsageError, TypedElicitError


def joined(call: Call) -> telemetry.Resumed | None:
    """On a later 2026-07-28 round, the span that joins the call's first trace; else None."""
    if call.rounds <= 1 or call.trace is None:
        return None
    params = call.request.params if call.request is not None else None
    target = params.get("name") if params else None
    name = target if isinstance(target, str) else None
    return telemetry.resume_round(call.trace, call.function, call.rounds, name)


def settled(value: Any, created: list[BaseException], name: str) -> Any:
    """What a function that returned `value` answers: `value`, unless it swallowed a suspension.

    `created` holds every suspension `ctx.elicit` made during the call (`suspensions`).

    Raises:
        ElicitUsageError: If the function swallowed a suspension.
    """
    if created:
        raise ElicitUsageError.swallowed(name)
    return value


def failed(exc: BaseException, created: list[BaseException], name: str) -> Any:
    """What a function that raised `exc` answers: a suspension's round result, or `exc` raised again.

    No internal signal escapes: one suspension becomes its round's result; a task group's
    (`elicit_all`) merge into the fullest `InputRequiredResult`.

    Raises:
        ElicitUsageError: If the function swallowed a suspension, or asked several
            questions concurrently where a round carries one.
        BaseException: `exc` itself, when it is the function's own error.
    """
    if isinstance(exc, InputRequired | FallbackRequired):
        if len(created) > 1:
            raise ElicitUsageError.swallowed(name) from None
        return exc.result
    group = _as_group(exc)
    if group is not None:  # a task group inside the function
        return _settle_group(exc, group, created, name)
    if created and isinstance(exc, Exception):
        raise ElicitUsageError.swallowed(name) from exc
    raise exc


class _Group(Protocol):
    """What an exception group offers (`BaseExceptionGroup`, or on Python 3.10 anyio's backport)."""

    @property
    def exceptions(self) -> tuple[BaseException, ...]:
        """The exceptions in the group."""
        ...

    def split(
        self, condition: tuple[type[BaseException], ...], /
    ) -> tuple[BaseException | None, BaseException | None]:
        """The matching and the other exceptions, as groups of the same shape."""
        ...


def _as_group(exc: BaseException) -> _Group | None:
    if isinstance(getattr(exc, "exceptions", None), tuple) and callable(getattr(exc, "split", None)):
        return cast("_Group", exc)
    return None


def _settle_group(exc: BaseException, group: _Group, created: list[BaseException], name: str) -> Any:
    """`_settle` for an exception group: the suspensions of one round merge; fallback ones are refused.

    A refused round (`RoundRefused`, a resent round) wins over everything else: the
    client gets its -32602 error, as for a single question.
    """
    for leaf in _leaves(exc):
        if isinstance(leaf, RoundRefused):
            raise leaf from None
    ours, rest = group.split((InputRequired, FallbackRequired))
    if ours is None:
        if created:
            raise ElicitUsageError.swallowed(name) from exc
        raise exc
    if rest is not None:  # the function failed: that failure, without the internal signals
        inner = _leaves(rest)
        raise (inner[0] if len(inner) == 1 else rest) from None
    suspended = _leaves(ours)
    if len(created) > len(suspended):
        raise ElicitUsageError.swallowed(name) from None
    rounds = [leaf for leaf in suspended if isinstance(leaf, InputRequired)]
    if len(rounds) == len(suspended):
        # Concurrent questions of one round: each suspension carries every question
        # registered before it was raised, so the fullest one is the round (built only now).
        return max(rounds, key=lambda leaf: leaf.size).result
    if len(suspended) > 1:
        raise ElicitUsageError.concurrent(name, len(suspended)) from None
    only = suspended[0]
    assert isinstance(only, FallbackRequired)
    return only.result


def _leaves(exc: BaseException) -> list[BaseException]:
    """The exceptions inside a (nested) exception group, in order; `[exc]` for any other exception."""
    group = _as_group(exc)
    if group is None:
        return [exc]
    return [leaf for inner in group.exceptions for leaf in _leaves(inner)]


def for_client(exc: TypedElicitError, sdk: Context[Any, Any], call: Call | None) -> Exception:
    """Turn a typed_elicit error into the error the SDK reports with its text intact: the one place.

    A tool's error is a `ToolError` (the client reads it as the tool's error result), a
    resource's a `ResourceError`, a prompt's a JSON-RPC error; `ElicitationUnsupported`
    on 2026-07-28 is the spec's `-32021` missing-capability error (`reach.capability_error`).
    """
    try:
        request_context = sdk.request_context
    except ValueError:
        return exc
    if isinstance(exc, ElicitationUnsupported) and call is not None:
        surfaced = capability_error(call, exc)
        if surfaced is not None:
            return surfaced
    text = f"{type(exc).__name__}: {exc}"
    method = request_context.method
    if method == "prompts/get":
        return MCPError(code=INTERNAL_ERROR, message=text)
    surface = {"tools/call": ToolError, "resources/read": ResourceError}.get(method)
    return exc if surface is None else surface(text)
