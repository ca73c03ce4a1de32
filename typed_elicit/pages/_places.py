"""Where files are in a page answer: taken out before it is stored, put back when it is read.

The answer's JSON names each file by its place (keys and list indexes from the top), with its
bytes inline: a page's answer is one sealed value in the store, files and all.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any, Final, cast

from typed_elicit._forms.page.files import UploadedFile

Place = list[str | int]
"""Where a file is in an answer's content: keys and list indexes, from the top."""


def split_files(content: Mapping[str, Any]) -> tuple[dict[str, Any], list[tuple[Place, UploadedFile]]]:
    """`content` without its files (each replaced by None), and each file with its place."""
    if not any(isinstance(value, _HOLDERS) for value in content.values()):
        return dict(content), []  # flat, without files: nothing to walk
    found: list[tuple[Place, UploadedFile]] = []

    def walk(value: Any, place: Place) -> Any:  # a file, a dict or a list: a plain value is not walked
        if isinstance(value, UploadedFile):
            found.append((place, value))
            return None
        if isinstance(value, dict):
            items = cast("dict[str, Any]", value).items()
            return {k: walk(v, [*place, k]) if isinstance(v, _HOLDERS) else v for k, v in items}
        rows = enumerate(cast("list[object]", value))
        return [walk(v, [*place, i]) if isinstance(v, _HOLDERS) else v for i, v in rows]

    return walk(dict(content), []), found


_HOLDERS: Final = (UploadedFile, dict, list)
"""What a file may be, or be inside, in an answer's content."""


def put_back(content: dict[str, Any], files: list[tuple[Place, UploadedFile]]) -> dict[str, Any]:
    """`content` with each file set at its place (a place that is not there is skipped)."""
    for place, upload in files:
        target: Any = content
        for step in place[:-1]:
            try:
                target = target[step]
            except (KeyError, IndexError, TypeError):
                target = None
                break
        last = place[-1] if place else None
        if isinstance(target, dict) and isinstance(last, str):
            cast("dict[str, Any]", target)[last] = upload
        elif isinstance(target, list) and isinstance(last, int):
            rows = cast("list[object]", target)
            if last < len(rows):
                rows[last] = upload
    return content


def inline(files: list[tuple[Place, UploadedFile]]) -> list[dict[str, Any]]:
    """Files as JSON with their bytes (base64), for an answer stored sealed."""
    return [
        {"place": place, "name": f.name, "type": f.media_type, "data": base64.b64encode(f.data).decode()}
        for place, f in files
    ]


def from_json(entries: object) -> list[tuple[Place, UploadedFile]]:
    """The files of an answer's JSON (what `inline` wrote), each with its place.

    Raises:
        ValueError: If `entries` is not what `inline` wrote.
    """
    if entries is None:
        return []
    if not isinstance(entries, list):
        raise ValueError("not a page answer")
    held: list[tuple[Place, UploadedFile]] = []
    for entry in cast("list[object]", entries):
        if not isinstance(entry, dict) or "data" not in entry:
            raise ValueError("not a page answer")
        item = cast("dict[str, Any]", entry)
        data = base64.b64decode(item["data"], validate=True)
        held.append((item["place"], UploadedFile(item["name"], item["type"], data)))
    return held
