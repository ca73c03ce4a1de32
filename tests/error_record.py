"""Which documented fields each typed_elicit error carries, checked as the test run builds them.

`install()` wraps the `__init__` of every `TypedElicitError` subclass typed_elicit defines
(those that exist now, and those defined later, through `__init_subclass__`), found in the
subclass tree, never in a list of modules. When an instance's outermost `__init__` returns,
every attribute its class documents (the `Attributes:` sections of its docstring and of its
typed_elicit bases) must be set and not None, unless the docstring says "None when ..." and
`JUSTIFIED_NONE` says why that case has no data. Only the shortfalls are kept, never the
instances (they hold tracebacks, frames and answers).

One kind of instance is not checked: a message-first constructor (`ElicitationTimeout("...")`)
called from outside typed_elicit, which is how code that predates the builders (or a test of
that compatibility) makes one. Every instance typed_elicit makes is checked, however it was made.

`tests/errors/test_errors.py::test_every_error_raised_in_the_suite_carries_its_documented_fields`
runs last (see `tests/conftest.py`) and fails on any shortfall.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import pkgutil
import re
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

import typed_elicit
from typed_elicit import TypedElicitError


@dataclass(frozen=True)
class Justified:
    """Why an attribute may be None, and the test of an instance that it is that case."""

    why: str
    applies: Callable[[Any], bool]


JUSTIFIED_NONE: Final[dict[tuple[str, str], Justified]] = {
    ("InvalidResponse", "content"): Justified(
        "the client's result carried no content to keep", lambda error: True
    ),
    ("ElicitationUnsupported", "subject"): Justified(
        "a URL-mode question asks for no model", lambda error: error.mode == "url"
    ),
    ("InvalidFallbackToken", "tool"): Justified(
        "only a used token is read far enough to know its tool", lambda error: error.problem != "used"
    ),
    ("InvalidFallbackToken", "ttl"): Justified(
        "only an expired token is refused for its age", lambda error: error.problem != "expired"
    ),
    ("ElicitUsageError", "subject"): Justified(
        "pydantic names no parameter when ElicitContext is met outside a function's parameters "
        "(TypeAdapter(ElicitContext))",
        lambda error: error.problem == "unwrapped",
    ),
}
"""(class, attribute) pairs whose docstring says "None when ...": why that case has no data, and
the test that an instance is that case (a None anywhere else is a shortfall)."""

_ENTRY: Final = re.compile(r"^(\w+)(?: \([^)]*\))?: (.*)$")


DEPRECATED_MODULES = frozenset({"typed_elicit.terminal", "typed_elicit.pytest_plugin"})
"""Shims of 0.2's module paths (they warn when imported and define nothing of their own)."""


def error_classes() -> list[type[TypedElicitError]]:
    """Every `TypedElicitError` subclass typed_elicit defines, after importing all its modules."""
    for module in pkgutil.walk_packages(typed_elicit.__path__, "typed_elicit."):
        if not module.name.endswith(".__main__") and module.name not in DEPRECATED_MODULES:
            importlib.import_module(module.name)  # (__main__ runs the CLI when imported)
    found: list[type[TypedElicitError]] = []
    pending = [TypedElicitError]
    while pending:
        cls = pending.pop()
        for sub in cls.__subclasses__():
            if sub not in found:
                pending.append(sub)
                if _ours(sub) and sub.__name__ not in BRANCHES:
                    found.append(sub)
    return sorted(found, key=lambda cls: cls.__qualname__)


BRANCHES = frozenset({"DeclarationError", "NoAnswerError", "ServerStateError"})
"""The tree's branches: no error is raised as one of them."""


def _ours(cls: type) -> bool:
    return cls.__module__ == "typed_elicit" or cls.__module__.startswith("typed_elicit.")


@functools.cache
def documented(cls: type[TypedElicitError]) -> dict[str, str]:
    """Each attribute `cls` documents (its own and its typed_elicit bases'), with its description."""
    fields: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        if isinstance(klass, type) and issubclass(klass, TypedElicitError) and _ours(klass):
            fields.update(_attributes(klass.__doc__ or ""))
    return fields


def _attributes(doc: str) -> dict[str, str]:
    """The Google-style `Attributes:` section of a docstring, as {name: description}."""
    lines = inspect.cleandoc(doc).splitlines()
    if "Attributes:" not in lines:
        return {}
    found: dict[str, str] = {}
    name = ""
    for line in lines[lines.index("Attributes:") + 1 :]:
        if not line.startswith("    "):
            break
        if line.startswith("     "):
            found[name] += " " + line.strip()
            continue
        entry = _ENTRY.match(line[4:])
        if entry is None:
            break
        name = entry.group(1)
        found[name] = entry.group(2)
    return found


def nullable(cls: type[TypedElicitError]) -> set[tuple[str, str]]:
    """The (defining class, attribute) pairs whose description allows None ("None when ...")."""
    pairs: set[tuple[str, str]] = set()
    for klass in cls.__mro__:
        if isinstance(klass, type) and issubclass(klass, TypedElicitError) and _ours(klass):
            pairs |= {
                (klass.__qualname__, n)
                for n, d in _attributes(klass.__doc__ or "").items()
                if "None when" in d
            }
    return pairs


@functools.cache
def _allowed_none(cls: type[TypedElicitError]) -> dict[str, Justified]:
    return {
        name: JUSTIFIED_NONE[owner, name] for owner, name in nullable(cls) if (owner, name) in JUSTIFIED_NONE
    }


def shortfalls(error: TypedElicitError) -> tuple[str, ...]:
    """The documented attributes `error` leaves unset, or None outside a justified case."""
    cls = type(error)
    missing: list[str] = []
    for name in documented(cls):
        value = getattr(error, name, _UNSET)
        if value is _UNSET:
            missing.append(f"{name} (unset)")
        elif value is None:
            justified = _allowed_none(cls).get(name)
            if justified is None:
                missing.append(f"{name}=None")
            elif not justified.applies(error):
                missing.append(f"{name}=None, though not the case where {justified.why}")
    return tuple(missing)


_UNSET: Final = object()


@dataclass(frozen=True)
class Shortfall:
    """One instance that lacks documented data: which class, which fields, who made it, in which test."""

    error: str
    fields: tuple[str, ...]
    made_at: str
    test: str

    def __str__(self) -> str:
        return f"{self.error} lacks {', '.join(self.fields)}: made at {self.made_at} (in {self.test})"


@dataclass
class Record:
    """What the run has built so far: shortfalls, and how many instances of each class were checked."""

    shortfalls: list[Shortfall] = field(default_factory=list)
    checked: Counter[str] = field(default_factory=Counter)
    test: str = "(collection)"
    _restore: list[Callable[[], None]] = field(default_factory=list)

    @property
    def installed(self) -> bool:
        return bool(self._restore)

    def install(self) -> None:
        """Wrap every typed_elicit error class, now and as more are defined; idempotent."""
        if self.installed:
            return
        pending: list[type[TypedElicitError]] = [TypedElicitError]
        while pending:
            cls = pending.pop()
            self._wrap(cls)
            pending.extend(cls.__subclasses__())
        record = self

        def __init_subclass__(cls: type[TypedElicitError], **kwargs: Any) -> None:
            super(TypedElicitError, cls).__init_subclass__(**kwargs)
            record._wrap(cls)

        TypedElicitError.__init_subclass__ = classmethod(__init_subclass__)  # type: ignore[assignment,method-assign]
        self._restore.append(lambda: delattr(TypedElicitError, "__init_subclass__"))

    def uninstall(self) -> None:
        """Put every `__init__` back."""
        while self._restore:
            self._restore.pop()()

    def _wrap(self, cls: type[TypedElicitError]) -> None:
        if not _ours(cls) or getattr(cls.__dict__.get("__init__"), "_recorded", False):
            return
        own = cls.__dict__.get("__init__")
        message_first = _message_first(cls)
        record = self

        def __init__(self: TypedElicitError, *args: Any, **kwargs: Any) -> None:
            if own is not None:
                own(self, *args, **kwargs)
            else:
                super(cls, self).__init__(*args, **kwargs)
            if type(self) is not cls:  # a subclass's own wrapper checks the finished instance
                return
            caller = sys._getframe(1)
            if message_first and not _ours_module(caller.f_globals.get("__name__", "")):
                return  # a message-first constructor used from outside typed_elicit (see the module doc)
            record.checked[cls.__qualname__] += 1
            missing = shortfalls(self)
            if missing:
                record.shortfalls.append(
                    Shortfall(cls.__qualname__, missing, _made_at(cls, caller), record.test)
                )

        __init__._recorded = True  # type: ignore[attr-defined]
        __init__.__wrapped__ = own or cls.__init__  # type: ignore[attr-defined]
        cls.__init__ = __init__  # type: ignore[method-assign]
        if own is None:
            self._restore.append(lambda: delattr(cls, "__init__"))
        else:
            self._restore.append(lambda: setattr(cls, "__init__", own))


def _ours_module(name: str) -> bool:
    return name == "typed_elicit" or name.startswith("typed_elicit.")


def _message_first(cls: type[TypedElicitError]) -> bool:
    """Whether `cls` is built from a finished message (its constructor's first parameter is `message`)."""
    init = inspect.unwrap(cls.__init__)
    parameters = list(inspect.signature(init).parameters)
    return parameters[1:2] == ["message"]


def _made_at(cls: type[TypedElicitError], frame: Any) -> str:
    """Where an instance was made: the raise site, and the builder it went through if any."""
    builders = {
        static.__func__.__code__: name
        for name in dir(cls)
        if isinstance(static := inspect.getattr_static(cls, name), classmethod)
    }
    name = builders.get(frame.f_code)
    if name is not None:
        return f"{cls.__qualname__}.{name}() called at {_where(frame.f_back)}"
    return f"{cls.__qualname__}(...) at {_where(frame)}"


def _where(frame: Any) -> str:
    path: str = frame.f_code.co_filename
    for root in ("/typed_elicit/", "/tests/"):
        if root in path:
            path = root.strip("/") + "/" + path.rpartition(root)[2]
            break
    return f"{path}:{frame.f_lineno}"


RECORD = Record()
"""The run's one record (installed by `tests/conftest.py` at configuration)."""
