"""Test tools without a person: a scripted user, in-memory connections per era, fuzzing.

`ScriptedUser` is an `elicitation_callback` that answers from a queue and records every
question. `connect` opens an `mcp.Client` to a server (in memory, or through a transport or
URL) on a chosen protocol revision; `era_target` is the one era-to-connection mapping it,
the `typed-elicit` command and typed_elicit's own tests use. `valid_answers` /
`invalid_answers` are Hypothesis strategies (Hypothesis is imported only when they are
called).
"""

from __future__ import annotations

import math
from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import date, datetime, timezone
from functools import partial
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, TypeVar

import mcp_types as types
from mcp import Client
from mcp.client import ClientRequestContext, Transport
from mcp.client._memory import InMemoryTransport
from mcp.client.session import ElicitationFnT
from mcp.client.streamable_http import streamable_http_client
from mcp.server import Server
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel
from typing_extensions import Self

from typed_elicit._core.versions import LATEST_PROTOCOL_VERSION, PROTOCOL_VERSIONS, ProtocolVersion
from typed_elicit._wire.describe import FORMAT_EXAMPLES, number_bounds
from typed_elicit._wire.spec import ContentValue
from typed_elicit.client._handler import (
    FieldSpec,
    FormSpec,
    PinnedHandshake,
    UrlRequest,
    parse_requested_schema,
    read_request,
    schema_error_reply,
)
from typed_elicit.errors import InvalidResponse, RequestedSchemaError, ScriptMistake

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

# --- answers ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Answer:
    """One scripted answer. Build it with `accept`, `decline`, `cancel` or `send_raw`."""

    action: Literal["accept", "decline", "cancel"]
    data: Mapping[str, Any] | BaseModel | None = None
    raw: bool = False
    """Send `data` unchecked (to test how a tool copes with a bad client)."""


def accept(data: Mapping[str, Any] | BaseModel | None = None, /, **fields: Any) -> Answer:
    """Accept with `data` (or keyword fields); checked against the question, defaults filled in.

    For a URL-mode question, accept means consent and takes no data.
    """
    if isinstance(data, BaseModel):
        data = data.model_dump(mode="json", by_alias=True, exclude_none=True)
    return Answer("accept", {**(data or {}), **fields})


def decline() -> Answer:
    """Refuse explicitly."""
    return Answer("decline")


def cancel() -> Answer:
    """Dismiss without choosing."""
    return Answer("cancel")


def send_raw(
    content: Mapping[str, Any] | None, *, action: Literal["accept", "decline", "cancel"] = "accept"
) -> Answer:
    """Send `content` exactly as given, unchecked: a misbehaving client in a box."""
    return Answer(action, dict(content) if content is not None else None, raw=True)


# --- the scripted user ---------------------------------------------------------------------


Reply: TypeAlias = Answer | types.ElicitResult | types.ErrorData
"""What a script step gives: an `Answer`, or an SDK `ElicitResult` or `ErrorData` sent as given."""
ReplyFunction: TypeAlias = Callable[[types.ElicitRequestParams], Awaitable[Reply]]
"""A script step that computes its reply from the request's params (a slow or stuck user, a code read
from the server's outbox); awaited when its question comes."""
Step: TypeAlias = Reply | ReplyFunction
"""One item of a `ScriptedUser`'s queue."""


@dataclass(frozen=True)
class Question:
    """A question the scripted user was asked."""

    message: str
    mode: Literal["form", "url"]
    requested_schema: Mapping[str, Any] | None
    """The form's schema as sent; None for URL mode."""
    protocol_version: str | None
    """The era of the connection the question came on."""
    url: str | None = None
    elicitation_id: str | None = None

    @property
    def form(self) -> FormSpec:
        """The parsed form (raises `RequestedSchemaError` if it was unusable, `ValueError` for URL mode)."""
        if self.requested_schema is None:
            raise ValueError("a URL-mode question has no form")
        return parse_requested_schema(self.requested_schema)

    @property
    def field_names(self) -> list[str]:
        """The form's property names, in the server's order (empty for URL mode)."""
        return list(self.requested_schema.get("properties", {})) if self.requested_schema else []


class ScriptedUser:
    """An `elicitation_callback` that answers from a queue and records every question.

    Example:
        ```python
        user = ScriptedUser(accept(name="Ada"), decline())
        async with connect(server, "2025-11-25", elicitation_callback=user) as client:
            await client.call_tool("signup", {})
        assert user.questions[0].field_names == ["name"]
        user.assert_done()
        ```

    A scripted `accept` is validated against the question like a conforming client
    would: the schema's defaults fill omitted fields and a misfit is a test bug. Use
    `send_raw` to send bad content on purpose. A misfit, or a question with no answer
    left, is a script mistake: the server gets a JSON-RPC error (so it is not left
    waiting), the mistake is recorded in `mistakes` and `problems`, and the call made
    through `connect` raises `ScriptMistake` on every protocol revision.
    """

    def __init__(self, *answers: Step, otherwise: Callable[[Question], Answer] | None = None) -> None:
        """Create a user that will give `answers`, in order.

        Args:
            *answers: The answers, in the order the questions will come: `Answer`s, SDK
                results or errors sent exactly as given, or async functions of the
                request's params returning one of these (see `Step`).
            otherwise: Answers any question asked after the queue ran out (by default
                such a question is a script mistake).
        """
        self._queue: list[Step] = list(answers)
        self._otherwise = otherwise
        self.questions: list[Question] = []
        """Every question asked, in order."""
        self.sent: list[types.ElicitResult] = []
        """Every result sent, in order (errors excluded)."""
        self.problems: list[str] = []
        """Problems seen so far: script mistakes, and server schemas that were refused."""
        self.mistakes: list[str] = []
        """Script mistakes seen so far: misfit answers, questions with no answer left."""

    def accept(self, data: Mapping[str, Any] | BaseModel | None = None, /, **fields: Any) -> Self:
        """Queue an `accept` answer; returns the user for chaining."""
        self._queue.append(accept(data, **fields))
        return self

    def decline(self) -> Self:
        """Queue a `decline` answer."""
        self._queue.append(decline())
        return self

    def cancel(self) -> Self:
        """Queue a `cancel` answer."""
        self._queue.append(cancel())
        return self

    def send_raw(
        self, content: Mapping[str, Any] | None, *, action: Literal["accept", "decline", "cancel"] = "accept"
    ) -> Self:
        """Queue unchecked content."""
        self._queue.append(send_raw(content, action=action))
        return self

    @property
    def pending(self) -> int:
        """How many queued answers were not used yet."""
        return len(self._queue)

    def assert_done(self) -> None:
        """Check that every answer was used and the script made no mistake.

        Raises:
            AssertionError: Answers are left over, or `problems` is not empty.
        """
        issues = list(self.problems)
        if self._queue:
            issues.append(f"{len(self._queue)} scripted answer(s) never used: {self._queue!r}")
        if issues:
            raise AssertionError("ScriptedUser: " + "; ".join(issues))

    async def __call__(
        self, context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult | types.ErrorData:
        """Record the question and give the next answer; the SDK's callback signature."""
        version = context.session.protocol_version
        if isinstance(params, types.ElicitRequestURLParams):
            question = Question(params.message, "url", None, version, params.url, params.elicitation_id)
        else:
            question = Question(params.message, "form", params.requested_schema, version)
        self.questions.append(question)
        number = len(self.questions)
        try:
            request = read_request(context, params)
        except RequestedSchemaError as exc:
            self.problems.append(f"question {number} has an unusable schema: {exc}")
            return schema_error_reply(exc)
        step: Step
        if self._queue:
            step = self._queue.pop(0)
        elif self._otherwise is not None:
            step = self._otherwise(question)
        else:
            return self._mistake(
                f"no answer left for question {number} ({params.message!r}); queue one more answer, "
                "or pass otherwise= to answer any number of questions"
            )
        answer = await step(params) if callable(step) else step
        if isinstance(answer, types.ErrorData):
            return answer
        if isinstance(answer, types.ElicitResult):
            return self._send(answer)
        if answer.raw or answer.action != "accept":
            content = dict(answer.data) if isinstance(answer.data, Mapping) else None
            return self._send(types.ElicitResult(action=answer.action, content=content))
        if isinstance(request, UrlRequest):
            if answer.data:
                return self._mistake(f"question {number} is URL mode; accept() takes no data for it")
            return self._send(types.ElicitResult(action="accept"))
        try:
            content = request.form.content(answer.data or {})
        except InvalidResponse as exc:
            return self._mistake(
                f"scripted answer to question {number} does not fit ({exc}); fix the answer, or send it "
                "unchecked with send_raw()"
            )
        return self._send(types.ElicitResult(action="accept", content=dict(content)))

    def _send(self, result: types.ElicitResult) -> types.ElicitResult:
        self.sent.append(result)
        return result

    def _mistake(self, text: str) -> types.ErrorData:
        self.problems.append(text)
        self.mistakes.append(text)
        return types.ErrorData(code=types.INTERNAL_ERROR, message=f"ScriptedUser: {text}")


_T = TypeVar("_T")


class _ScriptedClient(Client):
    """A `Client` whose calls raise `ScriptMistake` when its scripted user made one during them.

    On 2026-07-28 the SDK raises the scripted user's error reply as `MCPError`; on the
    push revisions the reply goes to the server and the tool returns whatever it makes
    of it. Either way the call ends here with the same `ScriptMistake`.
    """

    script: ScriptedUser | None = None

    async def call_tool(self, *args: Any, **kwargs: Any) -> types.CallToolResult:
        """`Client.call_tool`, checked for script mistakes."""
        return await self._checked(super().call_tool(*args, **kwargs))

    async def get_prompt(self, *args: Any, **kwargs: Any) -> types.GetPromptResult:
        """`Client.get_prompt`, checked for script mistakes."""
        return await self._checked(super().get_prompt(*args, **kwargs))

    async def read_resource(self, *args: Any, **kwargs: Any) -> types.ReadResourceResult:
        """`Client.read_resource`, checked for script mistakes."""
        return await self._checked(super().read_resource(*args, **kwargs))

    async def _checked(self, call: Awaitable[_T]) -> _T:
        """Await `call`; raise `ScriptMistake` if the scripted user made a mistake meanwhile.

        Raises:
            ScriptMistake: The script ran out of answers or gave one that does not fit.
        """
        mistakes = self.script.mistakes if self.script is not None else []
        before = len(mistakes)
        try:
            result = await call
        except MCPError as exc:
            if len(mistakes) > before:
                raise ScriptMistake(mistakes[before:]) from exc
            raise
        if len(mistakes) > before:
            raise ScriptMistake(mistakes[before:])
        return result


# --- in-memory connections per era ---------------------------------------------------------


Target: TypeAlias = Server[Any] | MCPServer | Transport | str
"""What `connect` reaches: a server in memory, an SDK transport (stdio, ...) or an http(s) URL."""


def era_target(target: Target, protocol_version: ProtocolVersion) -> tuple[Target, Literal["auto", "legacy"]]:
    """The `mcp.Client` target and `mode` that negotiate `protocol_version` with `target`.

    The one place that maps an era to a client connection (`connect` and the
    `typed-elicit` command use it): 2026-07-28 is the SDK's `mode="auto"`; 2025-11-25 is
    `mode="legacy"`; 2025-06-18 is `mode="legacy"` through `PinnedHandshake`, which offers
    2025-06-18 as a client of that era does (the SDK has no option for it).

    Args:
        target: A server, a transport, or an http(s) URL.
        protocol_version: The revision to negotiate.

    Returns:
        `(target, mode)` for `mcp.Client(target, mode=mode, ...)`.

    Raises:
        ValueError: `protocol_version` is not one typed_elicit supports.
    """
    if protocol_version == "2026-07-28":
        return target, "auto"
    if protocol_version == "2025-11-25":
        return target, "legacy"
    if protocol_version == "2025-06-18":
        if isinstance(target, str):
            target = streamable_http_client(target)
        elif isinstance(target, (Server, MCPServer)):
            target = InMemoryTransport(target)
        return PinnedHandshake(target, protocol_version), "legacy"
    raise ValueError(
        f"unsupported protocol version {protocol_version!r}: use one of {', '.join(PROTOCOL_VERSIONS)}"
    )


@asynccontextmanager
async def connect(
    server: Target,
    protocol_version: ProtocolVersion = LATEST_PROTOCOL_VERSION,
    *,
    elicitation_callback: ElicitationFnT | None = None,
    read_timeout_seconds: float | None = None,
    **client_options: Any,
) -> AsyncGenerator[Client, None]:
    """Connect an `mcp.Client` to `server` on a chosen protocol revision.

    The era decides the connection as `era_target` says. `server` is usually a server
    in memory; an SDK transport or an http(s) URL reaches a server elsewhere.

    Args:
        server: The server under test, a transport to it, or its http(s) URL.
        protocol_version: The revision to negotiate.
        elicitation_callback: Answers questions, e.g. a `ScriptedUser`.
        read_timeout_seconds: Per-request timeout passed to the client.
        **client_options: Other `mcp.Client` options (`message_handler`, `logging_callback`, ...).

    Yields:
        The connected client; `client.protocol_version` is `protocol_version`. When a
        `ScriptedUser` answers, its `call_tool`, `get_prompt` and `read_resource` raise
        `ScriptMistake` for a call during which the script made a mistake, on every
        revision.

    Raises:
        ValueError: `protocol_version` is not one typed_elicit supports.
        RuntimeError: The server negotiated another revision than the one asked for.
        Exception: Whatever the `async with` body raised, unwrapped.
    """
    target, mode = era_target(server, protocol_version)
    client = _ScriptedClient(
        target,
        mode=mode,
        elicitation_callback=elicitation_callback,
        read_timeout_seconds=read_timeout_seconds,
        **client_options,
    )
    if isinstance(elicitation_callback, ScriptedUser):
        client.script = elicitation_callback
    failure: Exception | None = None
    async with client:
        if client.protocol_version != protocol_version:
            raise RuntimeError(
                f"asked for {protocol_version}, the server negotiated {client.protocol_version}"
            )
        try:
            yield client
        except Exception as exc:
            # Raised in the `async with` body (a failed assert, a ScriptMistake): close the
            # connection cleanly and raise it as is, not wrapped in the SDK's task-group
            # exception groups, so `pytest.raises` around the block sees it.
            failure = exc
    if failure is not None:
        raise failure


# --- Hypothesis strategies -------------------------------------------------------------------


def _form_of(target: type[BaseModel] | Mapping[str, Any], protocol_version: ProtocolVersion) -> FormSpec:
    if isinstance(target, type):
        from typed_elicit._forms.reduce import reduce_schema

        return parse_requested_schema(reduce_schema(target, protocol_version=protocol_version))
    return parse_requested_schema(dict(target))


def valid_answers(
    target: type[BaseModel] | Mapping[str, Any],
    *,
    protocol_version: ProtocolVersion = LATEST_PROTOCOL_VERSION,
) -> SearchStrategy[dict[str, ContentValue]]:
    """A Hypothesis strategy for answers that satisfy a form's wire schema.

    Optional fields and fields with a default are sometimes left out. Validity is
    judged against the wire schema; validators on the model that the schema cannot
    express are not taken into account.

    Args:
        target: A model (reduced with `reduce_schema` for `protocol_version`) or a
            requested schema.
        protocol_version: The revision whose schema to use.

    Returns:
        Strategy of `content` dicts, by wire name.

    Raises:
        ImportError: Hypothesis is not installed.
        SchemaError: The model cannot be elicited on that revision.
        RequestedSchemaError: The schema is not a valid elicitation schema.
    """
    from hypothesis import strategies as st

    form = _form_of(target, protocol_version)
    parts: dict[str, SearchStrategy[Any]] = {
        spec.name: _valid_value(spec)
        if spec.required and not spec.has_default
        else st.one_of(st.just(_OMIT), _valid_value(spec))
        for spec in form.fields
    }
    return st.fixed_dictionaries(parts).map(lambda d: {k: v for k, v in d.items() if v is not _OMIT})


def invalid_answers(
    target: type[BaseModel] | Mapping[str, Any],
    *,
    protocol_version: ProtocolVersion = LATEST_PROTOCOL_VERSION,
) -> SearchStrategy[dict[str, Any]]:
    """A Hypothesis strategy for answers that break a form's wire schema in exactly one way.

    Each answer is a valid answer with one field spoiled: a required field left out or
    null, a value of the wrong type, out of range, too short or long, not one of the
    options, or not in the field's format. Every spoilt value is one that pydantic's
    lax mode rejects too, so a server validating with the model must refuse it.
    Send them with `ScriptedUser.send_raw`.

    Args:
        target: A model or a requested schema, as for `valid_answers`.
        protocol_version: The revision whose schema to use.

    Returns:
        Strategy of `content` dicts that no conforming client would send.

    Raises:
        ImportError: Hypothesis is not installed.
        ValueError: The form has no field an answer could get wrong.
        SchemaError: The model cannot be elicited on that revision.
        RequestedSchemaError: The schema is not a valid elicitation schema.
    """
    from hypothesis import strategies as st

    form = _form_of(target, protocol_version)
    spoilers: list[SearchStrategy[Callable[[dict[str, Any]], dict[str, Any]]]] = []
    for spec in form.fields:
        if spec.required and not spec.has_default:
            spoilers.extend((st.just(_without(spec.name)), st.just(_setter(spec.name, None))))
        spoilers.append(_invalid_value(spec).map(partial(_setter, spec.name)))
    if not spoilers:
        raise ValueError("this form has no field, so no answer to it can be invalid")
    return st.tuples(valid_answers(target, protocol_version=protocol_version), st.one_of(spoilers)).map(
        lambda pair: pair[1](dict(pair[0]))
    )


_OMIT: Any = object()


def _without(name: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    return lambda answer: {k: v for k, v in answer.items() if k != name}


def _setter(name: str, value: object) -> Callable[[dict[str, Any]], dict[str, Any]]:
    return lambda answer: {**answer, name: value}


def _text(min_size: int = 0, max_size: int | None = None) -> SearchStrategy[str]:
    from hypothesis import strategies as st

    alphabet = st.characters(codec="utf-8", exclude_categories=["Cs", "Cc"])
    return st.text(alphabet, min_size=min_size, max_size=max_size if max_size is not None else min_size + 40)


def _valid_value(spec: FieldSpec) -> SearchStrategy[Any]:
    from hypothesis import strategies as st

    if spec.kind == "boolean":
        return st.booleans()
    if spec.kind == "choice":
        return st.sampled_from([o.value for o in spec.options])
    if spec.kind == "multi_choice":
        values = [o.value for o in spec.options]
        most = len(values) if spec.max_items is None else min(spec.max_items, len(values))
        return st.lists(st.sampled_from(values), unique=True, min_size=spec.min_items or 0, max_size=most)
    if spec.kind in ("integer", "number"):
        low, high = number_bounds(spec)  # the range every value generator uses
        if spec.kind == "integer":
            return st.integers(
                min_value=None if low is None else int(low), max_value=None if high is None else int(high)
            )
        return st.floats(min_value=low, max_value=high, allow_nan=False, allow_infinity=False)
    low, high = spec.min_length or 0, spec.max_length
    formats: dict[str, SearchStrategy[str]] = {
        "email": st.from_regex(r"[a-z][a-z0-9]{0,8}@[a-z]{1,8}\.(com|org|net)", fullmatch=True),
        "uri": st.from_regex(r"https://[a-z]{1,8}\.example/[a-z0-9]{0,8}", fullmatch=True),
        "date": st.dates(date(1900, 1, 1), date(2100, 12, 31)).map(lambda d: d.isoformat()),
        "date-time": st.datetimes(
            datetime(1900, 1, 1), datetime(2100, 12, 31), timezones=st.just(timezone.utc)
        ).map(lambda d: d.isoformat()),
    }
    if spec.format is not None:
        examples = st.one_of(st.just(FORMAT_EXAMPLES[spec.format]), formats[spec.format])
        return examples.filter(lambda s: low <= len(s) <= (high if high is not None else len(s)))
    return _text(low, high)


def _invalid_value(spec: FieldSpec) -> SearchStrategy[Any]:
    from hypothesis import strategies as st

    not_text = st.one_of(st.integers(), st.lists(st.just("x"), min_size=1, max_size=2))
    words = st.sampled_from(["maybe", "n/a", "twelve", "?"])
    bad: list[SearchStrategy[Any]]
    known = {o.value for o in spec.options}
    if spec.kind == "boolean":
        bad = [words, st.integers(min_value=2), st.lists(st.just("true"), min_size=1, max_size=1)]
    elif spec.kind == "choice":
        bad = [_text(1, 12).filter(lambda s: s not in known), st.integers(), st.just([spec.options[0].value])]
    elif spec.kind == "multi_choice":
        stranger = _text(1, 12).filter(lambda s: s not in known)
        bad = [st.lists(stranger, min_size=1, max_size=3), st.just(spec.options[0].value)]
        if spec.min_items:
            bad.append(st.just([o.value for o in spec.options[: spec.min_items - 1]]))
        if spec.max_items is not None and spec.max_items < len(spec.options):
            bad.append(st.just([o.value for o in spec.options[: spec.max_items + 1]]))
    elif spec.kind in ("integer", "number"):
        bad = [words, st.lists(st.just("1"), min_size=1, max_size=2)]
        if spec.kind == "integer":
            bad.append(st.integers(-1000, 1000).map(lambda n: n + 0.5))
        if spec.minimum is not None:
            below = math.floor(spec.minimum)
            bad.append(st.integers(1, 1000).map(lambda n: below - n))
        if spec.maximum is not None:
            above = math.ceil(spec.maximum)
            bad.append(st.integers(1, 1000).map(lambda n: above + n))
    else:
        bad = [not_text]
        if spec.min_length:
            bad.append(_text(0, spec.min_length - 1))
        if spec.max_length is not None:
            bad.append(_text(spec.max_length + 1, spec.max_length + 20))
        if spec.format is not None:
            bad.append(st.sampled_from(["not a " + spec.format.replace("-", " "), "", "@", "2020-13-45"]))
    return st.one_of(bad)
