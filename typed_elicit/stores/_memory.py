"""`InProcessStore`: the default `Store`, in this process (one replica, or replicas with sticky routing)."""

from __future__ import annotations

import heapq
import math
import threading

import anyio

from typed_elicit._core import clock as _clock


class InProcessStore:
    """The default `Store`: claims and values kept in this process, forgotten when they expire.

    Its size is bounded by what the server itself claims and stores within one
    expiry period (rounds answered, tokens redeemed, pages submitted), never by
    what a client merely sends. Waiters are woken in the event loop they wait in.
    """

    def __init__(self) -> None:
        self._claimed: dict[str, float] = {}  # key -> expires_at
        self._values: dict[str, tuple[bytes, float]] = {}  # key -> (value, expires_at)
        self._expiry: list[tuple[float, str, bool]] = []  # a heap: (expires_at, key, is_value)
        self._waiters: dict[str, list[anyio.Event]] = {}
        self._lock = threading.Lock()

    def _expire(self) -> None:
        now = _clock.now()
        while self._expiry and self._expiry[0][0] <= now:
            expires_at, key, is_value = heapq.heappop(self._expiry)
            # A key deleted and stored again since has a later expiry of its own: keep it.
            if is_value:
                held = self._values.get(key)
                if held is not None and held[1] <= expires_at:
                    del self._values[key]
            elif self._claimed.get(key, math.inf) <= expires_at:
                del self._claimed[key]

    async def claim(self, key: str, expires_at: float, /) -> bool:
        """Record `key` as used; False if it was recorded already (see `Store`)."""
        with self._lock:
            self._expire()
            if key in self._claimed:
                return False
            self._claimed[key] = expires_at
            heapq.heappush(self._expiry, (expires_at, key, False))
            return True

    async def put(self, key: str, value: bytes, expires_at: float, /) -> bool:
        """Store `value` unless `key` holds one; wakes its waiters (see `Store.put`)."""
        with self._lock:
            self._expire()
            if key in self._values:
                return False
            self._values[key] = (value, expires_at)
            heapq.heappush(self._expiry, (expires_at, key, True))
            waiters = self._waiters.pop(key, [])
        for event in waiters:
            event.set()
        return True

    async def get(self, key: str, /) -> bytes | None:
        """The value under `key`, or None (see `Store.get`)."""
        with self._lock:
            self._expire()
            held = self._values.get(key)
            return None if held is None else held[0]

    async def delete(self, key: str, /) -> None:
        """Forget the value under `key` (see `Store.delete`); its expiry entry goes when it is due."""
        with self._lock:
            self._values.pop(key, None)
            self._expire()

    async def wait(self, key: str, timeout: float, /) -> bytes | None:
        """The value under `key` once stored, or None after `timeout` seconds (see `Store.wait`)."""
        event = anyio.Event()
        with self._lock:
            self._expire()
            held = self._values.get(key)
            if held is not None:
                return held[0]
            self._waiters.setdefault(key, []).append(event)
        try:
            with anyio.move_on_after(None if math.isinf(timeout) else timeout):
                await event.wait()
        finally:
            with self._lock:
                waiting = self._waiters.get(key)
                if waiting is not None and event in waiting:
                    waiting.remove(event)
                    if not waiting:
                        del self._waiters[key]
        return await self.get(key)

    def __len__(self) -> int:
        return len(self._claimed) + len(self._values)
