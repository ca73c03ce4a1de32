"""Keep answer values out of the `mcp` SDK's transport DEBUG logs (opt-in).

The SDK's HTTP transports (and sse-starlette under them) write every JSON-RPC message at
DEBUG, including a re-ask's pre-filled `default`s and, on the client, the answers
themselves (docs/security.md lists each logger). typed_elicit configures no third-party
logger; an application that turns DEBUG on for them adds this filter:

    from typed_elicit.logs import hide_answer_values

    hide_answer_values()  # attaches HideAnswerValues to each logger in HideAnswerValues.LOGGERS

or attaches `HideAnswerValues()` to its own handler (`handler.addFilter(HideAnswerValues())`).
"""

from typed_elicit._core.faces import publish
from typed_elicit._observe.logs import HideAnswerValues, hide_answer_values

__all__ = ["HideAnswerValues", "hide_answer_values"]

publish(__name__, globals(), __all__)
