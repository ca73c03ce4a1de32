"""Names that moved: an old import path keeps working for one minor release, with a warning."""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Mapping
from typing import Any, Final

MOVED_IN: Final = "0.3.0"
"""The release in which the names moved (its CHANGELOG section lists them)."""
REMOVED_IN: Final = "0.4.0"
"""The release in which the old import paths go: `tests/test_release.py` fails once the package's
version reaches it while a moved name is still importable from its old home."""


def moved(module: str, name: str, homes: Mapping[str, str]) -> Any:
    """`module.name` from its new home, with a `DeprecationWarning` naming it (a module's `__getattr__`).

    Args:
        module: The module the name was imported from.
        name: The name asked for.
        homes: Each moved name's new home: a module (`"typed_elicit.errors"`), or a module
            and a new name (`"typed_elicit.errors:InvalidResponse"`) for a name that changed.

    Returns:
        The object, from its new home.

    Raises:
        AttributeError: If `name` never lived in `module`.
    """
    home = homes.get(name)
    if home is None:
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    home, _, new = home.partition(":")
    new = new or name
    warnings.warn(
        f"{module}.{name} moved to {home}.{new}; import it from there ({module}.{name} goes in "
        f"typed_elicit {REMOVED_IN})",
        DeprecationWarning,
        stacklevel=3,
    )
    return getattr(importlib.import_module(home), new)
