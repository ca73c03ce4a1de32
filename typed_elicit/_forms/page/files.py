"""Uploaded files: the typed value a page hands the tool, and the limits a file field declares.

`UploadedFile` is what a page form's file field holds once the page is answered: the name
the browser gave, the media type, and the bytes. `FileLimits` bounds one field (size, media
types). Both live here, low in the layers, so the reducer can see a file field when it
reduces a page form; `typed_elicit.pages` exports them. A file's bytes never appear in a
repr, a str, an error or a log line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, final

from pydantic import GetCoreSchemaHandler
from pydantic_core import core_schema

from typed_elicit.errors import ElicitArgumentError

MAX_FILE_BYTES: Final = 5 * 1024 * 1024
"""A file field's size limit when it declares none (`FileLimits(max_bytes=...)`): 5 MiB."""

MAX_SUBMIT_BYTES: Final = 32 * 1024 * 1024
"""The most bytes one multipart submit of a page may take, files and fields together: 32 MiB."""

MAX_FILE_LIMIT: Final = MAX_SUBMIT_BYTES - 320 * 1024
"""The largest `FileLimits(max_bytes=...)`: what a submit holds besides the page's own fields."""

DEFAULT_MEDIA_TYPES: Final = (
    "application/pdf",
    "image/png",
    "image/jpeg",
    "image/gif",
    "image/webp",
    "text/plain",
    "text/csv",
    "application/json",
)
"""The media types a file field takes when it declares none (`FileLimits(media_types=...)`)."""

_MAGIC: Final[dict[str, tuple[bytes, ...]]] = {
    "application/pdf": (b"%PDF-",),
    "image/png": (b"\x89PNG\r\n\x1a\n",),
    "image/jpeg": (b"\xff\xd8\xff",),
    "image/gif": (b"GIF87a", b"GIF89a"),
    "application/zip": (b"PK\x03\x04", b"PK\x05\x06"),
}
"""The leading bytes of the binary types a page recognises: a file must start with its type's."""

_TEXT_TYPES: Final = frozenset({"text/plain", "text/csv", "application/json"})
"""Types whose bytes must be UTF-8 text (and so start with no binary type's magic bytes)."""


@final
@dataclass(frozen=True)
class FileLimits:
    """The limits of one file field: `Annotated[UploadedFile, FileLimits(max_bytes=..., media_types=...)]`.

    A page refuses a file over `max_bytes`, of a media type not in `media_types`, or whose
    bytes do not match its declared type (a PNG must start as a PNG does; a text type must
    be UTF-8 text). Without `FileLimits` a file field takes `MAX_FILE_BYTES` and
    `DEFAULT_MEDIA_TYPES`.

    Attributes:
        max_bytes: The largest file taken, in bytes (at least 1).
        media_types: The media types taken, lower-case `type/subtype` (at least one).

    Raises:
        ElicitArgumentError: If `max_bytes` is not a positive int or is over `MAX_FILE_LIMIT` (a
            page submit takes at most 32 MiB), or a media type is not `type/subtype`.
    """

    max_bytes: int = MAX_FILE_BYTES
    media_types: tuple[str, ...] = DEFAULT_MEDIA_TYPES

    def __post_init__(self) -> None:
        size = self.max_bytes
        if isinstance(size, bool) or not isinstance(size, int) or not 0 < size <= MAX_FILE_LIMIT:  # pyright: ignore[reportUnnecessaryIsInstance]
            raise ElicitArgumentError(
                "FileLimits",
                "max_bytes",
                f"takes max_bytes from 1 to {MAX_FILE_LIMIT} (one page submit holds at most "
                f"{MAX_SUBMIT_BYTES} bytes, the page's own fields included), got {size!r}",
                "Lower it, or take a larger file through a URL question (ctx.elicit_url) to your upload.",
            )
        types = tuple(self.media_types)
        if not types or not all(_is_media_type(t) for t in types):
            raise ElicitArgumentError(
                "FileLimits",
                "media_types",
                f"takes one or more lower-case 'type/subtype' texts, got {self.media_types!r}",
                "Write them like 'image/png' or 'application/pdf'.",
            )
        object.__setattr__(self, "media_types", types)


def _is_media_type(text: object) -> bool:
    if not isinstance(text, str) or text != text.lower() or len(text) > 100:
        return False
    kind, sep, sub = text.partition("/")
    return bool(
        sep and kind and sub and (kind + sub).replace("-", "").replace(".", "").replace("+", "").isalnum()
    )


@final
@dataclass(frozen=True, repr=False)
class UploadedFile:
    """A file a person uploaded on a page: what a page form's `UploadedFile` field holds.

    Checked on arrival against its field's `FileLimits` (size, media type, and the leading
    bytes of the type it claims). Its `repr` and `str` show the name, type and size, never
    the bytes.

    Attributes:
        name: The file's name as the browser gave it (only its last path part, at most 255
            characters, without control characters). Untrusted: never use it as a path.
        media_type: Its media type, lower-case `type/subtype`, one of the field's `media_types`.
        data: Its bytes.
    """

    name: str
    media_type: str
    data: bytes

    @property
    def size(self) -> int:
        """The file's size in bytes."""
        return len(self.data)

    def __repr__(self) -> str:
        return f"UploadedFile(name={self.name!r}, media_type={self.media_type!r}, size={self.size})"

    __str__ = __repr__

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        """Only an `UploadedFile` validates (a page makes it); it serialises without its bytes."""
        return core_schema.is_instance_schema(
            cls,
            serialization=core_schema.plain_serializer_function_ser_schema(
                lambda f: {"name": f.name, "media_type": f.media_type, "size": f.size}
            ),
        )


def file_name(raw: str) -> str:
    """A browser's file name as kept: its last path part, no control characters, at most 255 characters."""
    last = raw.replace("\\", "/").rsplit("/", 1)[-1]
    cleaned = "".join(c for c in last if c.isprintable())
    return cleaned[:255] or "file"


def file_problem(limits: FileLimits, media_type: str, data: bytes) -> str | None:
    """Why a file does not fit `limits` (a `PAGE_WORDS` key), or None if it does.

    The size first, then the declared type, then its bytes against the type: a file whose
    leading bytes are another known type's, a binary type's file without its own leading
    bytes, or a text type's file that is not UTF-8 text is mislabelled.
    """
    if len(data) > limits.max_bytes:
        return "file_size"
    if media_type not in limits.media_types:
        return "file_type"
    return None if _bytes_match(media_type, data) else "file_mislabelled"


def _bytes_match(media_type: str, data: bytes) -> bool:
    if media_type == "image/webp":
        return data[:4] == b"RIFF" and data[8:12] == b"WEBP"
    own = _MAGIC.get(media_type)
    if own is not None:
        return data.startswith(own)
    if any(data.startswith(m) for magics in _MAGIC.values() for m in magics):
        return False  # claims another type than its bytes are
    if media_type in _TEXT_TYPES:
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            return False
    return True
