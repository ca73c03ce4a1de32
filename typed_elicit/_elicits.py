"""`@elicits`: give an SDK tool, prompt or resource template an `ElicitContext`."""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable, Coroutine, Sequence
from typing import Any, Protocol, TypeVar, Union, overload

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INTERNAL_ERROR,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    ClientCapabilities,
    ElicitationCapability,
    FormElicitationCapability,
    InputRequiredResult,
    MissingRequiredClientCapabilityErrorData,
    UrlElicitationCapability,
)
from pydantic import BaseModel

from ._context import (
    DEFAULT_CALL_TIMEOUT,
    DEFAULT_MAX_ANSWER_BYTES,
    ON_UNSUPPORTED,
    ElicitContext,
    FallbackRequired,
    InputRequired,
    OnUnsupported,
    Policy,
    RoundRefused,
    check_call_timeout,
    check_max_answer_bytes,
    check_on_unsupported,
    check_retries,
    check_timeout,
    negotiated_era,
    warn_if_over_state_ttl,
)
from ._errors import ElicitationUnsupported, SchemaError, TypedElicitError
from ._fallback import resuming
from ._hooks import ElicitHook
from ._reducer import reduce_schema
from ._versions import LATEST_PROTOCOL_VERSION, PROTOCOL_VERSIONS, is_mrtr

F = TypeVar("F", bound=Callable[..., Coroutine[Any, Any, Any]])


class ElicitsDecorator(Protocol):
    """What `@elicits(...)` with arguments returns: a decorator keeping the function's type."""

    def __call__(self, fn: F, /) -> F:
        """Wrap `fn` (see `elicits`)."""
        ...


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
) -> ElicitsDecorator: ...
def elicits(
    *args: Any,
    timeout: float | None = None,
    retries: int = 0,
    on_unsupported: OnUnsupported = "raise",
    hooks: Sequence[ElicitHook] = (),
    call_timeout: float = DEFAULT_CALL_TIMEOUT,
    max_answer_bytes: int = DEFAULT_MAX_ANSWER_BYTES,
    single_use_rounds: bool = True,
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

    Returns:
        The wrapped function, or a decorator producing it.

    Raises:
        TypeError: If the function is not async, has no `ElicitContext` parameter,
            has several, or also takes the SDK `Context`.
        SchemaError: If a listed model cannot be elicited.
        ValueError: If `timeout` is not positive, `retries` is negative,
            `call_timeout` is not positive and finite, or `max_answer_bytes` is
            not a positive int.

    Warns:
        UserWarning: If `timeout` exceeds the SDK's default request-state TTL (600 s).
    """
    if len(args) == 1 and _is_function(args[0]):
        return _wrap(args[0], Policy())
    models: tuple[type[BaseModel], ...] = args
    for model in models:
        _prereduce(model)
    if timeout is not None:
        check_timeout(timeout, "@elicits")
        warn_if_over_state_ttl(timeout, "@elicits", stacklevel=2)
    check_retries(retries, "@elicits")
    check_on_unsupported(on_unsupported, "@elicits", ON_UNSUPPORTED)
    check_call_timeout(call_timeout, "@elicits")
    check_max_answer_bytes(max_answer_bytes, "@elicits")
    policy = Policy(
        timeout=timeout,
        retries=retries,
        on_unsupported=on_unsupported,
        hooks=tuple(hooks),
        call_timeout=call_timeout,
        max_answer_bytes=max_answer_bytes,
        single_use_rounds=bool(single_use_rounds),
    )

    def decorate(fn: F) -> F:
        return _wrap(fn, policy)

    return decorate


def _is_function(obj: object) -> bool:
    return callable(obj) and not isinstance(obj, type)


def _prereduce(model: type[BaseModel]) -> None:
    """Reduce `model` for every revision now; only the newest revision must succeed.

    An older revision may legitimately refuse a field (multi-select before
    2025-11-25); that surfaces as a `SchemaError` when such a client connects.
    """
    reduce_schema(model, protocol_version=LATEST_PROTOCOL_VERSION)
    for version in PROTOCOL_VERSIONS:
        try:
            reduce_schema(model, protocol_version=version)
        except SchemaError:
            continue


def _wrap(fn: F, policy: Policy) -> F:
    name = getattr(fn, "__qualname__", repr(fn))
    if not inspect.iscoroutinefunction(fn):
        raise TypeError(f"@elicits decorates async functions; make {name} `async def`")
    try:
        hints = typing.get_type_hints(fn, include_extras=True)
    except Exception as exc:
        raise TypeError(f"@elicits cannot resolve the annotations of {name}: {exc}") from exc
    signature = inspect.signature(fn)
    ctx_names = [p for p in signature.parameters if hints.get(p) is ElicitContext]
    if len(ctx_names) != 1:
        found = "none" if not ctx_names else ", ".join(ctx_names)
        raise TypeError(f"{name} must have exactly one parameter annotated ElicitContext (found {found})")
    sdk_names = [p for p in signature.parameters if _is_sdk_context(hints.get(p))]
    if sdk_names:
        raise TypeError(
            f"{name} takes the SDK Context as {sdk_names[0]!r}; with @elicits use the ElicitContext "
            "parameter's `.sdk` instead"
        )
    ctx_name = ctx_names[0]
    public = _public_signature(signature, hints, ctx_name)

    @functools.wraps(fn)
    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        # The SDK passes every argument by keyword; anything else takes the general path.
        bound = signature.bind(*args, **kwargs) if args or ctx_name not in kwargs else None
        injected = kwargs[ctx_name] if bound is None else bound.arguments[ctx_name]
        if not isinstance(injected, Context):
            raise TypeError(f"{name} expects the SDK to inject its Context as {ctx_name!r}, got {injected!r}")
        sdk: Context[Any, Any] = injected  # pyright: ignore[reportUnknownVariableType]
        resume = resuming.get()
        reset = resuming.set(None)  # a tool this one calls is not the call being resumed
        ctx = ElicitContext(sdk, policy, function=name, resume=resume)
        try:
            if bound is None:
                return await fn(**{**kwargs, ctx_name: ctx})
            bound.arguments[ctx_name] = ctx
            return await fn(*bound.args, **bound.kwargs)
        except InputRequired as suspended:
            return suspended.result
        except FallbackRequired as handed_over:
            return handed_over.result
        except RoundRefused as refused:
            raise refused.error from None
        except TypedElicitError as exc:
            surfaced = _for_client(exc, sdk)
            if surfaced is exc:
                raise
            raise surfaced from exc
        finally:
            resuming.reset(reset)

    exposed: Any = wrapper
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


def _for_client(exc: TypedElicitError, sdk: Context[Any, Any]) -> Exception:
    """Turn a typed_elicit error into the error the SDK reports with its text intact."""
    try:
        request_context = sdk.request_context
    except ValueError:
        return exc
    text = f"{type(exc).__name__}: {exc}"
    era = negotiated_era(request_context.protocol_version)
    if isinstance(exc, ElicitationUnsupported) and era is not None and is_mrtr(era):
        needed = (
            ElicitationCapability(url=UrlElicitationCapability())
            if exc.mode == "url"
            else ElicitationCapability(form=FormElicitationCapability())
        )
        required = ClientCapabilities(elicitation=needed)
        data = MissingRequiredClientCapabilityErrorData(required_capabilities=required)
        return MCPError(
            code=MISSING_REQUIRED_CLIENT_CAPABILITY,
            message=text,
            data=data.model_dump(by_alias=True, mode="json", exclude_none=True),
        )
    if request_context.method == "tools/call":
        return ToolError(text)
    if request_context.method == "resources/read":
        return ResourceError(text)
    if request_context.method == "prompts/get":
        return MCPError(code=INTERNAL_ERROR, message=text)
    return exc
