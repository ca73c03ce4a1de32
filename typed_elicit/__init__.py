"""typed_elicit: typed, safe MCP elicitation over the official `mcp` SDK.

This top level is what a server's tools use: declare a question (`form`, `Titles`,
`Choices`, `reduce_schema`), ask it (`elicits`, `ElicitContext`), read the outcome
(`ElicitResult`, `UrlResult` and their cases), and the few settings around them. The rest
lives in packages with faces of their own:

- `typed_elicit.errors`: every error, as one tree (`TypedElicitError` is also here);
- `typed_elicit.hooks`: observing and rewriting questions and answers;
- `typed_elicit.stores`: what replicas share (`Store`, `RedisStore`, `configure`);
- `typed_elicit.pages`: questions asked on the server's own web page (secrets);
- `typed_elicit.client`: answering a server's questions (and `.terminal`);
- `typed_elicit.testing`: the scripted user and in-memory connections for tests;
- `typed_elicit.logs`: keeping answer values out of the SDK's DEBUG logs.

`typed_elicit.__version__` is the installed distribution's version (`pyproject.toml`'s, the one
`typed-elicit --version` prints), read from its metadata when first asked for.
"""

import logging
from typing import Any

from typed_elicit._calls.context import ElicitContext
from typed_elicit._calls.elicits import elicits
from typed_elicit._calls.policy import get_default_timeout, set_default_timeout
from typed_elicit._calls.url_required import UrlElicitation, url_required
from typed_elicit._core.deprecation import moved
from typed_elicit._core.faces import publish
from typed_elicit._core.results import Accepted, Cancelled, Consented, Declined, ElicitResult, UrlResult
from typed_elicit._core.versions import PROTOCOL_VERSIONS, ProtocolVersion
from typed_elicit._forms.reduce import Choices, Titles, form, reduce_schema
from typed_elicit.errors import TypedElicitError
from typed_elicit.fallback import install_fallback

logging.getLogger("typed_elicit").addHandler(logging.NullHandler())

__version__: str  # bound by `__getattr__` on first use: importing importlib.metadata costs every import

__all__ = [
    "PROTOCOL_VERSIONS",
    "Accepted",
    "Cancelled",
    "Choices",
    "Consented",
    "Declined",
    "ElicitContext",
    "ElicitResult",
    "ProtocolVersion",
    "Titles",
    "TypedElicitError",
    "UrlElicitation",
    "UrlResult",
    "elicits",
    "form",
    "get_default_timeout",
    "install_fallback",
    "reduce_schema",
    "set_default_timeout",
    "url_required",
]

publish(__name__, globals(), __all__)

MOVED = {
    **dict.fromkeys(
        (
            "ClientError",
            "ElicitArgumentError",
            "ElicitUsageError",
            "ElicitationTimeout",
            "ElicitationUnsupported",
            "FallbackNotInstalled",
            "HookError",
            "InvalidFallbackToken",
            "InvalidResponse",
            "OptionsError",
            "ReplayMismatch",
            "SchemaError",
            "StoreUnavailable",
        ),
        "typed_elicit.errors",
    ),
    **dict.fromkeys(
        ("AnswerEvent", "ElicitHook", "QuestionEvent", "add_hooks", "remove_hooks"), "typed_elicit.hooks"
    ),
    "Store": "typed_elicit.stores",
    "configure": "typed_elicit.stores",
    "ClaimStore": "typed_elicit.stores:Store",
}
"""Names of 0.2 that moved in 0.3, and their new homes (importable from here until 0.4, with a warning)."""


def __getattr__(name: str) -> Any:
    """`__version__`, from the distribution's metadata; a name that moved, with a `DeprecationWarning`.

    Raises:
        PackageNotFoundError: For `__version__`, if typed-elicit is importable but not installed.
        AttributeError: If `name` is neither and never lived here.
    """
    if name == "__version__":
        from importlib.metadata import version  # lazily: see `__version__`

        found = globals()["__version__"] = version("typed-elicit")
        return found
    return moved(__name__, name, MOVED)
