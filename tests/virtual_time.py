"""An asyncio event loop whose clock jumps ahead whenever it would sleep (not a test module).

When every task is waiting on a timer and no I/O is ready, the loop moves its
clock to the next timer instead of blocking, so `anyio.sleep(5)` takes no real
time and every timeout, sleep and deadline keeps its order. Only for tests that
talk in memory: a wait on real I/O or another thread would be skipped past.
"""

from __future__ import annotations

import asyncio
import selectors
from typing import Any


class _SkippingSelector:
    """Wraps the loop's selector: an idle wait with a timeout advances the clock instead."""

    def __init__(self, selector: selectors.BaseSelector, loop: VirtualTimeLoop) -> None:
        self._selector = selector
        self._loop = loop

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        ready = self._selector.select(0)
        if ready or timeout is None or timeout <= 0:
            return ready if ready or timeout is not None else self._selector.select(timeout)
        self._loop.skipped += timeout
        return ready

    def __getattr__(self, name: str) -> Any:
        return getattr(self._selector, name)


class VirtualTimeLoop(asyncio.SelectorEventLoop):
    """`asyncio.SelectorEventLoop` on virtual time: `time()` is real time plus every idle wait skipped."""

    def __init__(self) -> None:
        super().__init__()
        self.skipped = 0.0
        self._selector = _SkippingSelector(self._selector, self)  # type: ignore[has-type,assignment]

    def time(self) -> float:
        return super().time() + self.skipped
