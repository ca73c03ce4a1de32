"""Print the OpenTelemetry span tree of a three-step wizard call, on every protocol era.

Run it with `python examples/traced_wizard.py` (it needs `opentelemetry-sdk`, as any
application that exports traces does). typed_elicit itself only uses the
OpenTelemetry API: once the application installs a `TracerProvider`, every question
becomes an `elicit <Model>` span under the SDK's `tools/call` span.
"""

from __future__ import annotations

import anyio
from mcp.server.mcpserver import MCPServer
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from pydantic import BaseModel

from typed_elicit import PROTOCOL_VERSIONS, Accepted, ElicitContext, ProtocolVersion, elicits, form
from typed_elicit.testing import ScriptedUser, accept, connect

server = MCPServer("traced-wizard")


@form(message="Who are you?")
class Name(BaseModel):
    name: str


@form(message="Which team?")
class Team(BaseModel):
    team: str


@form(message="Your motto?")
class Motto(BaseModel):
    motto: str


@server.tool()
@elicits(Name, Team, Motto)
async def onboard(ctx: ElicitContext) -> str:
    """Three questions, one after the other."""
    name = await ctx.elicit(Name)
    team = await ctx.elicit(Team)
    motto = await ctx.elicit(Motto)
    if isinstance(name, Accepted) and isinstance(team, Accepted) and isinstance(motto, Accepted):
        return f"welcome {name.data.name} of {team.data.team}"
    return "not onboarded"


def span_tree(spans: list[ReadableSpan], root: ReadableSpan) -> list[str]:
    """`root` and its descendants among `spans`, one indented line each, with each question's outcome."""
    lines: list[str] = []

    def walk(span: ReadableSpan, depth: int) -> None:
        outcome = (span.attributes or {}).get("typed_elicit.outcome")
        lines.append("  " * depth + span.name + (f" [{outcome}]" if outcome else ""))
        assert span.context is not None
        children = [s for s in spans if s.parent is not None and s.parent.span_id == span.context.span_id]
        for child in sorted(children, key=lambda s: s.start_time or 0):
            walk(child, depth + 1)

    walk(root, 0)
    return lines


async def traced_call(exporter: InMemorySpanExporter, era: ProtocolVersion) -> list[str]:
    """Call `onboard` on `era` with a scripted user; the span tree of the call's first request."""
    exporter.clear()
    user = ScriptedUser(accept(name="Ada"), accept(team="Core"), accept(motto="Ship it"))
    async with connect(server, era, elicitation_callback=user) as client:
        await client.call_tool("onboard", {})
    spans = list(exporter.get_finished_spans())
    first = min((s for s in spans if s.name == "tools/call onboard"), key=lambda s: s.start_time or 0)
    return span_tree(spans, first)


async def main() -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    for era in PROTOCOL_VERSIONS:
        print(era)
        for line in await traced_call(exporter, era):
            print("  " + line)


if __name__ == "__main__":
    anyio.run(main)
