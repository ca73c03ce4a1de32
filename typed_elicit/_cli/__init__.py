"""The `typed-elicit` command: demo, schema, check and call.

A small package: `_parser` (one function per command), `_load` (importing the user's
modules), `_source` (the models a module's source names), `_check` (`schema` and `check`),
`_talk` (answering a server's questions, `call`) and `_demo` (`demo`, whose example servers
ship inside the package, and servers built by a factory).

Exit codes (every subcommand):

- 0: success.
- 1: the work was done and found problems: `check` found schema errors or no model in a
  module, `schema` was given a model that cannot be elicited, `call`/`demo` got a tool error.
- 2: usage error: bad arguments, or a module, model, example, server, factory or tool that
  does not exist (or a factory that fails).
- 3: the server could not be reached or broke the protocol.
- 130: interrupted (Ctrl-C outside a form).
"""

from __future__ import annotations

from ._common import EXIT_CONNECTION, EXIT_INTERRUPTED, EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE, UsageError
from ._parser import build_parser, main, package_version, run
from ._talk import CommandLineAnswers, sample_argument

__all__ = [
    "EXIT_CONNECTION",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_PROBLEMS",
    "EXIT_USAGE",
    "CommandLineAnswers",
    "UsageError",
    "build_parser",
    "main",
    "package_version",
    "run",
    "sample_argument",
]
