"""`@elicits`: give an SDK tool, prompt or resource template an `ElicitContext`."""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable, Coroutine, Mapping, Sequence
from contextlib import nullcontext
from typing import Any, TypeVar, Union, overload

from mcp.server.mcpserver import Context
from mcp_types import InputRequiredResult
from pydantic import BaseModel

from typed_elicit._calls.call import Call
from typed_elicit._calls.context import ElicitContext
from typed_elicit._calls.plugs import resuming
from typed_elicit._calls.policy import (
    DEFAULT_CALL_TIMEOUT,
    DEFAULT_MAX_ANSWER_BYTES,
    DEFAULT_POLICY,
    OnUnsupported,
    Policy,
    check_call_timeout,
    check_max_answer_bytes,
    resolve,
    warn_if_over_state_ttl,
)
from typed_elicit._calls.refusal import check_fallback
from typed_elicit._calls.settle import failed, for_client, joined, settled
from typed_elicit._calls.signals import RoundRefused, suspensions
from typed_elicit._core.versions import ProtocolVersion
from typed_elicit._forms.reduce import refusals
from typed_elicit._observe.heartbeat import DEFAULT_HEARTBEAT, check_heartbeat
from typed_elicit._observe.hooks import ElicitHook
from typed_elicit.errors import ElicitArgumentError, SchemaError, TypedElicitError

F = TypeVar("F", bound=Callable[..., Coroutine[Any, Any, Any]])


@overload
def elicits(fn: F, /) -> F: ...
@overload
def elicits(
    *models: type[BaseModel],
    timeout: float | None = None,
    retries: int = 0,
    on_unsupported: OnUnsupported = "raise",
    hooks: Sequence[ElicitHook] = (),
    call_timeout: float = DEFAULT_CALL_TIMEOUT,
    max_answer_bytes: int = DEFAULT_MAX_ANSWER_BYTES,
    single_use_rounds: bool = True,
    heartbeat: float | None = DEFAULT_HEARTBEAT,
) -> Callable[[F], F]: ...
def elicits(
    *args: Any,
    timeout: float | None = None,
    retries: int = 0,
    on_unsupported: OnUnsupported = "raise",
    hooks: Sequence[ElicitHook] = (),
    call_timeout: float = DEFAULT_CALL_TIMEOUT,
    max_answer_bytes: int = DEFAULT_MAX_ANSWER_BYTES,
    single_use_rounds: bool = True,
    heartbeat: float | None = DEFAULT_HEARTBEAT,
) -> Any:
    """Let an async tool, prompt or resource-template function ask the user questions.

    Place it directly under the SDK's `@server.tool()`, `@server.prompt()` or
    `@server.resource("...{param}")`. The function annotates one parameter with
    `ElicitContext`; the SDK injects its `Context` there (so the parameter is not
    in the `inputSchema`), and the function receives an `ElicitContext` wrapping it.

    On 2026-07-28 the decorated function may run several times per call (once per
    round); see `ElicitContext.elicit` and `ElicitContext.once`.

    A `TypedElicitError` escaping the function reaches the client with its cause
    stated: as a tool error (`isError`) from a tool, as a JSON-RPC error from a
    prompt or resource. On 2026-07-28 `ElicitationUnsupported` is the spec's
    `-32021` missing-client-capability error.

    Before the body runs, each call checks the listed models against the
    negotiated revision (`SchemaError`) and refuses `on_unsupported="fallback"`
    outside a tool (`ElicitUsageError`). A call that swallows the internal signal
    of `ctx.elicit` (`except BaseException:`) or asks concurrently on 2026-07-28
    fails with `ElicitUsageError`; no internal signal ever escapes it.

    Usage: `@elicits`, or `@elicits(ModelA, ModelB, timeout=60, retries=1)`.

    Args:
        *args: The function (bare use), or the models the function asks for:
            they are reduced now, so a model that cannot be elicited fails at import.
        timeout: Default seconds per question for this function. On 2026-07-28
            it must not exceed the server's request-state TTL (600 s by
            default): a longer one warns here and fails before asking.
        retries: Default number of re-asks after an invalid answer.
        on_unsupported: Default policy when the client cannot be asked;
            `"fallback"` needs `install_fallback(server)`.
        hooks: This function's elicitation hooks, run after the process-wide
            ones (`add_hooks`); see `ElicitHook`.
        call_timeout: Seconds from a 2026-07-28 (or fallback) call's first round
            within which every answer must arrive (1 hour by default); a later
            answer, or a refresh, ends the call with `ElicitationTimeout`.
        max_answer_bytes: The largest answer accepted, in bytes of its content as
            compact JSON (64 KiB by default); a larger one is an `InvalidResponse`
            (asked again while `retries` allow), on every era.
        single_use_rounds: Whether each 2026-07-28 round (and each fallback
            question) takes one answer; a second answer to a round gets a
            JSON-RPC error -32602. Turning it off lets a client resend the final
            round, and every resend runs the code after the last question again.
        heartbeat: Seconds between `notifications/progress` while a question waits
            on 2025-06-18 and 2025-11-25, sent only when the client's request carried
            a `progressToken` (15 s by default, well under the 60 s many clients
            allow a request); keeps a client whose timeout restarts on progress from
            giving up while a person thinks. None sends none. Not needed on
            2026-07-28, where no request stays open while the user answers.

    Returns:
        The wrapped function, or a decorator producing it.

    Raises:
        ElicitArgumentError: If the function is not async, has no `ElicitContext`
            parameter, has several, or also takes the SDK `Context`,
            or `timeout` is not positive, `retries` is negative, `call_timeout` is not
            positive and finite, or `max_answer_bytes` is not a positive int.
        SchemaError: If a listed model cannot be elicited.
        ValueError: If `heartbeat` is not None or positive and finite.

    Warns:
        UserWarning: If `timeout` exceeds the SDK's default request-state TTL (600 s).
    """
    if len(args) == 1 and _is_function(args[0]):
        return _wrap(args[0], Policy())
    models: tuple[type[BaseModel], ...] = args
    refused = refusals(models)  # reduced now: a model that cannot be elicited fails at import
    settings = resolve(
        DEFAULT_POLICY, "@elicits", timeout=timeout, retries=retries, on_unsupported=on_unsupported
    )
    if timeout is not None:
        warn_if_over_state_ttl(timeout, "@elicits", stacklevel=2)
    check_call_timeout(call_timeout, "@elicits")
    check_max_answer_bytes(max_answer_bytes, "@elicits")
    policy = Policy(
        timeout=timeout,
        retries=settings.retries,
        on_unsupported=settings.on_unsupported,
        hooks=tuple(hooks),
        call_timeout=call_timeout,
        max_answer_bytes=max_answer_bytes,
        single_use_rounds=bool(single_use_rounds),
        heartbeat=check_heartbeat(heartbeat, "@elicits"),
    )

    def decorate(fn: F) -> F:
        return _wrap(fn, policy, models, refused)

    return decorate


def _is_function(obj: object) -> bool:
    return callable(obj) and not isinstance(obj, type)


def _wrap(
    fn: F,
    policy: Policy,
    models: Sequence[type[BaseModel]] = (),
    refused: Mapping[ProtocolVersion, tuple[str, tuple[str, ...]]] | None = None,
) -> F:
    name = getattr(fn, "__qualname__", repr(fn))
    if not inspect.iscoroutinefunction(fn):
        raise ElicitArgumentError(
            "@elicits", "fn", f"decorates async functions, and {name} is not one", f"Make {name} `async def`."
        )
    try:
        hints = typing.get_type_hints(fn, include_extras=True)
    except Exception as exc:
        raise ElicitArgumentError(
            "@elicits",
            "fn",
            f"cannot resolve the annotations of {name}: {exc}",
            "Define (or import) every type its signature names before the function.",
        ) from exc
    signature = inspect.signature(fn)
    ctx_names = [p for p in signature.parameters if hints.get(p) is ElicitContext]
    if len(ctx_names) != 1:
        found = "none" if not ctx_names else ", ".join(ctx_names)
        raise ElicitArgumentError(
            "@elicits",
            "fn",
            f"needs {name} to have exactly one parameter annotated ElicitContext (found {found})",
            "Annotate the one parameter that receives the context: `ctx: ElicitContext`.",
        )
    sdk_names = [p for p in signature.parameters if _is_sdk_context(hints.get(p))]
    if sdk_names:
        raise ElicitArgumentError(
            "@elicits",
            "fn",
            f"got {name}, which takes the SDK Context as {sdk_names[0]!r}",
            "With @elicits use the ElicitContext parameter's `.sdk` instead.",
        )
    ctx_name = ctx_names[0]
    public = _public_signature(signature, hints, ctx_name)
    refused = refused or {}

    @functools.wraps(fn)
    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        # The SDK passes every argument by keyword; anything else takes the general path.
        bound = signature.bind(*args, **kwargs) if args or ctx_name not in kwargs else None
        injected = kwargs[ctx_name] if bound is None else bound.arguments[ctx_name]
        if not isinstance(injected, Context):
            raise ElicitArgumentError(
                name,
                ctx_name,
                f"expects the SDK to inject its Context as {ctx_name!r}, got {type(injected).__name__}",
                "Let the SDK call it (a tool, prompt or resource), or pass an mcp Context.",
            )
        sdk: Context[Any, Any] = injected  # pyright: ignore[reportUnknownVariableType]
        resume = resuming.get()
        # A tool this one calls is not the call being resumed (no token needed when none is).
        reset = None if resume is None else resuming.set(None)
        created: list[BaseException] = []
        tracked = suspensions.set(created)
        record: Call | None = None
        try:
            ctx = ElicitContext(sdk, policy, function=name, resume=resume)
            record, _ = ctx.__typed_elicit_parts__()
            # Before the body runs, so before any side effect.
            refusal = refused.get(ctx.protocol_version) if refused and ctx.protocol_version else None
            if refusal is not None:  # the revision refuses a listed model: before the body runs
                raise SchemaError(*refusal)
            if policy.on_unsupported == "fallback":
                check_fallback(record, "@elicits")
            if bound is None:
                call = fn(**{**kwargs, ctx_name: ctx})
            else:
                bound.arguments[ctx_name] = ctx
                call = fn(*bound.args, **bound.kwargs)
            trace = joined(record)
            try:
                with nullcontext() if trace is None else trace:
                    try:
                        value = await call
                    except BaseException as exc:
                        result = failed(exc, created, name)
                    else:
                        result = settled(value, created, name)
            except Exception:
                if record.cleanups:  # the call failed: what it held for later rounds goes
                    await record.end()
                raise
            if created:  # a round that asks: what it took and later rounds need is held now
                await record.suspend()
            elif record.cleanups:  # the call's final result
                await record.end()
            return result
        except RoundRefused as spent:
            raise spent.error from None
        except TypedElicitError as exc:
            surfaced = for_client(exc, sdk, record)
            if surfaced is exc:
                raise
            raise surfaced from exc
        finally:
            suspensions.reset(tracked)
            if reset is not None:
                resuming.reset(reset)

    exposed: Any = wrapper
    exposed.__typed_elicit_models__ = tuple(dict.fromkeys(models))
    exposed.__typed_elicit_policy__ = policy
    exposed.__signature__ = public
    exposed.__annotations__ = {
        **{p.name: p.annotation for p in public.parameters.values() if p.annotation is not p.empty},
        **({} if public.return_annotation is public.empty else {"return": public.return_annotation}),
    }
    result: F = exposed
    return result


def _is_sdk_context(annotation: object) -> bool:
    candidates = typing.get_args(annotation) if typing.get_origin(annotation) is not None else (annotation,)
    return any(isinstance(c, type) and issubclass(c, Context) for c in candidates)


def _public_signature(
    signature: inspect.Signature, hints: dict[str, Any], ctx_name: str
) -> inspect.Signature:
    """What the SDK sees: resolved annotations, `Context` for the context, `| InputRequiredResult`."""
    parameters = [
        p.replace(annotation=Context if p.name == ctx_name else hints.get(p.name, p.annotation))
        for p in signature.parameters.values()
    ]
    returns = hints.get("return", signature.return_annotation)
    if returns is not inspect.Signature.empty:
        returns = Union[returns, InputRequiredResult]  # noqa: UP007 - built at runtime from a variable
    return signature.replace(parameters=parameters, return_annotation=returns)
