"""The one clock: wall-clock seconds, behind a module function tests can replace.

Every module that reads the time calls `_clock.now()` through this module (never
`from typed_elicit._core.clock import now`), so a test moves time everywhere at once with
`monkeypatch.setattr(typed_elicit._core.clock, "now", ...)`, without sleeping.
"""

from __future__ import annotations

import time


def now() -> float:
    """Seconds since the epoch (`time.time()`)."""
    return time.time()
