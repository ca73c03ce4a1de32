"""Deprecated: the pytest plugin moved to `typed_elicit.testing.pytest_plugin` (removed in 0.4.0).

The installed plugin registers itself from its new home (the `pytest11` entry point); only a
`pytest_plugins = ["typed_elicit.pytest_plugin"]` line or `-p typed_elicit.pytest_plugin` reads
this module.
"""

import warnings

from typed_elicit._core.deprecation import REMOVED_IN
from typed_elicit.testing.pytest_plugin import (  # the hooks and fixtures, under their old home
    Connector,
    elicit_connect,
    elicit_protocol,
    pytest_configure,
    pytest_generate_tests,
    scripted_user,
)

warnings.warn(
    "typed_elicit.pytest_plugin moved to typed_elicit.testing.pytest_plugin (the installed plugin "
    f"loads it from there; this module goes in typed_elicit {REMOVED_IN})",
    DeprecationWarning,
    stacklevel=2,
)

__all__ = [
    "Connector",
    "elicit_connect",
    "elicit_protocol",
    "pytest_configure",
    "pytest_generate_tests",
    "scripted_user",
]
