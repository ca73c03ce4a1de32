"""The command line: one function per command adds its arguments and names what runs it."""

from __future__ import annotations

import argparse
import importlib.metadata
import sys
from collections.abc import Awaitable, Callable, Sequence
from typing import TextIO

import anyio

from typed_elicit._core.text import clean
from typed_elicit._core.versions import LATEST_PROTOCOL_VERSION, PROTOCOL_VERSIONS
from typed_elicit.errors import SchemaError

from ._catalogs import add_catalogs
from ._check import run_check, run_schema
from ._common import (
    ANSWERS_HELP,
    EXIT_CODES_HELP,
    EXIT_CONNECTION,
    EXIT_INTERRUPTED,
    EXIT_PROBLEMS,
    EXIT_USAGE,
    OPTIONS_HELP,
    UsageError,
)
from ._demo import DEFAULT_EXAMPLE, FACTORIES, run_demo
from ._talk import run_call

Command = Callable[[argparse.Namespace, TextIO], Awaitable[int]]
"""What runs a command: the parsed arguments and the output stream in, the exit code out."""
NewCommand = Callable[[str, str, str, str], argparse.ArgumentParser]
"""Adds a command's parser: its name, one-line help, description and epilog."""


def package_version() -> str:
    """The installed typed-elicit's version, from its distribution metadata."""
    try:
        return importlib.metadata.version("typed-elicit")
    except importlib.metadata.PackageNotFoundError:
        return "(version unknown: typed-elicit is not installed, only importable)"


def _add_repeated(parser: argparse.ArgumentParser, flag: str, metavar: str, help_text: str) -> None:
    """An option given once per value (`--arg a=1 --arg b=2`), read as a list."""
    parser.add_argument(flag, action="append", default=[], metavar=metavar, help=help_text)


def _add_answering(parser: argparse.ArgumentParser) -> None:
    """The options of the commands that answer a server's questions (`demo`, `call`)."""
    who = parser.add_mutually_exclusive_group()
    who.add_argument("--interactive", action="store_true", help="answer in the terminal (default on a tty)")
    who.add_argument("--scripted", action="store_true", help="answer without asking (default off a tty)")
    answer_help = "answer for a field when answering without asking (see answers below)"
    _add_repeated(parser, "--answer", "FIELD=VALUE", answer_help)
    _add_repeated(parser, "--arg", "KEY=VALUE", "a tool argument")


def _add_demo(new: NewCommand) -> None:
    demo = new(
        "demo",
        "run an example server and answer its questions",
        "Run an example server in memory, call its tool and answer its questions: in the terminal "
        "when run on one, by a scripted user otherwise. Prints the whole exchange.",
        f"{ANSWERS_HELP}, except that the demo makes up a value for it.\n\n{EXIT_CODES_HELP}",
    )
    demo.add_argument(
        "example",
        nargs="?",
        default=DEFAULT_EXAMPLE,
        metavar="EXAMPLE[:NAME]",
        help=f"example name or .py file (default {DEFAULT_EXAMPLE}); its MCPServer `server`, else its "
        f"factory {', '.join(f + '()' for f in FACTORIES)}, or the server or factory NAME",
    )
    factory_help = "an argument of the server's factory (text for str parameters, else JSON)"
    _add_repeated(demo, "--factory-arg", "KEY=VALUE", factory_help)
    demo.add_argument("--protocol", choices=PROTOCOL_VERSIONS, default=LATEST_PROTOCOL_VERSION)
    demo.add_argument(
        "--tool", help="the tool to call (default: the first one listed, never the fallback's companion tool)"
    )
    _add_answering(demo)
    demo.set_defaults(run=run_demo)


def _add_schema(new: NewCommand) -> None:
    schema = new(
        "schema",
        "print a model's wire schema",
        "Print the requestedSchema a model becomes on one protocol revision. A page form "
        "(@form(page=True)) prints the form of its page, secret fields marked writeOnly.",
        f"{OPTIONS_HELP}\n\n{EXIT_CODES_HELP}",
    )
    schema.add_argument("model", metavar="MODULE:Model", help="e.g. myapp.forms:Booking or forms.py:Booking")
    schema.add_argument("--protocol", choices=PROTOCOL_VERSIONS, default=LATEST_PROTOCOL_VERSION)
    schema.add_argument("--dialect", action="store_true", help='include "$schema"')
    option_help = "the options of a Choices() field, as one question offers them (repeatable; see below)"
    _add_repeated(schema, "--option", "FIELD=VALUE,...", option_help)
    schema.set_defaults(run=run_schema)


def _add_check(new: NewCommand) -> None:
    check = new(
        "check",
        "check every @form and @elicits model in modules",
        "Import modules (and their submodules), reduce every model declared with @form or named in "
        "@elicits(...) for every protocol revision, and list every schema error with the revisions "
        "that refuse it; also flag @elicits(on_unsupported='fallback') on a prompt or resource "
        "template. For CI and pre-commit.",
        EXIT_CODES_HELP,
    )
    check.add_argument("modules", nargs="+", metavar="MODULE", help="dotted module or .py file")
    check.add_argument(
        "--protocol",
        action="append",
        choices=PROTOCOL_VERSIONS,
        dest="protocols",
        help="check only this revision (repeatable; default: all)",
    )
    check.set_defaults(run=run_check)


def _add_call(new: NewCommand) -> None:
    call = new(
        "call",
        "call a tool on any MCP server and answer its questions",
        "Connect to a server (a command run over stdio, or an http(s) URL), call a tool and answer its "
        "elicitations in the terminal (or from --answer values when not on a terminal). Every "
        "required tool argument must be given with --arg.",
        f"{ANSWERS_HELP}, with the reason printed.\n\n{EXIT_CODES_HELP}",
    )
    call.add_argument("server", metavar="SERVER", help='command line ("python server.py") or http(s) URL')
    call.add_argument("tool", metavar="TOOL", help="the tool to call")
    call.add_argument("--protocol", choices=("auto", *PROTOCOL_VERSIONS), default="auto")
    _add_answering(call)
    call.set_defaults(run=run_call)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of `typed-elicit`; each command sets `run`, the `Command` that runs it."""
    parser = argparse.ArgumentParser(
        prog="typed-elicit",
        description="Typed MCP elicitation: try it, check your models, talk to servers.",
        epilog=EXIT_CODES_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {package_version()}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def new(name: str, help_text: str, description: str, epilog: str) -> argparse.ArgumentParser:
        return commands.add_parser(
            name,
            help=help_text,
            description=description,
            epilog=epilog,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )

    for add in (_add_demo, _add_schema, _add_check, _add_call, add_catalogs):
        add(new)
    return parser


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """Run `typed-elicit`; returns the exit code (see the package docstring).

    Args:
        argv: Arguments without the program name (default: `sys.argv[1:]`).
        out: Where results go (default: standard output). Errors go to standard error.

    Returns:
        The exit code.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    command: Command = args.run
    stream = out or sys.stdout
    try:
        return anyio.run(command, args, stream)
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        return EXIT_INTERRUPTED
    except Exception as exc:
        error = _leaf(exc)
        if isinstance(error, UsageError):
            sys.stderr.write(f"{parser.prog} {args.command}: {error}\n")
            return EXIT_USAGE
        if isinstance(error, SchemaError):
            sys.stderr.write(f"{error}\n")
            return EXIT_PROBLEMS
        if args.command in ("call", "demo"):
            said = f"{type(error).__name__}: {clean(str(error))}"  # it may quote the server: cleaned
            sys.stderr.write(f"{parser.prog} {args.command}: the server failed: {said}\n")
            return EXIT_CONNECTION
        raise


def _leaf(exc: BaseException) -> BaseException:
    """The single error inside (nested) exception groups, as raised by task groups."""
    inner: Sequence[BaseException] | None = getattr(exc, "exceptions", None)
    while inner is not None and len(inner) == 1:
        exc = inner[0]
        inner = getattr(exc, "exceptions", None)
    return exc


def run() -> None:
    """Console-script entry point."""
    sys.exit(main())
