"""The LLM-mediated fallback: ask through the model when the client cannot elicit.

With `on_unsupported="fallback"`, a question the client cannot be asked ends the
tool call with a result that tells the model the question and hands it a sealed
token. The model asks the user in the chat and calls the companion tool that
`install_fallback` registers with the token and the answer. The companion
unseals the token and runs the original tool again with its original
arguments, replaying the answers recorded so far exactly like a 2026-07-28
round (see `typed_elicit._calls.replay`), so the same tool code asks, re-asks and continues.

The token is sealed by the server's one sealer (`typed_elicit._calls.sealer`), with the keys
its request state is sealed with (AES-256-GCM by default): the model can neither read nor alter
it, and every replica configured with the same keys redeems it. It expires, names the server
(its audience) and, when the transport authenticates, the principal. It also
carries a random id (`jti`), and is single-use: the companion claims `token:<jti>`
in a `Store` (the server's, see `typed_elicit.stores.configure`) when it accepts the token, and
refuses it after that.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import weakref
from dataclasses import dataclass
from typing import Annotated, Any, Final, Literal, NoReturn

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.server.request_state import RequestStateSecurity
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from mcp_types import ElicitResult as WireResult
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from typed_elicit._calls.plugs import Resume, resuming, route
from typed_elicit._calls.sealer import Sealer
from typed_elicit._calls.signals import FallbackRequired
from typed_elicit._calls.state import ReplayState
from typed_elicit._core import clock as _clock
from typed_elicit._core.foreign import request_state_security
from typed_elicit._wire.describe import describe
from typed_elicit._wire.parse import parse_requested_schema
from typed_elicit.errors import ElicitUsageError, InvalidFallbackToken, TypedElicitError
from typed_elicit.stores._config import store_for
from typed_elicit.stores._protocol import Store

TOKEN_VERSION: Final[Literal[2]] = 2
TOKEN_PURPOSE: Final = "fallback-token"
"""What a token is sealed for (the sealer binds it): a token opens as nothing else."""
META_KEY: Final = "io.github.typed-elicit/fallback"
"""The `_meta` key of a fallback result: token, companion tool name, message and schema."""


@dataclass(frozen=True)
class Installed:
    """The companion tool of one server."""

    tool: str
    """The companion tool's name."""
    security: RequestStateSecurity
    sealer: Sealer
    audience: str
    redeemed: Store | None
    """The store given to `install_fallback`; None means the server's (`store_for`)."""

    def hand_over(
        self,
        sdk: Context[Any, Any],
        tool: str,
        arguments: dict[str, Any],
        state: ReplayState,
        message: str,
        schema: dict[str, Any],
    ) -> NoReturn:
        """End the call with a result that asks the model to put the question to the user (`ModelRoute`).

        Raises:
            FallbackRequired: Always: `@elicits` makes its result the call's result.
        """
        now = _clock.now()
        claims = _Claims(
            v=TOKEN_VERSION,
            jti=secrets.token_urlsafe(16),
            iat=now,
            exp=now + self.security.ttl,
            aud=self.audience,
            p=_principal(self, sdk),
            tool=tool,
            args=arguments,
            state=state,
        )
        token = self.sealer.seal(
            TOKEN_PURPOSE, claims.model_dump_json().encode()
        )  # expiring, naming the call
        raise FallbackRequired(
            fallback_result(companion=self.tool, token=token, message=message, schema=schema)
        )


_installed: weakref.WeakKeyDictionary[MCPServer, Installed] = weakref.WeakKeyDictionary()


def installed(server: MCPServer) -> Installed | None:
    """The companion tool installed on `server`, if any."""
    return _installed.get(server)


def install_fallback(
    server: MCPServer,
    *,
    name: str = "send_elicitation_result",
    security: RequestStateSecurity | None = None,
    redeemed: Store | None = None,
) -> None:
    """Register the companion tool that `on_unsupported="fallback"` needs.

    The tool takes `token`, `action` (`accept`, `decline` or `cancel`) and
    `content` (the answer's fields, for `accept`); it runs the original tool
    again with its original arguments and the answers given so far, and returns
    what that tool returns, or the next question.

    Each token is single-use, so the code after the tool's last question runs
    once per answer, not once per redemption. The companion marks a token used
    when it accepts it (sealed, unexpired, for this server and user, with content
    of the right shape) and then runs the tool; a second redemption is refused
    with `InvalidFallbackToken` ("already used"). That holds even when the run
    fails, transient failures included: the run may have done part of its work
    before failing, so redeeming the token again is not a safe retry. To retry,
    call the tool again; it asks the question again with a fresh token. A token
    refused before it was accepted (altered, expired, another user's, content of
    the wrong shape) is not marked and can still be redeemed.

    Security: the model sees each fallback question and relays the answer, so it
    may read, alter or invent it. Never use the fallback for secrets (form models
    refuse secret-looking fields anyway; URL-mode questions never fall back), nor
    for approvals that must come from a person rather than from the model.

    Args:
        server: The server the `@elicits` tools are registered on.
        name: The companion tool's name.
        security: Seals the tokens; its `ttl` is how long a token stays valid. None: the
            server's own request-state security (`MCPServer(request_state_security=...)`,
            600 s by default), so replicas configured with shared keys redeem each other's.
        redeemed: Records the tokens already redeemed. None uses the server's
            store (`configure(server, store=...)`; by default one in this process,
            which holds across replicas only with sticky routing); several replicas
            need one shared store (see `typed_elicit.stores.Store`).

    Raises:
        ValueError: If `server` already has a companion tool from `install_fallback`.
        ElicitUsageError: If `security` is None and the server has no request-state security
            (a low-level server without a `RequestStateBoundary`).
    """
    if server in _installed:
        raise ValueError(
            f"install_fallback was already called on this server (tool {_installed[server].tool!r}); "
            "call it once per server"
        )
    security = security or request_state_security(server)
    if security is None:
        raise ElicitUsageError.unsealed(server.name or "", "install_fallback")
    config = Installed(
        tool=name,
        security=security,
        sealer=Sealer(security.codec),
        audience=server.name or "",
        redeemed=redeemed,
    )

    async def companion(
        token: Annotated[str, Field(description="The token given with the question, unchanged.")],
        action: Annotated[
            Literal["accept", "decline", "cancel"],
            Field(
                description="accept: the user answered; decline: the user refused; "
                "cancel: the user dismissed the question."
            ),
        ],
        ctx: Context[Any, Any],
        content: Annotated[
            dict[str, Any] | None,
            Field(description="For accept: the user's answer, one key per field of the question."),
        ] = None,
    ) -> CallToolResult:
        return await _redeem(server, config, ctx, token, _wire_result(action, content))

    server.add_tool(
        companion,
        name=name,
        description=(
            "Deliver the user's answer to a question another tool asked through you. Call it only "
            "after asking the user that question and getting their reply; pass the token unchanged."
        ),
        annotations=ToolAnnotations(title="Send the user's answer", open_world_hint=False),
        structured_output=False,
    )
    _installed[server] = config
    route(server, config)


async def _redeem(
    server: MCPServer, config: Installed, ctx: Context[Any, Any], token: str, response: WireResult
) -> CallToolResult:
    try:
        claims = _unseal(config, ctx, token)
        store = config.redeemed if config.redeemed is not None else store_for(server)
        if not await store.claim(f"token:{claims.jti}", claims.exp):
            raise InvalidFallbackToken.because("used", tool=claims.tool)
    except TypedElicitError as exc:
        raise ToolError(f"{type(exc).__name__}: {exc}") from exc
    tool, arguments = claims.tool, claims.args
    reset = resuming.set(Resume(tool=tool, arguments=arguments, state=claims.state, response=response))
    try:
        result = await server.call_tool(tool, arguments, ctx)
    except UnexpectedToolError:
        raise  # a crash: the SDK logs it and keeps its text from the client
    except ToolError as exc:
        return CallToolResult(content=[TextContent(type="text", text=str(exc))], is_error=True)
    finally:
        resuming.reset(reset)
    if not isinstance(result, CallToolResult):  # pragma: no cover - resumed calls never return input_required
        raise ToolError(f"the tool {tool!r} returned an input-required result to the fallback")
    return result


class _Claims(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    v: Literal[2]
    jti: str
    iat: float
    exp: float
    aud: str
    p: str | None
    tool: str
    args: dict[str, Any]
    state: ReplayState


def _unseal(config: Installed, ctx: Context[Any, Any], token: str) -> _Claims:
    raw = config.sealer.unseal(TOKEN_PURPOSE, token)
    try:
        claims = None if raw is None else _Claims.model_validate_json(raw)
    except ValidationError:
        claims = None
    if claims is None or claims.state.pending is None:
        raise InvalidFallbackToken.because("altered")
    if not _clock.now() < claims.exp:
        raise InvalidFallbackToken.because("expired", ttl=config.security.ttl)
    if claims.aud != config.audience:
        raise InvalidFallbackToken.because("other_server")
    if not hmac.compare_digest(claims.p or "", _principal(config, ctx) or ""):
        raise InvalidFallbackToken.because("other_user")
    return claims


def _wire_result(
    action: Literal["accept", "decline", "cancel"], content: dict[str, Any] | None
) -> WireResult:
    """The answer as the protocol carries it; a `ToolError` naming the bad fields if it cannot be."""
    try:
        return WireResult(action=action, content=content)
    except ValidationError as exc:
        # only `content` can fail (the companion's schema takes an action and an object): name its fields
        fields = dict.fromkeys(str(e["loc"][1]) for e in exc.errors() if len(e["loc"]) > 1)
        got = ", ".join(f"{name!r} ({_kind_of((content or {}).get(name))})" for name in fields)
        raise ToolError(
            f"the answer's content has fields of a type an answer cannot carry: {got}. Each field "
            "must be a string, a number, a boolean or a list of strings (or null when optional); "
            "call this tool again with the same token and the content fixed."
        ) from None


def _kind_of(value: Any) -> str:
    # Strings, numbers, booleans and null pass; JSON has only objects and lists left.
    return "a list with a non-string item" if isinstance(value, list) else "an object"


def _principal(config: Installed, ctx: Context[Any, Any]) -> str | None:
    bind = config.security.bind_principal
    principal = bind(ctx.request_context) if bind is not None else None
    return (
        None if principal is None else hashlib.sha256(principal.encode("utf-8", "surrogatepass")).hexdigest()
    )


def fallback_result(*, companion: str, token: str, message: str, schema: dict[str, Any]) -> CallToolResult:
    """The tool result that hands a question to the model."""
    fields = describe_fields(schema) or ["(no fields: the user only confirms or refuses)"]
    text = "\n".join(
        [
            "This tool needs an answer from the user before it can continue. Do not answer it "
            "yourself: ask the user.",
            "",
            f"Question: {message}",
            "",
            "Fields:",
            *(f"- {line}" for line in fields),
            "",
            f"Then call the tool `{companion}` with:",
            f'- token: "{token}" (unchanged)',
            '- action: "accept" with `content` holding the user\'s answer (an object with the fields '
            'above), "decline" if the user refuses, or "cancel" if they do not want to answer now.',
        ]
    )
    meta = {META_KEY: {"tool": companion, "token": token, "message": message, "requestedSchema": schema}}
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True, _meta=meta)


def describe_fields(schema: dict[str, Any]) -> list[str]:
    """One readable line per field of a reduced `requestedSchema` (`str(describe(spec))`)."""
    return [str(describe(spec)) for spec in parse_requested_schema(schema).fields]
