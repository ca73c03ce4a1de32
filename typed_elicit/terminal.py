"""Deprecated: the terminal forms moved to `typed_elicit.client.terminal` (removed in 0.4.0)."""

import warnings

from typed_elicit._core.deprecation import REMOVED_IN
from typed_elicit.client.terminal import TerminalForms, terminal_handler

warnings.warn(
    "typed_elicit.terminal moved to typed_elicit.client.terminal; import TerminalForms and "
    f"terminal_handler from there (this module goes in typed_elicit {REMOVED_IN})",
    DeprecationWarning,
    stacklevel=2,
)

__all__: list[str] = []  # not part of the public face: the names live in typed_elicit.client.terminal
_ = (TerminalForms, terminal_handler)
