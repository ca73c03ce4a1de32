"""How a call ends: the fullest suspension of a round is its result, a swallowed one is a usage error."""

from __future__ import annotations

import builtins
import sys
from collections.abc import Awaitable
from typing import Any

import pytest
from mcp_types import (
    CallToolResult,
    ElicitRequest,
    ElicitRequestFormParams,
    InputRequest,
    InputRequiredResult,
)

from typed_elicit._calls.settle import failed, settled
from typed_elicit._calls.signals import FallbackRequired, InputRequired
from typed_elicit.errors import ElicitUsageError

pytestmark = pytest.mark.anyio


async def settle(call: Awaitable[Any], created: list[BaseException], name: str) -> Any:
    """What `@elicits` does with the body it awaits: `settled` if it returns, `failed` if it raises."""
    try:
        value = await call
    except BaseException as exc:
        return failed(exc, created, name)
    return settled(value, created, name)


Group = getattr(builtins, "BaseExceptionGroup", None)


needs_groups = pytest.mark.skipif(sys.version_info < (3, 11), reason="builds exception groups directly")


def _round(*keys: str) -> InputRequired:
    requests: dict[str, InputRequest] = {
        key: ElicitRequest(
            params=ElicitRequestFormParams(message=key, requested_schema={"type": "object", "properties": {}})
        )
        for key in keys
    }
    return InputRequired(InputRequiredResult(input_requests=requests, request_state="s"))


async def _raising(exc: BaseException) -> None:
    raise exc


@needs_groups
async def test_the_fullest_suspension_of_a_round_is_its_result():
    first, second = _round("q0"), _round("q0", "q1")
    result = await settle(_raising(Group("g", [first, second])), [first, second], "f")
    assert result is second.result


@needs_groups
async def test_a_suspension_that_never_reached_the_group_was_swallowed():
    first, lost = _round("q0"), _round("q1")
    with pytest.raises(ElicitUsageError, match="f swallowed the signal"):
        await settle(_raising(Group("g", [first])), [first, lost], "f")


@needs_groups
async def test_a_lone_fallback_question_in_a_task_group_is_its_round():
    handed = FallbackRequired(CallToolResult(content=[]))
    assert await settle(_raising(Group("g", [handed])), [handed], "f") is handed.result


async def test_a_body_that_returns_is_its_result():
    async def body() -> str:
        return "booked"

    assert await settle(body(), [], "f") == "booked"


async def test_a_body_that_returns_after_catching_its_rounds_signal_swallowed_it():
    caught = _round("q0")
    with pytest.raises(ElicitUsageError, match="f swallowed the signal"):
        settled("booked", [caught], "f")


async def test_a_suspension_raised_alone_is_its_rounds_result():
    alone = _round("q0")
    assert await settle(_raising(alone), [alone], "f") is alone.result
