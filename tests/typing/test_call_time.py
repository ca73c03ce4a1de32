"""`options=`/`defaults=` misuse a checker catches: checked by mypy and pyright (strict); never run."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel
from typing_extensions import assert_type

from typed_elicit import Choices, ElicitContext, ElicitResult, reduce_schema


class Pick(BaseModel):
    account: Annotated[str, Choices()]
    tags: Annotated[list[str], Choices()] = []


async def well_typed(ctx: ElicitContext, accounts: list[str], titled: dict[str, str]) -> None:
    assert_type(await ctx.elicit(Pick, options={"account": accounts}), ElicitResult[Pick])
    assert_type(
        await ctx.elicit(Pick, "?", options={"account": titled, "tags": ("a", "b")}, defaults={"tags": []}),
        ElicitResult[Pick],
    )
    reduce_schema(Pick, options={"account": ["a"]}, defaults={"account": "a"})


async def misused(ctx: ElicitContext) -> None:
    await ctx.elicit(Pick, options=["a", "b"])  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType]
    await ctx.elicit(Pick, options={"account": [1, 2]})  # type: ignore[list-item]  # pyright: ignore[reportArgumentType]
    await ctx.elicit(Pick, options={"account": {"a": 1}})  # type: ignore[dict-item]  # pyright: ignore[reportArgumentType]
    await ctx.elicit(Pick, options={1: ["a"]})  # type: ignore[dict-item]  # pyright: ignore[reportArgumentType]
    await ctx.elicit(Pick, defaults=[("account", "a")])  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType]
    await ctx.elicit(Pick, {"account": ["a"]})  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType]
    reduce_schema(Pick, options={"account": 3})  # type: ignore[dict-item]  # pyright: ignore[reportArgumentType]


class Other(BaseModel):
    ok: bool


async def all_at_once(ctx: ElicitContext) -> None:
    assert_type(
        await ctx.elicit_all(Pick, Other, options={Pick: {"account": ["a"]}}, defaults={Other: {"ok": True}}),
        tuple[ElicitResult[Pick], ElicitResult[Other]],
    )
    await ctx.elicit_all(Pick, options={"account": ["a"]})  # type: ignore[dict-item]  # pyright: ignore[reportCallIssue, reportArgumentType]
