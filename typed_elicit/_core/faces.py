"""Public names report their public homes: a face sets the `__module__` of what it exports.

Each public module (`typed_elicit`, `typed_elicit.errors`, `typed_elicit.pages`, ...) re-exports
names defined in private modules. `publish` gives each exported class and function the face as
its `__module__`, so reprs, tracebacks, `help()` and the reference show
`typed_elicit.ElicitContext`, never `typed_elicit._calls.context.ElicitContext` (as svcs does). A
name exported by two faces keeps the first (the errors package is imported before the others).
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Iterable, Mapping


def publish(face: str, namespace: Mapping[str, object], names: Iterable[str]) -> None:
    """Give each class and function `namespace` exports under `names` the home `face`, unless it has one.

    Args:
        face: The public module's name (`__name__` of the face calling it).
        namespace: The face's globals.
        names: What it exports (its `__all__`).
    """
    for name in names:
        exported = namespace.get(name)
        if not (isinstance(exported, type) or inspect.isfunction(exported)):
            continue
        home = exported.__module__
        if home.startswith("typed_elicit.") and any(part.startswith("_") for part in home.split(".")):
            if isinstance(exported, type):
                _resolve_annotations(exported)
            exported.__module__ = face


def _resolve_annotations(cls: type) -> None:
    """Evaluate `cls`'s own string annotations in its defining module, before its home changes.

    `typing.get_type_hints` (pydantic's too) evaluates a class's string annotations in the module
    its `__module__` names: once that is the face, names only the defining module holds (a type
    variable) would not resolve, so they are resolved now.
    """
    own = inspect.get_annotations(cls)
    if not own:
        return
    hints = typing.get_type_hints(cls, include_extras=True)
    cls.__annotations__ = {name: hints[name] for name in own}
    for name, spec in getattr(cls, "__dataclass_fields__", {}).items():  # what pydantic reads of a dataclass
        if name in hints:
            spec.type = hints[name]
