"""`typed-elicit demo`: run an example server in memory and answer its questions."""

from __future__ import annotations

import argparse
import inspect
from collections.abc import Callable, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any, Final, TextIO

from mcp.server.mcpserver import MCPServer

from typed_elicit.fallback._companion import installed
from typed_elicit.testing._kit import connect

from ._common import UsageError
from ._load import load_module
from ._talk import answering, call_tool, coerce, parse_pairs

DEFAULT_EXAMPLE: Final = "deployment_wizard"
"""The example `typed-elicit demo` runs; it ships inside the package (see `find_example`)."""


SHIPPED: Final = Path(__file__).resolve().parent / "examples"
"""The examples inside the package: the wheel copies them here from the checkout's `examples/`."""
CHECKOUT: Final = Path(__file__).resolve().parents[2] / "examples"
"""The examples of a source checkout, for a `typed_elicit` imported from one."""
FACTORIES: Final = ("build_server", "make_server", "create_server")
"""The functions the demo calls for a server when the module has no `server` (in this order)."""


def find_example(name: str) -> Path:
    """Find an example server by file path, or by name in `./examples`, the package or the checkout.

    Raises:
        UsageError: No such example.
    """
    candidates = [Path(name)] if name.endswith(".py") else []
    candidates.extend(folder / f"{name}.py" for folder in (Path.cwd() / "examples", SHIPPED, CHECKOUT))
    for path in candidates:
        if path.is_file():
            return path
    raise UsageError(f"no example {name!r}; looked for {', '.join(map(str, candidates))}")


async def run_demo(args: argparse.Namespace, out: TextIO) -> int:
    """Run an example server in memory and answer its questions, printing the exchange."""
    head, sep, tail = args.example.rpartition(":")  # EXAMPLE[:NAME], NAME an identifier
    example, name = (head, tail) if sep and head and tail.isidentifier() else (args.example, None)
    path = find_example(example)
    server, how = await server_of(
        load_module(str(path)), path, name, parse_pairs(args.factory_arg, "--factory-arg"), example
    )
    callback, interactive = answering(args, out, invent=True)
    who = "you answer" if interactive else "a scripted user answers"
    origin = f", from {how}" if how else ""
    out.write(f"demo: {path.name} (server {server.name!r}{origin}), protocol {args.protocol}; {who}\n")
    fallback = installed(server)
    async with connect(server, args.protocol, elicitation_callback=callback) as client:
        return await call_tool(
            client,
            args.tool,
            parse_pairs(args.arg, "--arg"),
            out,
            companion=fallback.tool if fallback is not None else None,
            invent=True,
        )


async def server_of(
    module: ModuleType, path: Path, name: str | None, factory_args: Mapping[str, str], example: str
) -> tuple[MCPServer[Any], str]:
    """The server to run: `name` (an `MCPServer` or a factory), else `server`, else a factory of `FACTORIES`.

    A factory is a module-level function (or coroutine function) returning an
    `MCPServer`, called with `factory_args` as keyword arguments.

    Args:
        module: The example's module.
        path: Its file.
        name: The name given as `EXAMPLE:NAME`, if any.
        factory_args: `--factory-arg` values, by parameter name.
        example: The example as given (for the hint).

    Returns:
        The server and how it was made (`build_server()`), empty for a module-level server.

    Raises:
        UsageError: No such name, no server and no factory, or the factory cannot be called.
    """
    if name is not None:
        if not hasattr(module, name):
            raise UsageError(f"{path} has no `{name}`; name an MCPServer or a function returning one")
        found: object = getattr(module, name)
    else:
        found = getattr(module, "server", None)
        if not isinstance(found, MCPServer):
            name = next((f for f in FACTORIES if inspect.isfunction(getattr(module, f, None))), None)
            if name is None:
                raise UsageError(_nothing_found(module, path, example))
            found = getattr(module, name)
    if isinstance(found, MCPServer):
        if factory_args:
            raise UsageError(f"--factory-arg is for a factory; {name or 'server'} is an MCPServer")
        return found, ""  # pyright: ignore[reportUnknownVariableType]  # MCPServer is generic in its lifespan
    if not callable(found):
        raise UsageError(
            f"{name} in {path} is a {type(found).__name__}, not an MCPServer or a function returning one"
        )
    return await _call_factory(found, str(name), factory_args), f"{name}()"


def _nothing_found(module: ModuleType, path: Path, example: str) -> str:
    others = [key for key, value in vars(module).items() if isinstance(value, MCPServer)]
    factories = ", ".join(f"{f}()" for f in FACTORIES[:-1]) + f" or {FACTORIES[-1]}()"
    text = (
        f"{path} has no MCPServer named `server` and no factory function {factories}; "
        f"name the server or its factory: typed-elicit demo {example}:NAME"
    )
    return f"{text} (MCPServer objects in it: {', '.join(others)})" if others else text


async def _call_factory(factory: Callable[..., object], name: str, raw: Mapping[str, str]) -> MCPServer[Any]:
    """Call `factory` with the `--factory-arg` values; it must return an `MCPServer`.

    Raises:
        UsageError: An argument it does not take or needs, it fails, or returns no `MCPServer`.
    """
    try:
        signature = inspect.signature(factory)
    except (TypeError, ValueError):  # pragma: no cover - a builtin without a signature
        signature = inspect.Signature([inspect.Parameter("kwargs", inspect.Parameter.VAR_KEYWORD)])
    try:
        signature.bind(**raw)
    except TypeError as exc:  # an argument it does not take, or one it needs that was not given
        raise UsageError(
            f"{name}() cannot be called with the --factory-arg values given ({exc}); it takes: "
            f"{', '.join(signature.parameters) or 'nothing'}, each passed as --factory-arg KEY=VALUE"
        ) from None
    parameters = signature.parameters
    arguments = {key: coerce(value, text=_takes_text(parameters.get(key))) for key, value in raw.items()}
    try:
        built = factory(**arguments)
        if inspect.isawaitable(built):
            built = await built
    except Exception as exc:
        raise UsageError(f"{name}() failed: {type(exc).__name__}: {exc}") from exc
    if not isinstance(built, MCPServer):
        raise UsageError(f"{name}() returned {type(built).__name__}, not an MCPServer")
    return built  # pyright: ignore[reportUnknownVariableType]  # MCPServer is generic in its lifespan


def _takes_text(parameter: inspect.Parameter | None) -> bool:
    """Whether a factory's parameter takes text as given (`str` or unannotated); else JSON when it parses."""
    return parameter is None or parameter.annotation in (None, str, "str", inspect.Parameter.empty)
