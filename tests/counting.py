"""Containers that count how much of them was read: "refused with bounded work", shown by counting.

A hostile input is handed over wrapped in one of these; the test then asserts that
typed_elicit pulled at most a bounded number of items out of it before refusing, however
many it holds (a `len()` is free: it is how a limit is checked first).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping, Sequence
from types import FrameType
from typing import Any, overload


class CountingSequence(Sequence[str]):
    """`size` strings `"v0"`, `"v1"`, ..., made on demand; `read` counts the ones handed out.

    `claimed` is what `len()` says (default: `size`): a sequence may lie about its length,
    and a bound must still hold.
    """

    def __init__(self, size: int, *, claimed: int | None = None, width: int = 0) -> None:
        self.size = size
        self.claimed = size if claimed is None else claimed
        self.width = width
        self.read = 0

    def __len__(self) -> int:
        return self.claimed

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...
    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        if isinstance(index, slice):  # pragma: no cover - never sliced by the code under test
            raise TypeError("not sliceable")
        if not 0 <= index < self.size:
            raise IndexError(index)
        self.read += 1
        return f"v{index}".ljust(self.width, "x")

    def __iter__(self) -> Iterator[str]:
        for index in range(self.size):
            self.read += 1
            yield f"v{index}".ljust(self.width, "x")


class CountingMapping(Mapping[str, str]):
    """`size` entries `"v<i>" -> "title <i>"`, made on demand; `read` counts the keys handed out."""

    def __init__(self, size: int, *, title: str = "title") -> None:
        self.size = size
        self.title = title
        self.read = 0

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, key: str) -> str:
        return f"{self.title} {key}"

    def __iter__(self) -> Iterator[str]:
        for index in range(self.size):
            self.read += 1
            yield f"v{index}"


class CountingDict(dict[str, Any]):
    """A real dict (so it passes every `isinstance` check) that counts the entries read from it.

    Iterating it, or its `keys()`, `values()` or `items()`, counts one per entry handed out,
    and so does a lookup; `len()` and `in` do not.
    """

    read: int

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.read = 0

    def _count(self, items: Iterator[Any]) -> Iterator[Any]:
        for item in items:
            self.read += 1
            yield item

    def __iter__(self) -> Iterator[str]:
        return self._count(super().__iter__())

    def keys(self) -> Any:
        return self._count(iter(super().keys()))

    def values(self) -> Any:
        return self._count(iter(super().values()))

    def items(self) -> Any:
        return self._count(iter(super().items()))

    def __getitem__(self, key: str) -> Any:
        self.read += 1
        return super().__getitem__(key)

    def get(self, key: str, default: Any = None) -> Any:
        self.read += 1
        return super().get(key, default)


class CountingList(list[Any]):
    """A real list that counts the items read from it by iteration or index (not `len()`).

    C code that reads a list subclass's storage directly (`json.dumps`, `list(...)`) is not
    counted: use it for code that walks the list in Python.
    """

    read: int

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.read = 0

    def __iter__(self) -> Iterator[Any]:
        for item in super().__iter__():
            self.read += 1
            yield item

    def __getitem__(self, index: Any) -> Any:
        self.read += 1
        return super().__getitem__(index)


class Calls:
    """Counts the calls (Python functions and builtins such as `len`) made inside the block.

    A work counter for code that walks plain lists and dicts in C loops, where no container
    of ours can count the reads: `with Calls() as calls: ...; calls.made` (`sys.setprofile`).
    """

    made: int = 0

    def __enter__(self) -> Calls:
        self.made = 0
        self._previous = sys.getprofile()
        sys.setprofile(self._count)
        return self

    def _count(self, frame: FrameType, event: str, arg: object) -> None:
        if event == "call" or event == "c_call":
            self.made += 1

    def __exit__(self, *exc: object) -> None:
        sys.setprofile(self._previous)
