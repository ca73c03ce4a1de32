"""What every signal that suspends a call has in common, for the observers below the call layer.

A call is suspended, not failed, when a question waits for a 2026-07-28 client's next round
(`InputRequired`) or for the model's relayed answer (`FallbackRequired`); both live with the
call (`typed_elicit._calls.signals`) and derive from `Suspension`, so that telemetry can tell a
suspension from a failure without importing the call layer.
"""

from __future__ import annotations

from typing import ClassVar, Literal

SuspensionOutcome = Literal["input_required", "fallback"]


class Suspension(BaseException):
    """A signal that ends a round or a call early, to be resumed: never an error.

    Derives from `BaseException`, so that a tool's `except Exception:` cannot swallow it.

    Attributes:
        outcome: What a span records as the question's outcome when the signal ends it.
    """

    outcome: ClassVar[SuspensionOutcome]
