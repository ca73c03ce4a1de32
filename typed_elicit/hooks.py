"""Elicitation hooks: observe every question sent and every answer received, and rewrite answers.

A hook is any object with the two async methods of `ElicitHook` (subclass it to inherit
do-nothing defaults): `on_question(QuestionEvent)` when a question is sent, and
`on_answer(AnswerEvent)` when an answer arrives, before it is validated (return a dict to
rewrite an accepted form answer). Hooks run process-wide (`add_hooks`, `remove_hooks`) and
per function (`@elicits(hooks=[...])`): the process-wide ones first. A hook that fails ends
the call with `typed_elicit.errors.HookError`, which never quotes the hook's exception.
"""

from typed_elicit._core.faces import publish
from typed_elicit._observe.hooks import AnswerEvent, ElicitHook, QuestionEvent, add_hooks, remove_hooks

__all__ = ["AnswerEvent", "ElicitHook", "QuestionEvent", "add_hooks", "remove_hooks"]

publish(__name__, globals(), __all__)
