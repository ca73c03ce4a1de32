"""Tutorial, step 3: test the tool with a scripted user, on every protocol era.

Run: `pytest step3_test_order.py` (next to step2_server.py).
"""

import anyio
import pytest
from mcp_types import TextContent
from step2_server import server

from typed_elicit import PROTOCOL_VERSIONS, ProtocolVersion
from typed_elicit.testing import ScriptedUser, accept, connect, decline


async def order(era: ProtocolVersion, user: ScriptedUser) -> str:
    """Call `order_coffee` for Ada on `era`, with `user` answering its questions."""
    with anyio.fail_after(10):
        async with connect(server, era, elicitation_callback=user) as client:
            result = await client.call_tool("order_coffee", {"name": "Ada"})
    assert not result.is_error
    (block,) = result.content
    assert isinstance(block, TextContent)
    return block.text


@pytest.mark.anyio
@pytest.mark.parametrize("era", PROTOCOL_VERSIONS)
async def test_a_coffee_and_a_croissant_go_to_the_table(era: ProtocolVersion) -> None:
    user = ScriptedUser(accept(size="large", sugar=1), accept(pastry="croissant", table="B4"))

    assert await order(era, user) == "A large coffee and a croissant for Ada, to table B4"
    first, second = user.questions
    assert first.message == "How do you take your coffee?"
    assert second.message == "A large coffee is $3.80. Anything to eat?"
    user.assert_done()


@pytest.mark.anyio
@pytest.mark.parametrize("era", PROTOCOL_VERSIONS)
async def test_a_table_that_does_not_exist_is_asked_again(era: ProtocolVersion) -> None:
    user = ScriptedUser(accept(size="small"), accept(table="Z9"), accept(table="C2"))

    assert await order(era, user) == "A small coffee for Ada, to table C2"
    # the re-ask states what was wrong, naming the field
    assert "(table: String should match pattern '^[A-H][1-9]$')" in user.questions[-1].message
    user.assert_done()


@pytest.mark.anyio
@pytest.mark.parametrize("era", PROTOCOL_VERSIONS)
async def test_declining_orders_nothing(era: ProtocolVersion) -> None:
    user = ScriptedUser(decline())

    assert await order(era, user) == "No coffee for Ada"
    user.assert_done()
