"""The one answer path: an invalid answer is asked again, problems stated, while retries allow, then fails."""

from __future__ import annotations

import pytest

from tests.calls.test_context_runtime import call, server
from typed_elicit.testing import ScriptedUser, accept, send_raw

pytestmark = pytest.mark.anyio


async def test_invalid_answer_fails_the_tool_with_field_paths_and_no_values(connect, era):
    async with connect(server, era, ScriptedUser(send_raw({"name": "R2D2", "age": 200}))) as client:
        is_error, text = await call(client, "profile")
    assert is_error
    assert "InvalidResponse" in text
    assert "name: Value error, a name has no digits" in text
    assert "age: Input should be less than or equal to 150" in text
    assert "R2D2" not in text
    assert "200" not in text


async def test_invalid_answer_is_asked_again_with_the_problems_stated(connect, era):
    scripted = ScriptedUser(accept(name="R2D2", age=5), accept(name="Artoo", age=5))
    async with connect(server, era, scripted) as client:
        assert await call(client, "profile", {"retries": 1}) == (False, "Artoo/5/False")
    first, second = scripted.questions
    assert first.message == "Tell us about yourself."
    assert second.message.startswith("Tell us about yourself.\n\nYour previous answer could not be used")
    assert "name: Value error, a name has no digits" in second.message


async def test_retries_run_out_into_invalid_response(connect, era):
    scripted = ScriptedUser(accept(name="1", age=1), accept(name="2", age=2))
    async with connect(server, era, scripted) as client:
        is_error, text = await call(client, "profile", {"retries": 1})
    assert is_error
    assert "InvalidResponse" in text
    assert len(scripted.questions) == 2


async def test_used_up_retries_say_how_often_the_user_was_asked_instead_of_advising_retries(connect, era):
    scripted = ScriptedUser(accept(name="1", age=1), accept(name="2", age=2))
    async with connect(server, era, scripted) as client:
        is_error, text = await call(client, "profile", {"retries": 1})
    assert is_error
    assert "The user was asked 2 times (retries=1) and no answer was valid" in text
    assert "catch InvalidResponse to carry on without it" in text
    assert "Pass retries=N" not in text


async def test_an_invalid_answer_without_retries_advises_passing_retries(connect, era):
    async with connect(server, era, ScriptedUser(accept(name="1", age=1))) as client:
        is_error, text = await call(client, "profile")
    assert is_error
    assert "Pass retries=N to ctx.elicit to ask the user again" in text


def test_a_re_ask_states_each_problem_by_path_and_rule_and_never_the_value():
    from typed_elicit._calls.answer import reask_text
    from typed_elicit.errors import InvalidResponse

    problem = InvalidResponse(
        "Profile", [("name", "a name has no digits"), ("age", "too large")], {"name": "R2D2", "age": 200}
    )
    text = reask_text("Tell us about yourself.", problem)
    assert text == (
        "Tell us about yourself.\n\nYour previous answer could not be used "
        "(name: a name has no digits; age: too large). Please answer again."
    )
    assert "R2D2" not in text
    assert "200" not in text
