"""Reading a multipart submit (a page with file fields), bounded before and while it streams.

A page with file fields is sent as `multipart/form-data`. Its body has its own limit,
`multipart_limit(tree)`: the page's text limit (`MAX_BODY_BYTES`) plus the size limits of the
files it can hold, at most `MAX_MULTIPART_BYTES`. The body is refused at once when its
`Content-Length` says more, and while it streams as soon as it passes that; it may hold at
most `MAX_SUBMIT_FIELDS` parts, each with a few short headers; its text parts together at most
`MAX_BODY_BYTES`. A file part is accepted only for a file input of the page, and is kept only
up to its field's `max_bytes` (one byte more says "too large"). The body is read whole before
it is cut into parts, so memory stays bounded by the page's own limit whatever is sent. Nothing
read here is logged.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from python_multipart.multipart import parse_options_header  # the SDK's own dependency

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
    kind, options = parse_options_header(content_type)
    boundary = options.get(b"boundary")
    if kind != b"multipart/form-data" or not boundary or len(boundary) > 70:
        return None
    return boundary


async def read_multipart(
    request: Any, tree: PageTree, boundary: bytes
) -> tuple[dict[str, list[str]], dict[str, RawFile]]:
    """The text fields and the files of a multipart submit of `tree`'s page.

    The body is read whole (it is at most `multipart_limit(tree)`), then cut into its parts
    (`_parts`).

    Raises:
        BadBody: 413 past the page's limit (by `Content-Length` or while streaming), 400 for a
            body that is no well-formed multipart, holds too many parts, a file part for no
            file input of the page, a name twice for a file, or text that is not UTF-8.
    """
    limit = multipart_limit(tree)
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > limit):
        raise BadBody(413 if declared.isdigit() else 400)
    body = bytearray()
    async for chunk in request.stream():
        if len(body) + len(chunk) > limit:  # before it is kept: a chunk may be the whole body
            raise BadBody(413)
        body += chunk
    return _parts(body, tree, boundary)


_HEAD_BYTES: Final = _PART_HEADERS * (_HEADER_BYTES + 2) + 2
"""The longest a part's headers may be, with their line ends."""

_HEADER: Final = re.compile(rb"([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*([^\r\n]*)")
"""One header line of a part: a token, a colon, a value without line breaks."""


def _parts(
    body: bytearray, tree: PageTree, boundary: bytes
) -> tuple[dict[str, list[str]], dict[str, RawFile]]:
    """A whole `multipart/form-data` body cut into its text fields and its files (RFC 7578).

    It starts with the delimiter (`--` and the boundary) and each part follows a line end,
    its headers, an empty line and its bytes, up to the next delimiter (preceded by a line
    end); the close delimiter (`--` after it) ends the body, and what follows it is ignored.
    Each part is checked as its headers end: its kind and name, a file for a file input only.

    Raises:
        BadBody: As `read_multipart` does.
    """
    delimiter = b"--" + boundary
    if not body.startswith(delimiter):
        raise BadBody(400)
    between = b"\r\n" + delimiter
    texts: dict[str, list[str]] = {}
    files: dict[str, RawFile] = {}
    text_bytes = parts = 0
    at = len(delimiter)
    while not body.startswith(b"--", at):  # the close delimiter ends the body
        parts += 1
        if parts > MAX_SUBMIT_FIELDS or not body.startswith(b"\r\n", at):
            raise BadBody(400)
        head = at + 2
        head_end = body.find(b"\r\n\r\n", head, head + _HEAD_BYTES)
        if head_end < 0 or body.startswith(b"\r\n", head):
            raise BadBody(400)  # no headers, or longer than a part's may be
        end = body.find(between, head_end + 4)
        if end < 0:
            raise BadBody(400)  # a part that never ends
        name, filename, media = _head(bytes(body[head:head_end]))
        if filename is None:
            text_bytes += end - head_end - 4
            if text_bytes > MAX_BODY_BYTES:
                raise BadBody(413)
            try:
                texts.setdefault(name, []).append(body[head_end + 4 : end].decode("utf-8"))
            except UnicodeDecodeError:
                raise BadBody(400) from None
        else:
            node = node_at(tree, name)
            if not isinstance(node, FileField) or name in files:
                raise BadBody(400)
            size = end - head_end - 4
            kept = body[head_end + 4 : head_end + 4 + min(size, node.limits.max_bytes + 1)]
            files[name] = RawFile(filename, media, kept, too_large=size > node.limits.max_bytes)
        at = end + len(between)
    return texts, files


def _head(block: bytes) -> tuple[str, str | None, str]:
    """A part's name, file name (None for a text field) and media type, from its header lines.

    Raises:
        BadBody: 400 for too many or too long header lines, a line that is no header, or a part
            that is no form field with a UTF-8 name of at most `MAX_NAME_LENGTH` bytes.
    """
    lines = block.split(b"\r\n")
    if len(lines) > _PART_HEADERS:
        raise BadBody(400)
    headers: dict[bytes, bytes] = {}
    for line in lines:
        found = _HEADER.fullmatch(line) if len(line) <= _HEADER_BYTES else None
        if found is None:
            raise BadBody(400)
        headers[found[1].lower()] = found[2].strip()
    kind, raw_name, filename = _disposition(headers.get(b"content-disposition", b""))
    if kind != b"form-data" or raw_name is None or len(raw_name) > MAX_NAME_LENGTH:
        raise BadBody(400)
    try:
        name = raw_name.decode("utf-8")
    except UnicodeDecodeError:
        raise BadBody(400) from None
    if filename is None:
        return name, None, ""
    media = parse_options_header(headers.get(b"content-type", b""))[0].decode("latin-1").lower()
    return name, filename.decode("utf-8", "replace"), media


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
