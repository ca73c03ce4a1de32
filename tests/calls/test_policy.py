"""Each question's settings: its own over the function's over the process default, each checked by a rule."""

from __future__ import annotations

import anyio
import pytest
from mcp.server.mcpserver import Context
from mcp_types import TextContent

from tests.calls.test_context_lifecycle import forever, server
from tests.calls.test_context_units import Flag
from tests.conftest import BOUND
from typed_elicit import get_default_timeout, set_default_timeout
from typed_elicit._calls.context import ElicitContext
from typed_elicit._calls.elicits import elicits
from typed_elicit.errors import ElicitArgumentError
from typed_elicit.testing import ScriptedUser

pytestmark = pytest.mark.anyio


async def test_per_call_timeout_overrides_the_decorator(connect, push_era):
    asked, stopped = anyio.Event(), anyio.Event()
    async with connect(server, push_era, ScriptedUser(forever(asked, stopped))) as client:
        with anyio.fail_after(BOUND):
            result = await client.call_tool("hurried", {"per_call": 0.05})
    assert isinstance(result.content[0], TextContent)
    assert "within 0.05 s" in result.content[0].text


async def test_global_default_timeout_applies_when_nothing_else_is_set(connect, push_era):
    assert get_default_timeout() == 300.0
    asked, stopped = anyio.Event(), anyio.Event()
    set_default_timeout(0.05)
    try:
        async with connect(server, push_era, ScriptedUser(forever(asked, stopped))) as client:
            with anyio.fail_after(BOUND):
                result = await client.call_tool("defaulted", {})
    finally:
        set_default_timeout(300.0)
    assert isinstance(result.content[0], TextContent)
    assert "within 0.05 s" in result.content[0].text


def test_timeouts_must_be_positive():
    with pytest.raises(ElicitArgumentError, match="positive"):
        set_default_timeout(0)


@pytest.mark.anyio
async def test_negative_retries_are_refused():
    ctx = ElicitContext(Context())
    with pytest.raises(ElicitArgumentError, match="retries must be 0 or more"):
        await ctx.elicit(Flag, retries=-1)


@pytest.mark.parametrize(
    ("options", "problem"),
    [
        ({"timeout": 0}, "positive"),
        ({"retries": -1}, "0 or more"),
        ({"retries": True}, r"@elicits retries must be 0 or more \(an int, not a bool\), got True"),
        ({"on_unsupported": "defualts"}, "@elicits takes on_unsupported='raise', 'defaults'.*got 'defualts'"),
    ],
)
def test_decorator_settings_are_checked(options, problem):
    with pytest.raises(ElicitArgumentError, match=problem):
        elicits(**options)


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("options", "problem"),
    [
        ({"on_unsupported": "defualts"}, "takes on_unsupported='raise', 'defaults', 'decline' or 'fallback'"),
        ({"on_unsupported": "url"}, "got 'url'"),
        ({"retries": True}, "retries must be 0 or more \\(an int, not a bool\\), got True"),
        ({"retries": 1.5}, "got 1.5"),
        ({"retries": -1}, "retries must be 0 or more"),
        ({"timeout": float("nan")}, "ctx.elicit got timeout=nan, which is not a positive number"),
    ],
)
async def test_elicit_refuses_a_misspelt_policy_or_a_non_integer_retry_count(options, problem):
    ctx = ElicitContext(Context())
    with pytest.raises(ElicitArgumentError, match=problem):
        await ctx.elicit(Flag, **options)


@pytest.mark.anyio
async def test_elicit_url_names_the_allowed_policies_when_refusing_one():
    ctx = ElicitContext(Context())
    with pytest.raises(
        ElicitArgumentError, match="takes on_unsupported='raise' or 'decline', got 'fallback': a URL-mode"
    ):
        await ctx.elicit_url("https://example.com/", "Open it.", on_unsupported="fallback")  # type: ignore[arg-type]


@pytest.mark.parametrize("timeout", [0, -1, float("nan")])
def test_every_timeout_is_checked_by_one_rule_naming_its_owner(timeout):
    with pytest.raises(
        ElicitArgumentError, match=r"^@elicits got timeout=.*, which is not a positive number of"
    ):
        elicits(timeout=timeout)
    with pytest.raises(
        ElicitArgumentError, match=r"^set_default_timeout got seconds=.*, which is not a positive"
    ):
        set_default_timeout(timeout)
    assert get_default_timeout() == 300.0
