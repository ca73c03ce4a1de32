"""`ctx.elicit_all` types each position: checked by mypy --strict and pyright strict in CI; never run."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from typing_extensions import assert_type

from typed_elicit import ElicitContext, ElicitResult


class A(BaseModel):
    a: int


class B(BaseModel):
    b: str


class C(BaseModel):
    c: bool


async def two(ctx: ElicitContext) -> None:
    first, second = await ctx.elicit_all(A, B)
    assert_type(first, ElicitResult[A])
    assert_type(second, ElicitResult[B])


async def one(ctx: ElicitContext) -> None:
    assert_type(await ctx.elicit_all(A, timeout=5), tuple[ElicitResult[A]])


async def six(ctx: ElicitContext) -> None:
    assert_type(
        await ctx.elicit_all(A, B, C, A, B, C, retries=1),
        tuple[
            ElicitResult[A],
            ElicitResult[B],
            ElicitResult[C],
            ElicitResult[A],
            ElicitResult[B],
            ElicitResult[C],
        ],
    )


async def seven(ctx: ElicitContext) -> None:
    assert_type(await ctx.elicit_all(A, B, C, A, B, C, A), tuple[ElicitResult[Any], ...])


async def not_a_model(ctx: ElicitContext) -> None:
    await ctx.elicit_all(A, int)  # type: ignore[type-var]  # pyright: ignore[reportArgumentType, reportCallIssue]
