"""Interactive terminal forms for elicitation requests (needs the `cli` extra: prompt_toolkit)."""

from typed_elicit._core.faces import publish
from typed_elicit.client._terminal import TerminalForms, terminal_handler

__all__ = ["TerminalForms", "terminal_handler"]

publish(__name__, globals(), __all__)
