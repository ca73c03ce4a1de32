"""The client half: read a server's question, validate the answer, reply on the wire.

The form model itself (`FormSpec`, `FieldSpec`, `Option`, `parse_requested_schema`)
lives in `typed_elicit._wire.spec`, shared with the server; this module keeps what only a
client needs: reading a request, the typed handler and `PinnedHandshake`.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, cast
from urllib.parse import urlsplit

import mcp_types as types
from anyio.abc import ObjectSendStream
from mcp.client import Client, ClientRequestContext, Transport
from mcp.client.session import ClientSession, ElicitationFnT
from mcp.shared.exceptions import MCPError, UrlElicitationRequiredError
from mcp.shared.message import SessionMessage
from pydantic import BaseModel, ValidationError

from typed_elicit._core.results import Accepted, Cancelled, Declined
from typed_elicit._wire.parse import check_request_text
from typed_elicit._wire.parse import model_from_schema as model_from_schema
from typed_elicit._wire.parse import parse_requested_schema as parse_requested_schema
from typed_elicit._wire.spec import FieldSpec as FieldSpec
from typed_elicit._wire.spec import FormSpec as FormSpec
from typed_elicit._wire.spec import Option as Option
from typed_elicit.client._apps import AppRenderer, app_answer
from typed_elicit.errors import InvalidResponse, RequestedSchemaError

if TYPE_CHECKING:
    from mcp.client._transport import TransportStreams
    from mcp.shared._stream_protocols import WriteStream

logger = logging.getLogger("typed_elicit.client")


# --- the typed handler -----------------------------------------------------------------------


@dataclass(frozen=True)
class FormRequest:
    """A form-mode question, as a typed handler sees it."""

    message: str
    """Why the server asks, in the server's words."""
    requested_schema: Mapping[str, Any]
    """The schema exactly as the server sent it."""
    form: FormSpec
    """The checked schema and the model built from it."""
    protocol_version: str | None = None
    """The revision the connection negotiated, when known."""
    server_name: str | None = None
    """The server's self-declared name, when it gave one (display only, not authenticated)."""

    @property
    def model(self) -> type[BaseModel]:
        """The pydantic model built from the requested schema."""
        return self.form.model

    def accept(self, answer: Mapping[str, Any] | BaseModel) -> Accepted[BaseModel]:
        """Validate an answer against the requested schema, defaults filled in.

        Args:
            answer: Values keyed by wire name, or a model instance.

        Returns:
            `Accepted` holding an instance of `model`, ready to return from a handler.

        Raises:
            InvalidResponse: The answer does not satisfy the schema.
        """
        return Accepted(self.form.instance(answer))


@dataclass(frozen=True)
class UrlRequest:
    """A URL-mode question: the server asks the user to open a URL out of band."""

    message: str
    url: str
    """Show it in full before asking consent; never open it without consent."""
    elicitation_id: str | None = None
    protocol_version: str | None = None
    server_name: str | None = None

    def __repr__(self) -> str:
        """The request with its URL redacted (`redacted_url`): a query may hold a one-time token."""
        return (
            f"UrlRequest(message={self.message!r}, url={redacted_url(self.url)!r}, "
            f"elicitation_id={self.elicitation_id!r}, protocol_version={self.protocol_version!r}, "
            f"server_name={self.server_name!r})"
        )


def redacted_url(url: str) -> str:
    """`url` without what may be secret: only scheme, host (and port) and path.

    URL-mode URLs carry single-use tokens in their query, and may carry anything in
    their fragment or user info, so logs, reprs and `ResponderEntry.reason` keep only
    `https://id.example.com/authorize?…` (the `?…` marks a dropped query or fragment).

    Args:
        url: The URL as the server sent it.

    Returns:
        The redacted URL.
    """
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port
    except ValueError:
        return "<unreadable URL>"
    if ":" in host:
        host = f"[{host}]"
    if port is not None:
        host = f"{host}:{port}"
    elided = "?…" if parts.query or parts.fragment or url.endswith(("?", "#")) else ""
    return f"{parts.scheme}://{host}{parts.path}{elided}"


UrlAnswer: TypeAlias = Literal["accept", "decline", "cancel"]
"""A URL-mode answer: `accept` means consent only; no content travels back."""

FormHandler: TypeAlias = Callable[[FormRequest], Awaitable[Accepted[BaseModel] | Declined | Cancelled]]
"""What `elicitation_handler` calls for a form question: `async def (FormRequest) -> outcome`.

It returns `Accepted(model instance)`, `Declined()` or `Cancelled()`; the instance is built
from `request.model` (the model built from the question's schema), or by `request.accept(values)`.
"""
UrlHandler: TypeAlias = Callable[[UrlRequest], Awaitable[UrlAnswer]]
"""What `elicitation_handler` calls for a URL-mode question: `async def (UrlRequest) -> UrlAnswer`.

It opens (or shows) `request.url` and returns the user's consent; without one, URL-mode
questions are declined.
"""


def read_request(
    context: ClientRequestContext | None, params: types.ElicitRequestParams
) -> FormRequest | UrlRequest:
    """Turn the SDK's callback arguments into a `FormRequest` or `UrlRequest`.

    Args:
        context: The SDK's request context (gives the protocol version and server name),
            or None outside a connection.
        params: The request's parameters.

    Returns:
        The typed request.

    Raises:
        RequestedSchemaError: A form request's schema is not a valid elicitation schema, or
            the message (or URL) is longer than `MAX_MESSAGE_LENGTH` or not valid Unicode.
    """
    check_request_text(
        params.message, params.url if isinstance(params, types.ElicitRequestURLParams) else None
    )
    version, server = _peer(context.session) if context is not None else (None, None)
    if isinstance(params, types.ElicitRequestURLParams):
        return UrlRequest(params.message, params.url, params.elicitation_id, version, server)
    schema = params.requested_schema
    return FormRequest(params.message, schema, parse_requested_schema(schema), version, server)


def _peer(session: ClientSession) -> tuple[str | None, str | None]:
    """The revision `session` negotiated and the server's self-declared name, when known."""
    info = session.server_info
    return session.protocol_version, info.name if info is not None else None


def schema_error_reply(error: RequestedSchemaError) -> types.ErrorData:
    """The JSON-RPC error (-32602) a client sends back for a request it cannot use.

    Its message and `data.problems` are bounded (`MAX_PROBLEMS` lines of at most 300
    characters) and never carry a long or non-ASCII value from the request.
    """
    logger.warning("refusing an elicitation request: %s", error)
    return types.ErrorData(
        code=types.INVALID_PARAMS, message=str(error), data={"problems": list(error.problems)}
    )


def elicitation_handler(
    form: FormHandler, *, url: UrlHandler | None = None, app: AppRenderer | None = None
) -> ElicitationFnT:
    """Turn typed async functions into the SDK's `elicitation_callback`.

    The form handler receives a `FormRequest` (message, schema, built model) and returns
    `Accepted(instance)`, `Declined()` or `Cancelled()`. An accepted answer is validated
    against the requested schema and the schema's defaults fill omitted fields before it
    is sent. A request whose schema is malformed or hostile never reaches the handler: the
    server gets a -32602 error naming every problem.

    Usable as a decorator: `@elicitation_handler` over `async def ask(req: FormRequest)`.

    With `app`, a form request that names the server's app view (`_meta.ui.resourceUri`,
    draft SEP-3118) is shown by that app: its resource is read over the same session and
    handed to `app`, whose `ElicitResult` is checked against the schema and returned; when
    the app cannot be used (unreadable, not an app, `AppCannotRender`, an answer that does
    not fit) `form` answers instead. Advertise it with `Client(extensions=[app_capability()])`.

    Args:
        form: Answers form-mode requests.
        url: Answers URL-mode requests; when None they are declined.
        app: Shows a form request in the server's app (`AppRenderer`); None: never.

    Returns:
        A callback for `mcp.Client(..., elicitation_callback=...)`. It never raises: an
        unusable request gets -32602; an accepted answer that does not fit the schema,
        or a handler that raises, gets -32603 (INTERNAL_ERROR) naming only the fields or
        the exception type, and is logged on `typed_elicit.client` (no values).
    """

    async def callback(
        context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult | types.ErrorData:
        try:
            request = read_request(context, params)
        except RequestedSchemaError as exc:
            return schema_error_reply(exc)
        try:
            if app is not None and isinstance(params, types.ElicitRequestFormParams):
                assert isinstance(request, FormRequest)
                shown = await app_answer(context, params, request.form, app)
                if shown is not None:
                    return shown
            if isinstance(request, UrlRequest):
                answer: UrlAnswer = "decline" if url is None else await url(request)
                return types.ElicitResult(action=answer)
            outcome = await form(request)
            if isinstance(outcome, Accepted):
                content = request.form.content(outcome.data)
                return types.ElicitResult(action="accept", content=cast("dict[str, Any]", content))
            return types.ElicitResult(action="decline" if isinstance(outcome, Declined) else "cancel")
        except InvalidResponse as exc:
            fields = ", ".join(sorted({name or "(form)" for name, _ in exc.errors}))
            logger.error("the form handler's answer does not fit the requested form (fields: %s)", fields)
            return types.ErrorData(
                code=types.INTERNAL_ERROR,
                message=f"the client's answer does not fit the requested form (fields: {fields})",
            )
        except Exception as exc:
            which = "URL" if isinstance(request, UrlRequest) else "form"
            logger.error("the %s handler raised %s", which, type(exc).__name__)
            return types.ErrorData(
                code=types.INTERNAL_ERROR,
                message=f"the client's {which} handler failed ({type(exc).__name__})",
            )

    return callback


# --- -32042: URL elicitation required -------------------------------------------------------


async def call_tool_with_urls(
    client: Client,
    name: str,
    arguments: dict[str, Any] | None = None,
    *,
    url: UrlHandler,
    read_timeout_seconds: float | None = None,
) -> types.CallToolResult:
    """Call a tool; if it answers `-32042` (URL elicitation required), run the URLs and call it once more.

    The server's `-32042` error lists URL-mode elicitations (2025-11-25). Each is checked
    like any URL-mode request (valid text, an absolute http(s) URL) and handed to `url`,
    one after the other; when the user consents to every one (`"accept"`), the tool is
    called again, once. The URL handler should return when the user has finished the
    page (or the server's `notifications/elicitation/complete` arrived), since the
    retry expects the flow done.

    Args:
        client: A connected `mcp.Client`.
        name: The tool.
        arguments: Its arguments.
        url: The URL handler (the same one `elicitation_handler(url=...)` takes).
        read_timeout_seconds: Passed to each `call_tool`.

    Returns:
        The tool's result: of the first call, or of the one retry.

    Raises:
        UrlElicitationRequiredError: If the user declined or cancelled a URL, or the
            retry asked for URLs again (the SDK's error, with its `elicitations`).
        RequestedSchemaError: If a listed elicitation's message or URL is unusable
            (not valid text, too long, not an absolute http(s) URL).
        MCPError: Any other error of the call, as the SDK raised it.
    """
    try:
        return await client.call_tool(name, arguments, read_timeout_seconds)
    except MCPError as exc:
        if exc.code != types.URL_ELICITATION_REQUIRED:
            raise
        try:
            required = UrlElicitationRequiredError.from_error(exc.error)
        except (ValueError, ValidationError):
            raise RequestedSchemaError(["data.elicitations: not a list of URL-mode elicitations"]) from None
    if not required.elicitations:
        raise RequestedSchemaError(["data.elicitations: empty, so there is nothing to complete"])
    version, server = _peer(client.session)
    for params in required.elicitations:
        check_request_text(params.message, params.url)
        if urlsplit(params.url).scheme.lower() not in ("https", "http"):
            raise RequestedSchemaError([f"url: not an http(s) URL ({redacted_url(params.url)})"])
        answer = await url(UrlRequest(params.message, params.url, params.elicitation_id, version, server))
        if answer != "accept":
            logger.info("the user did not open %s (%s); the call ends", redacted_url(params.url), answer)
            raise required
    return await client.call_tool(name, arguments, read_timeout_seconds)


# --- pinning the handshake revision --------------------------------------------------------


class _OfferVersion(ObjectSendStream[SessionMessage]):
    """A write stream that makes the client's `initialize` offer another revision.

    The SDK always offers its newest handshake revision (2025-11-25); a 2025-06-18
    client offers 2025-06-18 and declares `elicitation: {}`. Exactly those two fields of
    the one `initialize` request are rewritten; everything else passes through.
    """

    def __init__(self, inner: WriteStream[SessionMessage], version: str) -> None:
        self._inner = inner
        self._version = version

    async def send(self, item: SessionMessage) -> None:
        message = item.message
        if isinstance(message, types.JSONRPCRequest) and message.method == "initialize":
            params = dict(message.params or {})
            params["protocolVersion"] = self._version
            capabilities = dict(params.get("capabilities") or {})
            if "elicitation" in capabilities:
                capabilities["elicitation"] = {}
            params["capabilities"] = capabilities
            item = SessionMessage(message.model_copy(update={"params": params}), item.metadata)
        await self._inner.send(item)

    async def aclose(self) -> None:
        await self._inner.aclose()


class PinnedHandshake:
    """Wrap a transport so the initialize handshake offers an older revision.

    The SDK has no public option to negotiate 2025-06-18; use
    `mcp.Client(PinnedHandshake(transport, "2025-06-18"), mode="legacy")`.
    """

    def __init__(self, transport: Transport, version: str) -> None:
        """Wrap `transport`; its `initialize` will offer `version`."""
        self._transport = transport
        self._version = version

    async def __aenter__(self) -> TransportStreams:
        """Open the wrapped transport."""
        read, write = await self._transport.__aenter__()
        return read, _OfferVersion(write, self._version)

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> bool | None:
        """Close the wrapped transport."""
        await self._transport.__aexit__(exc_type, exc_val, exc_tb)
        return None
