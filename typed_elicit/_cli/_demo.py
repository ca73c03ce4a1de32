"""`typed-elicit demo`: run an example server in memory and answer its questions."""

from __future__ import annotations

import argparse
from pathlib import Path
from types import ModuleType
from typing import Any, Final, TextIO

from mcp.server.mcpserver import MCPServer

from typed_elicit._fallback import installed
from typed_elicit._testing import connect

from ._common import UsageError
from ._load import load_module
from ._talk import Transcript, answerer, call_tool, interactive_wanted, parse_pairs

DEFAULT_EXAMPLE: Final = "deployment_wizard"
"""The example `typed-elicit demo` runs; it ships inside the package (see `find_example`)."""


SHIPPED: Final = Path(__file__).resolve().parent / "examples"
"""The examples inside the package: the wheel copies them here from the checkout's `examples/`."""
CHECKOUT: Final = Path(__file__).resolve().parents[2] / "examples"
"""The examples of a source checkout, for a `typed_elicit` imported from one."""


def find_example(name: str) -> Path:
    """Find an example server by file path, or by name in `./examples`, the package or the checkout.

    Raises:
        UsageError: No such example.
    """
    candidates = [Path(name)] if name.endswith(".py") else []
    for folder in (Path.cwd() / "examples", SHIPPED, CHECKOUT):
        candidates.append(folder / f"{name}.py")
    for path in candidates:
        if path.is_file():
            return path
    raise UsageError(f"no example {name!r}; looked for {', '.join(map(str, candidates))}")


async def run_demo(args: argparse.Namespace, out: TextIO) -> int:
    """Run an example server in memory and answer its questions, printing the exchange."""
    path = find_example(args.example)
    server = _server_of(load_module(str(path)), path)
    interactive = interactive_wanted(args)
    callback = Transcript(
        answerer(interactive, parse_pairs(args.answer, "--answer"), invent=True),
        out,
        show_questions=not interactive,
    )
    who = "you answer" if interactive else "a scripted user answers"
    out.write(f"demo: {path.name} (server {server.name!r}), protocol {args.protocol}; {who}\n")
    fallback = installed(server)
    async with connect(server, args.protocol, elicitation_callback=callback) as client:
        return await call_tool(
            client,
            args.tool,
            parse_pairs(args.arg, "--arg"),
            out,
            companion=fallback.name if fallback is not None else None,
            invent=True,
        )


def _server_of(module: ModuleType, path: Path) -> MCPServer[Any]:
    found: object = getattr(module, "server", None)
    if isinstance(found, MCPServer):
        return found  # pyright: ignore[reportUnknownVariableType]  # MCPServer is generic in its lifespan
    raise UsageError(f"{path} has no MCPServer named `server`")
