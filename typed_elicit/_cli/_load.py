"""Loading the user's code: modules, models, and the forms, servers and tools in them."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import pkgutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any, Final

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel

from typed_elicit._calls.policy import Policy
from typed_elicit._core.foreign import registered
from typed_elicit._forms.reduce import is_form
from typed_elicit.errors import SchemaError

from ._common import UsageError

_FILE_PREFIX: Final = "_typed_elicit_cli_"


def load_module(target: str) -> ModuleType:
    """Import a module by dotted name, or load a `.py` file by path.

    The current directory is put first on `sys.path`, as `python -m` does; a file's own
    directory too, as `python path/to/file.py` does (so it imports the modules beside it).

    Args:
        target: `package.module` or `path/to/file.py`.

    Returns:
        The module.

    Raises:
        UsageError: The module or file does not exist, or fails to import.
        SchemaError: A `@form` model in it cannot be elicited (raised at import).
    """
    if str(Path.cwd()) not in sys.path:
        sys.path.insert(0, str(Path.cwd()))
    try:
        if not (target.endswith(".py") or "/" in target):
            return importlib.import_module(target)
        path = Path(target)
        if not path.is_file():
            raise UsageError(f"no such file: {target}")
        folder = str(path.resolve().parent)
        if folder not in sys.path:
            sys.path.insert(0, folder)
        name = f"{_FILE_PREFIX}{path.stem}"
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None, "any .py file has a spec"
        assert spec.loader is not None, "and a loader"
        module = sys.modules[name] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    except ModuleNotFoundError as exc:
        if exc.name is not None and target.startswith(exc.name):
            raise UsageError(
                f"no module named {target!r} (looked in the current directory and sys.path)"
            ) from None
        raise UsageError(f"cannot import {target}: {exc}") from exc
    except (SchemaError, UsageError):
        raise
    except Exception as exc:
        raise UsageError(f"cannot import {target}: {type(exc).__name__}: {exc}") from exc


def load_model(target: str) -> type[BaseModel]:
    """Resolve `MODULE:Model` to a pydantic model class.

    Args:
        target: A module (dotted or file path), a colon, and a class name.

    Returns:
        The model class.

    Raises:
        UsageError: The target is malformed, or names no model.
        SchemaError: The module failed to import because a `@form` model is bad.
    """
    module_name, sep, attr = target.rpartition(":")
    if not sep or not module_name or not attr:
        raise UsageError(f"expected MODULE:Model, got {target!r}")
    model = getattr(load_module(module_name), attr, None)
    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        raise UsageError(f"{target} is not a pydantic model")
    return model


def walk(module: ModuleType) -> Iterator[ModuleType]:
    """`module` and, for a package, every submodule, imported in turn."""
    yield module
    for info in pkgutil.walk_packages(getattr(module, "__path__", []), prefix=f"{module.__name__}."):
        yield importlib.import_module(info.name)


def forms_in(module: ModuleType) -> list[type[BaseModel]]:
    """The models declared with `@form` that `module` defines or imports."""
    return [
        obj
        for _, obj in inspect.getmembers(module, inspect.isclass)
        if issubclass(obj, BaseModel) and is_form(obj)
    ]


def servers_in(module: ModuleType) -> list[MCPServer[Any]]:
    """The `MCPServer` objects in `module`."""
    return [obj for _, obj in inspect.getmembers(module) if isinstance(obj, MCPServer)]


def elicits_models_in(module: ModuleType) -> list[type[BaseModel]]:
    """The models named in `@elicits(...)` on `module`'s functions and on the tools of its servers."""
    found = [obj for _, obj in inspect.getmembers(module, callable) if _is_elicits(obj)]
    for server in servers_in(module):
        found.extend(fn for _, _, fn in registered(server) if _is_elicits(fn))
    return [
        model
        for function in dict.fromkeys(found)
        for model in getattr(function, "__typed_elicit_models__", ())
    ]


def _is_elicits(obj: object) -> bool:
    return isinstance(getattr(obj, "__typed_elicit_policy__", None), Policy)


def misplaced_fallbacks(module: ModuleType) -> list[str]:
    """A problem line per prompt or resource template with `@elicits(on_unsupported="fallback")`."""
    lines: list[str] = []
    for server in servers_in(module):
        for kind, name, fn in registered(server):
            policy = getattr(fn, "__typed_elicit_policy__", None)
            if kind != "tool" and isinstance(policy, Policy) and policy.on_unsupported == "fallback":
                origin = inspect.unwrap(fn)  # the SDK and @elicits wrap the user's function
                where = f"{module_label(origin)}:{getattr(origin, '__qualname__', name)}"
                lines.append(
                    f"{where}: @elicits(on_unsupported='fallback') on the {kind} {name!r}: the fallback "
                    "re-runs a tool call, so it works for tools only (the call fails before the body "
                    "runs); pass on_unsupported='raise', 'defaults' or 'decline'"
                )
    return lines


def module_label(model: type[BaseModel] | Callable[..., Any]) -> str:
    """Where `model` was defined: its file, relative to the current directory, or its module."""
    module_name: str = getattr(model, "__module__", "")
    source = inspect.getsourcefile(model) if module_name.startswith(_FILE_PREFIX) else None
    return module_name if source is None else relative(source)


def relative(path: str) -> str:
    """`path` relative to the current directory when it is under it."""
    return str(Path(path).relative_to(Path.cwd())) if Path(path).is_relative_to(Path.cwd()) else path
