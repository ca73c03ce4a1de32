"""What a module's source names: the models of its `@elicits(...)` and `ctx.elicit*(...)` calls.

A server built in a factory function registers its tools only when the factory runs, which
`typed-elicit check` does not do (a factory may need arguments, keys or a database). So the
check also reads the module's source with `ast`: every `@elicits(...)` decorator, at any
depth, and every `.elicit(Model, ...)`, `.elicit_page(Model, ...)` and
`.elicit_all(A, B, ...)` call, and resolves the names they pass in the module's namespace.
"""

from __future__ import annotations

import ast
import inspect
from types import ModuleType
from typing import Final

from pydantic import BaseModel

from typed_elicit._calls.elicits import elicits

from ._load import relative

_ASKS: Final = frozenset({"elicit", "elicit_page", "elicit_all"})
"""The `ElicitContext` methods whose positional arguments are models (all of them for `elicit_all`)."""
_MISSING: Final = object()


def named_in(module: ModuleType) -> tuple[tuple[type[BaseModel], ...], int, tuple[str, ...]]:
    """Read `module`'s source for the models its `@elicits(...)` and `ctx.elicit*(...)` calls name.

    A name is resolved in the module's namespace (`Model`, `forms.Model`); one that does
    not resolve is a local variable or parameter and is skipped, unless the source defines
    a class of that name inside a function: the check cannot import such a model, which is
    a problem line. A module without readable source names nothing.

    Args:
        module: An imported module.

    Returns:
        What the source names: the model classes its `@elicits(...)` and `ctx.elicit*(...)`
        calls pass, resolved; how many `@elicits` decorators (bare or with models) it has;
        and a problem line per model named there that is a class defined inside a function.
    """
    try:
        source = inspect.getsource(module)
        tree = ast.parse(source)
    except (OSError, TypeError, SyntaxError):  # no source (a compiled or built-in module), or it changed
        return (), 0, ()
    namespace = vars(module)
    where = relative(inspect.getsourcefile(module) or module.__name__)
    local_classes = {
        node.name
        for function in ast.walk(tree)
        if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)
        for node in ast.walk(function)
        if isinstance(node, ast.ClassDef)
    }
    models: dict[type[BaseModel], None] = {}
    hidden: list[str] = []
    count = 0
    for construct, argument in _model_arguments(tree, namespace):
        if construct is None:
            count += 1
            continue
        found = _resolve(argument, namespace)
        if isinstance(found, type) and issubclass(found, BaseModel):
            models[found] = None
        elif found is _MISSING and isinstance(argument, ast.Name) and argument.id in local_classes:
            hidden.append(
                f"{where}:{argument.lineno}: {construct} names {argument.id}, a class defined "
                "inside a function, which check cannot import; define the model at module level"
            )
    return tuple(models), count, tuple(hidden)


def _model_arguments(tree: ast.AST, namespace: dict[str, object]) -> list[tuple[str | None, ast.expr]]:
    """`(construct, argument)` per model argument; `(None, decorator)` once per `@elicits` decorator."""
    found: list[tuple[str | None, ast.expr]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for decorator in node.decorator_list:
                call = decorator if isinstance(decorator, ast.Call) else None
                if _is_elicits(decorator if call is None else call.func, namespace):
                    found.append((None, decorator))
                    found.extend(("@elicits(...)", arg) for arg in ([] if call is None else call.args))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _ASKS:
            arguments = node.args if node.func.attr == "elicit_all" else node.args[:1]
            found.extend((f"ctx.{node.func.attr}(...)", arg) for arg in arguments)
    return found


def _is_elicits(expr: ast.expr, namespace: dict[str, object]) -> bool:
    """Whether a decorator expression is typed_elicit's `elicits`, by name or as resolved."""
    named = (isinstance(expr, ast.Name) and expr.id == "elicits") or (
        isinstance(expr, ast.Attribute) and expr.attr == "elicits"
    )
    return named or _resolve(expr, namespace) is elicits


def _resolve(expr: ast.expr, namespace: dict[str, object]) -> object:
    """The object a `Name` or `a.b.C` expression names at module level, or `_MISSING`."""
    if isinstance(expr, ast.Name):
        return namespace.get(expr.id, _MISSING)
    if isinstance(expr, ast.Attribute):
        base = _resolve(expr.value, namespace)
        try:
            return _MISSING if base is _MISSING else getattr(base, expr.attr, _MISSING)
        except Exception:  # a property of the user's object that raises: not a model
            return _MISSING
    return _MISSING
