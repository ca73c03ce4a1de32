"""1c. What typed_elicit adds to one push-era question, step by step, timed inside a live tool call.

The round-trip numbers mix our cost with the SDK's and the transport's, on a noisy
machine. Here each step typed_elicit takes on top of the floor is timed on its own,
with `timeit`, inside a running tool call (so the SDK `Context` is real):

- `@elicits` wrapper: `signature.bind` and the argument swap,
- `ElicitContext(sdk, policy)`,
- the `ctx.elicit` preamble: timeout/retries/policy, `reduce_schema` (cached),
  the message, the capability check,
- building the request (`ElicitRequest`, metadata), which the floor's `elicit_form` does too,
- re-validating the answer (`validate_content`) vs the SDK's bare `model_validate`.

Run alone: `python -m tests.bench.overhead`.
"""

from __future__ import annotations

import inspect
import timeit
from collections.abc import Callable
from typing import Any

import anyio
from mcp import Client
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.message import ServerMessageMetadata
from mcp_types import ElicitRequest
from mcp_types import ElicitResult as WireResult

from typed_elicit._calls.context import ElicitContext
from typed_elicit._calls.policy import Policy
from typed_elicit._calls.questions import FormQuestion
from typed_elicit._calls.reach import reach
from typed_elicit._forms.reduce import form_message, reduced
from typed_elicit._forms.validate import validate_content

from ._common import MESSAGE, SIGNUP_ANSWER, Signup, accept_signup, text_of

STEPS = (
    "@elicits wrapper (signature.bind)",
    "ElicitContext(sdk, policy)",
    "ctx.elicit preamble (schema, message, capability check)",
    "request construction (the floor builds the same)",
    "answer: validate_content + FormQuestion.outcome",
    "answer: bare Signup.model_validate (what the SDK does)",
)


def _time(fn: Callable[[], object], number: int) -> float:
    """Best of 5 repeats, seconds per call."""
    return min(timeit.repeat(fn, number=number, repeat=5)) / number


def measure_steps(sdk: Context, number: int) -> dict[str, float]:
    """Seconds per call of each step; `sdk` is the live context of a running tool call."""

    async def tool(ctx: ElicitContext) -> str:
        return ""

    signature = inspect.signature(tool)
    policy = Policy()
    ectx = ElicitContext(sdk, policy)
    record = reduced(Signup, "2025-11-25")
    question = FormQuestion("q0", MESSAGE, Signup, record)
    call, _ = ectx.__typed_elicit_parts__()
    schema = record.schema
    wire = WireResult(action="accept", content=dict(SIGNUP_ANSWER))
    answer = dict(SIGNUP_ANSWER)

    def wrapper() -> None:
        bound = signature.bind(ctx=sdk)
        bound.arguments["ctx"] = ectx
        _ = bound.args, bound.kwargs

    def preamble() -> None:
        # Mirrors ElicitContext.elicit up to the send, on a push era.
        _ = policy.timeout or 300.0
        reduced(Signup, "2025-11-25")
        form_message(Signup)
        reach(call, question, "push")

    def request() -> None:
        ElicitRequest(params=record.params(MESSAGE))
        ServerMessageMetadata(related_request_id=sdk.request_context.request_id)

    def validate() -> None:
        question.outcome(wire.action, wire.content)

    validate_content(Signup, schema, answer)  # warm
    steps: dict[str, Callable[[], object]] = {
        STEPS[0]: wrapper,
        STEPS[1]: lambda: ElicitContext(sdk, policy),
        STEPS[2]: preamble,
        STEPS[3]: request,
        STEPS[4]: validate,
        STEPS[5]: lambda: Signup.model_validate(answer),
    }
    return {name: _time(fn, number) for name, fn in steps.items()}


async def measure(number: int) -> dict[str, float]:
    """Run `measure_steps` inside a tool call of an in-memory push-era connection."""
    server = MCPServer("bench-overhead")
    found: dict[str, float] = {}

    @server.tool()
    async def probe(ctx: Context) -> str:
        found.update(measure_steps(ctx, number))
        return "ok"

    async with Client(server, mode="legacy", elicitation_callback=accept_signup) as client:
        text_of(await client.call_tool("probe", {}))
    return found


def table(steps: dict[str, float], floor_seconds: float | None) -> str:
    """Markdown: each step in µs, then typed_elicit's extra over the floor and over floor + validate."""
    lines = ["| step | µs per question |", "|---|---:|"]
    lines += [f"| {name} | {seconds * 1e6:,.2f} |" for name, seconds in steps.items()]
    layer = sum(steps[name] for name in STEPS[:3])
    extra = layer + steps[STEPS[4]]
    layer += steps[STEPS[4]] - steps[STEPS[5]]
    share = f" ({extra / floor_seconds:.1%} of the floor's round trip)" if floor_seconds else ""
    lines.append(
        "| **extra over the floor**: wrapper + context + preamble + validation | "
        f"**{extra * 1e6:,.1f}**{share} |"
    )
    share = f" ({layer / floor_seconds:.1%})" if floor_seconds else ""
    lines.append(
        f"| **extra over floor + bare `model_validate`**: the layer itself | **{layer * 1e6:,.1f}**{share} |"
    )
    return "\n".join(lines)


def main() -> None:
    steps: dict[str, Any] = anyio.run(measure, 20_000)
    print(table(steps, None))


if __name__ == "__main__":
    main()
