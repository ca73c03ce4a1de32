"""Reading a multipart submit (a page with file fields), bounded before and while it streams.

A page with file fields is sent as `multipart/form-data`. Its body has its own limit,
`multipart_limit(tree)`: the page's text limit (`MAX_BODY_BYTES`) plus the size limits of the
files it can hold, at most `MAX_MULTIPART_BYTES`. The body is refused at once when its
`Content-Length` says more, and while it streams as soon as it passes that; it may hold at
most `MAX_SUBMIT_FIELDS` parts, each with a few short headers; its text parts together at most
`MAX_BODY_BYTES`. A file part is accepted only for a file input of the page, and is kept only
up to its field's `max_bytes` (one byte more says "too large"), so memory stays bounded by the
page's own limits whatever is sent. Nothing read here is logged.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from typed_elicit._forms.page.check import node_at
from typed_elicit._forms.page.files import UploadedFile, file_name, file_problem
from typed_elicit._forms.page.tree import FileField, Node, PageTree
from typed_elicit._views.words import said
from typed_elicit.pages._problems import file_size_words
from typed_elicit.pages._tree import MAX_NAME_LENGTH, MAX_SUBMIT_FIELDS

MAX_BODY_BYTES: Final = 256 * 1024
"""The largest submitted form accepted, in bytes (urlencoded; a multipart body's text parts together)."""

MAX_MULTIPART_BYTES: Final = 32 * 1024 * 1024
"""The largest multipart body any page accepts, in bytes, whatever its file fields' limits add up to."""

_PART_HEADERS: Final = 4
"""The most headers one part may have (a browser sends two)."""
_HEADER_BYTES: Final = 1024
"""The longest header line of one part."""


_DISPOSITION: Final = re.compile(rb'form-data; name="([^"\\;]*)"(?:; filename="([^"\\;]*)")?')
"""The `Content-Disposition` of a part as browsers write it: read without the general parser.

A quoted name or file name holding a backslash, a quote or a semicolon does not match, nor does any
other spelling: those go through `parse_options_header`, which gives the same result for these.
"""


def _disposition(header: bytes) -> tuple[bytes, bytes | None, bytes | None]:
    """A part's `Content-Disposition`: its kind, its `name` and its `filename` (None when absent)."""
    found = _DISPOSITION.fullmatch(header)
    if found is not None:
        return b"form-data", found[1], found[2]
    from python_multipart.multipart import parse_options_header  # the SDK's own dependency

    kind, options = parse_options_header(header)
    return kind, options.get(b"name"), options.get(b"filename")


class BadBody(Exception):
    """Internal: a multipart body refused whole; `status` is 400 (unreadable) or 413 (too large)."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


@dataclass
class RawFile:
    """A file part as received: the browser's name and type, its bytes up to its field's limit."""

    filename: str
    media_type: str
    data: bytearray = field(default_factory=bytearray)
    too_large: bool = False


def multipart_limit(tree: PageTree) -> int:
    """The most bytes a multipart submit of `tree`'s page may take (at most `MAX_MULTIPART_BYTES`)."""
    return min(MAX_MULTIPART_BYTES, MAX_BODY_BYTES + _file_bytes(tree.root) + 64 * 1024)


def _file_bytes(node: Node) -> int:
    """The most file bytes `node` can hold, every list full."""
    if node.kind == "file":
        return node.limits.max_bytes + 4096  # its part's headers and boundary
    if node.kind == "group":
        return sum(_file_bytes(c) for c in node.children)
    if node.kind == "rows":
        return node.max_rows * _file_bytes(node.item)
    if node.kind == "union":
        return max((_file_bytes(g) for g in node.groups.values()), default=0)
    return 0


def boundary_of(content_type: str) -> bytes | None:
    """The boundary of a `multipart/form-data` content type, or None for any other type."""
    from python_multipart.multipart import parse_options_header  # the SDK's own dependency

    kind, options = parse_options_header(content_type)
    boundary = options.get(b"boundary")
    if kind != b"multipart/form-data" or not boundary or len(boundary) > 70:
        return None
    return boundary


async def read_multipart(
    request: Any, tree: PageTree, boundary: bytes
) -> tuple[dict[str, list[str]], dict[str, RawFile]]:
    """The text fields and the files of a multipart submit of `tree`'s page.

    Raises:
        BadBody: 413 past the page's limit (by `Content-Length` or while streaming), 400 for a
            body that is no well-formed multipart, holds too many parts, a file part for no
            file input of the page, a name twice for a file, or text that is not UTF-8.
    """
    from python_multipart.multipart import MultipartParser  # the SDK's own dependency

    limit = multipart_limit(tree)
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > limit):
        raise BadBody(413 if declared.isdigit() else 400)
    reader = _Reader(tree)
    try:
        parser = MultipartParser(
            boundary,
            reader.callbacks(),
            max_size=limit,
            max_header_count=_PART_HEADERS,
            max_header_size=_HEADER_BYTES,
        )
    except ValueError:
        raise BadBody(400) from None
    seen = 0
    async for chunk in request.stream():
        seen += len(chunk)
        if seen > limit:
            raise BadBody(413)
        try:
            parser.write(chunk)
        except BadBody:
            raise
        except Exception:  # the parser's own errors: no well-formed multipart
            raise BadBody(400) from None
    try:
        parser.finalize()
    except Exception:
        raise BadBody(400) from None
    if not reader.ended:
        raise BadBody(400)
    return reader.texts(), reader.files


class _Reader:
    """The parser's callbacks: one part at a time, each checked as its headers end."""

    def __init__(self, tree: PageTree) -> None:
        self.tree = tree
        self.parts = 0
        self.text_bytes = 0
        self.raw: dict[str, list[bytearray]] = {}
        self.files: dict[str, RawFile] = {}
        self.field = b""
        self.value = b""
        self.headers: dict[bytes, bytes] = {}
        self.current: bytearray | None = None
        self.file: RawFile | None = None
        self.limit = 0
        self.ended = False

    def callbacks(self) -> Any:
        def on(method: Callable[..., None]) -> Callable[..., None]:
            return method

        return {
            "on_part_begin": on(self.part_begin),
            "on_header_field": on(self.header_field),
            "on_header_value": on(self.header_value),
            "on_header_end": on(self.header_end),
            "on_headers_finished": on(self.headers_finished),
            "on_part_data": on(self.part_data),
            "on_end": on(self.end),
        }

    def part_begin(self) -> None:
        self.parts += 1
        if self.parts > MAX_SUBMIT_FIELDS:
            raise BadBody(400)
        self.headers = {}
        self.current = None
        self.file = None

    def header_field(self, data: bytes, start: int, end: int) -> None:
        self.field += data[start:end]

    def header_value(self, data: bytes, start: int, end: int) -> None:
        self.value += data[start:end]

    def header_end(self) -> None:
        self.headers[self.field.strip().lower()] = self.value.strip()
        self.field = self.value = b""

    def headers_finished(self) -> None:
        kind, raw_name, filename = _disposition(self.headers.get(b"content-disposition", b""))
        if kind != b"form-data" or raw_name is None or len(raw_name) > MAX_NAME_LENGTH:
            raise BadBody(400)
        try:
            name = raw_name.decode("utf-8")
        except UnicodeDecodeError:
            raise BadBody(400) from None
        if filename is None:
            self.current = bytearray()
            self.raw.setdefault(name, []).append(self.current)
            return
        node = node_at(self.tree, name)
        if not isinstance(node, FileField) or name in self.files:
            raise BadBody(400)
        from python_multipart.multipart import parse_options_header  # the SDK's own dependency

        media = parse_options_header(self.headers.get(b"content-type", b""))[0].decode("latin-1").lower()
        self.file = RawFile(filename.decode("utf-8", "replace"), media)
        self.files[name] = self.file
        self.limit = node.limits.max_bytes

    def part_data(self, data: bytes, start: int, end: int) -> None:
        size = end - start
        if self.file is not None:
            room = self.limit + 1 - len(self.file.data)
            if room > 0:
                self.file.data += data[start : start + min(size, room)]
            if len(self.file.data) > self.limit:
                self.file.too_large = True
            return
        self.text_bytes += size
        if self.text_bytes > MAX_BODY_BYTES:
            raise BadBody(413)
        if self.current is not None:
            self.current += data[start:end]

    def end(self) -> None:
        self.ended = True

    def texts(self) -> dict[str, list[str]]:
        """The text parts, by name, decoded.

        Raises:
            BadBody: 400 for text that is not UTF-8.
        """
        try:
            return {name: [bytes(v).decode("utf-8") for v in values] for name, values in self.raw.items()}
        except UnicodeDecodeError:
            raise BadBody(400) from None


def checked_files(
    tree: PageTree, raw: Mapping[str, RawFile], words: Mapping[str, str]
) -> tuple[dict[str, UploadedFile], dict[str, str]]:
    """The files of a submit that fit their fields, and what to tell of each that does not.

    A file input left empty (no name, no bytes) is no file. A file must fit its field's size,
    media types, and start as its type does (`file_problem`).
    """
    files: dict[str, UploadedFile] = {}
    errors: dict[str, str] = {}
    for path, upload in raw.items():
        node = node_at(tree, path)
        if not isinstance(node, FileField) or (not upload.filename and not upload.data):
            continue
        limit = file_size_words(node.limits.max_bytes, words)
        data = bytes(upload.data)
        problem = "file_size" if upload.too_large else file_problem(node.limits, upload.media_type, data)
        if problem is not None:
            errors[path] = said(words, problem, limit)
            continue
        files[path] = UploadedFile(file_name(upload.filename), upload.media_type, data)
    return files, errors
