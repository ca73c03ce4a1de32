"""URL-mode results: checked by mypy --strict and pyright strict in CI; never run."""

from __future__ import annotations

from typing_extensions import assert_never, assert_type

from typed_elicit import Cancelled, Consented, Declined, ElicitContext, UrlResult


def exhaustive_match_covers_every_url_outcome(result: UrlResult) -> str:
    match result:
        case Consented():
            return "opened"
        case Declined():
            return "declined"
        case Cancelled():
            return "cancelled"
        case _:
            assert_never(result)


def missing_arm_is_reported(result: UrlResult) -> str:
    match result:
        case Consented():
            return "opened"
        case Declined():
            return "declined"
        case _:
            assert_never(result)  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType]


def consented_is_frozen_and_carries_nothing() -> None:
    Consented(True)  # type: ignore[call-arg]  # pyright: ignore[reportCallIssue]


async def elicit_url_returns_a_url_result(ctx: ElicitContext) -> None:
    assert_type(await ctx.elicit_url("https://example.com/", "Open it."), UrlResult)
    assert_type(await ctx.complete_url("id"), bool)


async def url_mode_has_no_defaults_policy(ctx: ElicitContext) -> None:
    await ctx.elicit_url("https://example.com/", "Open it.", on_unsupported="decline")
    await ctx.elicit_url("https://example.com/", "Open it.", on_unsupported="defaults")  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType]


async def elicit_page_returns_the_models_result(ctx: ElicitContext) -> None:
    from pydantic import BaseModel, SecretStr

    from typed_elicit import Accepted, ElicitResult

    class Login(BaseModel):
        password: SecretStr

    result = await ctx.elicit_page(Login, "Sign in", timeout=60)
    assert_type(result, ElicitResult[Login])
    match result:
        case Accepted(login):
            assert_type(login, Login)
        case Declined() | Cancelled():
            pass
    await ctx.elicit_page("not a model")  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType]
