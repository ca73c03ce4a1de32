"""An OpenTelemetry SDK for one test at a time: in-memory spans and metrics (not a test module).

OpenTelemetry lets a process set its global providers once, and the `mcp` SDK's own
tracer binds to the first one it meets. So one `TracerProvider` (with an in-memory
exporter, cleared per test) serves the whole session, and it is the global provider
only while a test that asks for it runs: in between, the API's global is unset again
(as OpenTelemetry's own test utilities do), so every other test runs with tracing off.
Each test gets a fresh `MeterProvider` with an in-memory reader.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import opentelemetry.metrics._internal as metrics_globals
import opentelemetry.trace as trace_globals
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

_exporter = InMemorySpanExporter()
_tracers = TracerProvider()
_tracers.add_span_processor(SimpleSpanProcessor(_exporter))


@dataclass
class Recorded:
    """What the test's providers recorded."""

    reader: InMemoryMetricReader

    def spans(self) -> list[ReadableSpan]:
        """Every finished span, in the order they ended."""
        return list(_exporter.get_finished_spans())

    def questions(self) -> list[ReadableSpan]:
        """The `elicit ...` spans, in the order they started."""
        return sorted(
            (s for s in self.spans() if s.name.startswith("elicit ")), key=lambda s: s.start_time or 0
        )

    def points(self, name: str) -> list[Any]:
        """The data points of the metric `name` (cumulative since the test began)."""
        data = self.reader.get_metrics_data()
        found: list[Any] = []
        if data is None:
            return found
        for resource in data.resource_metrics:
            for scope in resource.scope_metrics:
                for metric in scope.metrics:
                    if metric.name == name:
                        found.extend(metric.data.data_points)
        return found


def installed() -> Iterator[Recorded]:
    """Set the global providers for one test (a generator for a pytest fixture)."""
    reader = InMemoryMetricReader()
    meters = MeterProvider(metric_readers=[reader])
    _exporter.clear()
    trace_globals._TRACER_PROVIDER = _tracers
    metrics_globals._METER_PROVIDER = meters
    try:
        yield Recorded(reader)
    finally:
        trace_globals._TRACER_PROVIDER = None
        metrics_globals._METER_PROVIDER = None
        meters.shutdown()
        _exporter.clear()


def tree(spans: list[ReadableSpan]) -> list[str]:
    """The spans as an indented tree, each line `name [outcome]` (parents by span id)."""
    by_id = {s.context.span_id: s for s in spans if s.context is not None}
    children: dict[int | None, list[ReadableSpan]] = {}
    for span in spans:
        parent = span.parent.span_id if span.parent is not None and span.parent.span_id in by_id else None
        children.setdefault(parent, []).append(span)
    lines: list[str] = []

    def walk(parent: int | None, depth: int) -> None:
        for span in sorted(children.get(parent, []), key=lambda s: s.start_time or 0):
            outcome = (span.attributes or {}).get("typed_elicit.outcome")
            lines.append("  " * depth + span.name + (f" [{outcome}]" if outcome else ""))
            assert span.context is not None
            walk(span.context.span_id, depth + 1)

    walk(None, 0)
    return lines
