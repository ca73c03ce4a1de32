"""OpenTelemetry for questions: one span per question, events, metrics, and one trace per call.

typed_elicit talks to the OpenTelemetry *API* only (`opentelemetry-api`, the `otel`
extra; the `mcp` SDK already depends on it). The API does nothing until the
application installs an SDK (a `TracerProvider`, a `MeterProvider`), so:

- with no provider set ("installed but unused"), every entry point returns a shared
  do-nothing object, after one check of the global providers per question;
- with a provider, each question gets a span and its metrics.

What a question records (see docs/observability.md for the full table):

- a span `elicit <Model>` (`elicit url` for a URL-mode question), kind INTERNAL, a
  child of the current span (the SDK's `tools/call` SERVER span), with the model
  name, mode, protocol revision, attempt, round and wait time, and its outcome;
- events `typed_elicit.reask`, `typed_elicit.timeout`, `typed_elicit.fallback`;
- a counter `typed_elicit.questions` and a histogram `typed_elicit.question.wait`
  (seconds), both by model, mode and outcome.

Never recorded: an answer's content, a question's message, a URL, an exception's
message or traceback. Errors are recorded by class name only (`error.type`), since
a hook's exception may quote anything.

On 2026-07-28 a call runs as several `tools/call` requests (rounds). The SDK
parents each round's span under the W3C trace context the client sends in `_meta`
(`traceparent`), if any. The first round's span context is kept in the sealed
request state (`traceparent_now`); a later round in another trace (a client that
sends none, or a new one per request) opens a `resume <tool>` span under it
(`resume_round`), linked to that round's own SDK span, so the whole call reads as
one trace. A later round already in that trace opens none.
"""

from __future__ import annotations

import os
from contextlib import AbstractContextManager, nullcontext
from contextvars import ContextVar, Token
from types import TracebackType
from typing import TYPE_CHECKING, Any, Final, Literal, TypeAlias

from typed_elicit._core.foreign import otel_unset
from typed_elicit._core.results import Accepted, Consented, Declined
from typed_elicit._core.suspension import Suspension
from typed_elicit.errors import ElicitationTimeout

if TYPE_CHECKING:
    from collections.abc import Mapping

    from opentelemetry.context import Context
    from opentelemetry.metrics import Counter, Histogram
    from opentelemetry.trace import Span, Tracer
    from opentelemetry.util.types import AttributeValue

Outcome: TypeAlias = Literal["accept", "decline", "cancel", "timeout", "error", "input_required", "fallback"]
"""How a question ended, as recorded on its span and metrics.

`accept`, `decline`, `cancel`: the user's answer (or the policy's, when the client
cannot be asked and `on_unsupported` is `"decline"` or `"defaults"`); `timeout`: no
answer in time; `error`: any other exception (its class in `error.type`);
`input_required`: a 2026-07-28 round ended to ask it; `fallback`: the call ended to
ask it through the model.
"""

SCOPE: Final = "typed_elicit"
"""The instrumentation scope name of every span and instrument."""

TRACEPARENT: Final = "traceparent"
"""The W3C trace context key the 2026-07-28 `_meta` carries (SEP-414)."""


class QuestionTrace:
    """One question's span and metrics (a do-nothing one when telemetry is off).

    Use it as a context manager around the question, and `settle` it with the typed
    result before it closes. An exception leaving the block decides the outcome instead:
    `input_required` and `fallback` for the signals that end a round or a call,
    `timeout` for `ElicitationTimeout`, else `error` with the exception's class. The
    shared do-nothing one (`OFF`) ignores everything.
    """

    __slots__ = ("_attached", "_labels", "_otel", "_span", "_token", "attempt", "outcome", "waited")

    def __init__(self, otel: _Otel | None, span: Span | None, labels: dict[str, AttributeValue]) -> None:
        self._otel = otel
        self._span = span
        self._labels = labels
        self.outcome: Outcome | None = None
        """How the question ended; None until known."""
        self.waited: float | None = None
        """Seconds spent waiting for the answer, if the question waited for one."""
        self.attempt = 0
        """The last attempt made (0, then 1, 2, ... for re-asks)."""
        self._token: Token[QuestionTrace] | None = None
        self._attached: Token[Context] | None = None

    def __enter__(self) -> QuestionTrace:
        """Make this the current question (`current()`) and its span the current span."""
        if self._span is not None:
            from opentelemetry import context, trace

            self._attached = context.attach(trace.set_span_in_context(self._span))
            self._token = _current.set(self)
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        if self._otel is None or self._span is None or self._token is None or self._attached is None:
            return
        from opentelemetry import context
        from opentelemetry.trace import StatusCode

        _current.reset(self._token)
        context.detach(self._attached)
        error_type: str | None = None
        if error is not None:
            if isinstance(error, Suspension):
                self.outcome = error.outcome
                if error.outcome == "fallback":
                    self.event("typed_elicit.fallback")
            elif isinstance(error, ElicitationTimeout):
                self.outcome = "timeout"
                timed: dict[str, AttributeValue] = {"typed_elicit.scope": error.scope}
                if error.timeout is not None:
                    timed["typed_elicit.timeout"] = error.timeout
                if error.answered:
                    timed["typed_elicit.answered_late"] = True
                self.event("typed_elicit.timeout", timed)
            else:
                self.outcome = "error"
                error_type = type(error).__qualname__
        elif self.outcome is None:
            self.outcome = "error"
            error_type = "unfinished"
        labels: dict[str, AttributeValue] = {**self._labels, "typed_elicit.outcome": self.outcome}
        self._span.set_attribute("typed_elicit.outcome", self.outcome)
        self._span.set_attribute("typed_elicit.attempt", self.attempt)
        if self.waited is not None:
            self._span.set_attribute("typed_elicit.wait", self.waited)
        if error_type is not None:
            self._span.set_attribute("error.type", error_type)
            self._span.set_status(StatusCode.ERROR, error_type)
            labels["error.type"] = error_type
        self._span.end()
        self._otel.counter.add(1, labels)
        if self.waited is not None:
            self._otel.wait.record(self.waited, labels)

    def settle(self, result: object) -> None:
        """Record the question's typed result as its outcome (`Accepted`, `Declined`, ...)."""
        accepted = isinstance(result, (Accepted, Consented))
        self.outcome = "accept" if accepted else "decline" if isinstance(result, Declined) else "cancel"

    def waited_more(self, seconds: float) -> None:
        """Add `seconds` spent waiting for the client to the question's wait time."""
        if self._span is not None:
            self.waited = seconds if self.waited is None else self.waited + seconds

    def event(self, name: str, attributes: Mapping[str, AttributeValue] | None = None) -> None:
        """Add the event `name` to the question's span (nothing when telemetry is off)."""
        if self._span is not None:
            self._span.add_event(name, attributes)

    def reask(self, attempt: int, problems: int) -> None:
        """Record that an invalid answer is being asked again, as attempt `attempt`.

        Args:
            attempt: The new attempt's number (1 for the first re-ask).
            problems: How many problems the answer had (their text is never recorded).
        """
        if self._span is None:
            return
        self.attempt = attempt
        self.event("typed_elicit.reask", {"typed_elicit.attempt": attempt, "typed_elicit.problems": problems})


OFF: Final = QuestionTrace(None, None, {})
"""The shared do-nothing trace: what every question gets while telemetry is off."""

_current: ContextVar[QuestionTrace] = ContextVar("typed_elicit_question_trace", default=OFF)


def current() -> QuestionTrace:
    """The question being recorded in this task (the do-nothing one when none is)."""
    return _current.get()


class _Otel:
    """The OpenTelemetry objects of one pair of global providers (built on first use).

    A plain class: a dataclass here costs `import typed_elicit` about 3.5 M instructions.
    """

    __slots__ = ("counter", "marks", "tracer", "wait")

    def __init__(
        self, tracer: Tracer, counter: Counter, wait: Histogram, marks: tuple[object, object]
    ) -> None:
        self.tracer = tracer
        self.counter = counter
        self.wait = wait
        self.marks = marks


_api: Any = None
"""`(opentelemetry.trace, opentelemetry.metrics, quick)` once imported.

`quick` is the module holding the API's global meter provider when `foreign.otel_unset` may answer
first (the environment names no provider), else None.
"""
_built: _Otel | None = None


def _load() -> Any:
    """Import the API once (the mcp SDK depends on it): `_api`'s value."""
    import opentelemetry.metrics._internal as meter_globals
    from opentelemetry import metrics, trace

    named = any(name in os.environ for name in ("OTEL_PYTHON_TRACER_PROVIDER", "OTEL_PYTHON_METER_PROVIDER"))
    return (trace, metrics, None if named else meter_globals)


def _providers() -> tuple[object, object] | None:
    """The global tracer and meter providers (the API's public getters), or None when neither is set."""
    global _api
    if _api is None:
        _api = _load()
    if not _api:  # pragma: no cover - set False by tests/bench/telemetry.py's "absent" setup only
        return None
    trace, metrics, quick = _api
    if quick is not None and otel_unset(trace, quick):
        return None
    tracers = trace.get_tracer_provider()
    meters = metrics.get_meter_provider()
    if _unset(tracers) and _unset(meters):
        return None
    return tracers, meters


def _unset(provider: object) -> bool:
    """Whether `provider` is the API's stand-in (no SDK installed) or an explicit no-op."""
    return type(provider).__name__ in {
        "ProxyTracerProvider",
        "NoOpTracerProvider",
        "_ProxyMeterProvider",
        "NoOpMeterProvider",
    }


def _otel() -> _Otel | None:
    """The objects to record with, rebuilt when the global providers change; None when off."""
    global _built
    marks = _providers()
    if marks is None:
        return None
    built = _built
    if built is not None and built.marks[0] is marks[0] and built.marks[1] is marks[1]:
        return built
    from importlib.metadata import PackageNotFoundError, version

    try:
        ours = version("typed-elicit")
    except PackageNotFoundError:  # pragma: no cover - running from a checkout without install
        ours = None
    trace, metrics, _ = _api
    meter = metrics.get_meter(SCOPE, ours)
    _built = built = _Otel(
        trace.get_tracer(SCOPE, ours),
        meter.create_counter(
            "typed_elicit.questions", unit="{question}", description="Questions asked, by model and outcome"
        ),
        meter.create_histogram(
            "typed_elicit.question.wait",
            unit="s",
            description="Seconds a question waited for its answer, by model and outcome",
        ),
        marks,
    )
    return built


def enabled() -> bool:
    """Whether questions are being recorded (an OpenTelemetry provider is set).

    Called once per call: while no provider is set it reads two module globals (`foreign.otel_unset`).
    """
    return _otel() is not None


def question(
    model: str,
    mode: Literal["form", "url"],
    revision: str | None,
    function: str,
    *,
    round_: int | None = None,
) -> QuestionTrace:
    """Start recording one question; use the result as a context manager.

    Args:
        model: The model's class name (for a URL-mode question, `"url"`).
        mode: `"form"` or `"url"`.
        revision: The negotiated protocol revision, None when the client has none.
        function: The decorated function's `__qualname__`.
        round_: On 2026-07-28, the call's round (1 for the first request).

    Returns:
        The question's trace; the shared do-nothing one when telemetry is off.
    """
    otel = _otel()
    if otel is None:
        return OFF
    from opentelemetry import trace

    labels: dict[str, AttributeValue] = {"typed_elicit.model": model, "typed_elicit.mode": mode}
    attributes: dict[str, AttributeValue] = {
        "mcp.method.name": "elicitation/create",
        **labels,
        "typed_elicit.function": function,
    }
    if revision is not None:
        attributes["mcp.protocol.version"] = revision
    if round_ is not None:
        attributes["typed_elicit.round"] = round_
    name = f"elicit {model}" if mode == "form" else "elicit url"
    return QuestionTrace(
        otel, otel.tracer.start_span(name, kind=trace.SpanKind.INTERNAL, attributes=attributes), labels
    )


def traceparent_now() -> str | None:
    """The W3C `traceparent` of the current span, to keep in a 2026-07-28 request state.

    Returns:
        `00-<trace id>-<span id>-<flags>`, or None when telemetry is off or there is
        no valid current span.
    """
    if _otel() is None:
        return None
    from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

    carrier: dict[str, str] = {}
    TraceContextTextMapPropagator().inject(carrier)  # the current span's, if it is valid
    return carrier.get(TRACEPARENT)


Resumed: TypeAlias = AbstractContextManager[object]
"""The `resume <function>` span of a later 2026-07-28 round, current while the body runs."""


def resume_round(traceparent: str | None, function: str, round_: int, target: str | None = None) -> Resumed:
    """Join the call's first trace on a later 2026-07-28 round; a context manager around the body.

    Args:
        traceparent: What `traceparent_now` returned in the first round (kept in the
            sealed state); None when there is nothing to join.
        function: The decorated function's `__qualname__`.
        round_: This round's number (2 for the first retry).
        target: The tool's name: the span is `resume <target>` (else `resume <function>`).

    Returns:
        A context manager: inside it the current span is `resume <target>`, a child of
        the first round's span, linked to this round's own span; a do-nothing one when
        telemetry is off, `traceparent` is None or already the current trace.
    """
    if traceparent is None or _otel() is None:
        return nullcontext()
    from opentelemetry import trace
    from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

    parent = TraceContextTextMapPropagator().extract({TRACEPARENT: traceparent})
    remote = trace.get_current_span(parent).get_span_context()
    here = trace.get_current_span().get_span_context()
    if not remote.is_valid or (here.is_valid and here.trace_id == remote.trace_id):
        return nullcontext()
    built = _built
    assert built is not None
    span = built.tracer.start_span(
        f"resume {target or function}",
        context=parent,
        kind=trace.SpanKind.INTERNAL,
        links=[trace.Link(here)] if here.is_valid else None,
        attributes={"typed_elicit.function": function, "typed_elicit.round": round_},
    )
    # Neither the exception (message and traceback) nor a status: they may carry what a user typed.
    return trace.use_span(span, end_on_exit=True, record_exception=False, set_status_on_exception=False)
