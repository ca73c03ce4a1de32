"""Consume-once claims on Redis that a lost reply can neither apply twice nor lose.

A claim (one `RedisStore.claim` call) writes a random value of its own, so its outcome can
always be read back:

- `SET <name> <value> NX PXAT <expiry>`: stored, so claimed.
- Not stored: `GET <name>`. Its own value: claimed (the client resent the `SET` after losing
  its reply, as redis-py's cluster client does). Another claim's value `v`: refused, unless
  that claim was marked abandoned (`<name>!<v>` exists): then the claim moves on to the next
  link, `<name>~<v>`, decided the same way. Every link has one winner, so the round or token
  is used by at most one claim.
- A claim whose outcome is unknown (the store's deadline ended it, or the call was cancelled)
  is never used: the store marks it abandoned (`abandoned_name`), so that a retry of the same
  round or token is not refused because of it. If the mark cannot be written (the store is
  still unreachable), the store keeps the claim in `Unmarked`: it writes the mark as soon as
  the store answers again, and at once when one of its own claims meets it.

Every name shares the claim's hash tag (its slot on a cluster) and its expiry.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any, Final, Literal

from typed_elicit._core import clock as _clock

MAX_LINKS: Final = 8
"""Claims abandoned in a row on one key after which a claim is refused (each was a failed call)."""
REMARK_SECONDS: Final = 1.0
"""How often the store tries again to mark its abandoned claims while the store is unreachable."""
MAX_UNMARKED: Final = 10_000
"""Abandoned claims a store remembers to mark at most (the oldest are forgotten first)."""

Taken = Literal["claimed", "resent", "refused"]
"""A claim's outcome: stored now, stored by a resend of its own `SET`, or held by another claim."""


def abandoned_name(name: str, value: bytes) -> str:
    """The mark that the claim of `name` with `value` will never be used."""
    return f"{name}!{value.decode('ascii', 'replace')}"


async def take(
    client: Any,
    name: str,
    value: bytes,
    set_once: Callable[[str], Awaitable[bool]],
    mark_own: Callable[[bytes], Awaitable[bool]],
) -> Taken:
    """Claim `name` for the claim whose random value is `value` (see the module docstring).

    Args:
        client: The `redis.asyncio` client (for the `GET`s).
        name: The claim's Redis key.
        value: This claim's random value.
        set_once: `SET <link> <value> NX` with the claim's expiry; whether it stored.
        mark_own: Marks the claim holding a link abandoned if it is one of this store's that
            could not be marked before; whether it did.

    Returns:
        Whether this claim holds the key now (`claimed`, or `resent`: an earlier send of its
        own `SET` stored it), or another one does (`refused`).
    """
    link = name
    for _ in range(MAX_LINKS):
        if await set_once(link):
            return "claimed"
        holder = await client.get(link)
        if holder is None:  # (it expired in between: the claim is late anyway; try once more)
            continue
        if bytes(holder) == value:
            return "resent"
        if await client.get(abandoned_name(name, bytes(holder))) is None and not await mark_own(
            bytes(holder)
        ):
            return "refused"
        link = f"{name}~{bytes(holder).decode('ascii', 'replace')}"
    return "refused"


class Unmarked:
    """A store's abandoned claims whose mark could not be written yet (the store was unreachable).

    While any is left, a task tries to write their marks every `REMARK_SECONDS`; each is
    forgotten once marked or expired.
    """

    def __init__(self, mark: Callable[[str, bytes, int], Awaitable[bool]]) -> None:
        """Build it.

        Args:
            mark: Writes the mark of one claim (name, value, expiry in ms), bounded; whether it did.
        """
        self._mark = mark
        self._pending: dict[tuple[str, bytes], int] = {}
        self._task: asyncio.Task[None] | None = None

    def add(self, name: str, value: bytes, expiry: int) -> None:
        """Remember a claim to mark, and make sure the task that marks them runs."""
        self._pending[name, value] = expiry
        while len(self._pending) > MAX_UNMARKED:
            del self._pending[next(iter(self._pending))]
        loop = asyncio.get_running_loop()
        if self._task is None or self._task.done() or self._task.get_loop() is not loop:
            self._task = loop.create_task(self._mark_while_any())

    def expiry(self, name: str, value: bytes) -> int | None:
        """The expiry of a claim still to mark, or None if it is none of these."""
        return self._pending.get((name, value))

    def marked(self, name: str, value: bytes) -> None:
        """Forget a claim that is now marked."""
        self._pending.pop((name, value), None)

    async def aclose(self) -> None:
        """Stop trying (the store is closing)."""
        task, self._task = self._task, None
        if task is not None and task.get_loop() is asyncio.get_running_loop():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _mark_while_any(self) -> None:
        while self._pending:
            await asyncio.sleep(REMARK_SECONDS)
            now = _clock.now() * 1000
            for (name, value), expiry in list(self._pending.items()):
                if expiry > now and not await self._mark(name, value, expiry):
                    break  # (still unreachable: all of them, most likely)
                self.marked(name, value)
