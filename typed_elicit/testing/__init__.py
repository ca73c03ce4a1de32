"""The testing kit: a scripted user, in-memory connections on every era, answer strategies.

Kept in its own public module so that `accept`, `decline` and `cancel` (script steps)
never mix with the result types of the same names' outcomes in `typed_elicit`.
"""

from typed_elicit._core.faces import publish
from typed_elicit.errors import ScriptMistake
from typed_elicit.testing._kit import (
    Answer,
    Question,
    Reply,
    ReplyFunction,
    ScriptedUser,
    Step,
    Target,
    accept,
    cancel,
    connect,
    decline,
    era_target,
    invalid_answers,
    send_raw,
    valid_answers,
)

__all__ = [
    "Answer",
    "Question",
    "Reply",
    "ReplyFunction",
    "ScriptMistake",
    "ScriptedUser",
    "Step",
    "Target",
    "accept",
    "cancel",
    "connect",
    "decline",
    "era_target",
    "invalid_answers",
    "send_raw",
    "valid_answers",
]

publish(__name__, globals(), __all__)
