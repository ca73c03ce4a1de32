"""Uploaded files in the store: kept sealed beside the page's answer, handed back with it, then deleted.

A page answer with files is put in two steps: each file's bytes first, sealed under its own
key (`page-file:<page id>:<submit nonce>:<n>`, expiring with the page), then the answer, which
names each file by its place in the answer (a list of keys and indexes) and its key. Reading
the answer loads the files back into their places as `UploadedFile`s, so any replica sharing
the store hands the tool the same typed model. The submit nonce keeps two racing submits'
files apart: only the answer put first is ever read, and the loser deletes its own files.

When a 2026-07-28 call takes the answer and holds it for the rest of the call (`keep`), its
files travel inside that held copy (which the call deletes when it ends) and the stored files
are deleted at once. On a push era the call reads the answer once, in memory, and tells the
host so (`consumed`), which deletes the stored files at once too.
File bytes are never logged, never put in an error, and never sent to the client.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from typing import Any, Final

from mcp.server.mcpserver import MCPServer

from typed_elicit._calls.sealer import Sealer
from typed_elicit._forms.page.files import UploadedFile
from typed_elicit.pages._places import Place
from typed_elicit.pages._tickets import seal
from typed_elicit.stores._config import store_for

FILE_PREFIX: Final = "page-file:"


async def store_files(
    server: MCPServer,
    sealer: Sealer,
    page_id: str,
    expires_at: float,
    files: list[tuple[Place, UploadedFile]],
) -> list[dict[str, Any]]:
    """Put each file's bytes, sealed, under its own key; the references the answer keeps.

    Raises:
        StoreUnavailable: If the store failed.
    """
    nonce = secrets.token_urlsafe(12)
    store = store_for(server)
    refs: list[dict[str, Any]] = []
    for n, (place, upload) in enumerate(files):
        key = f"{FILE_PREFIX}{page_id}:{nonce}:{n}"
        await store.put(key, seal(sealer, key, upload.data), expires_at)
        refs.append({"place": place, "name": upload.name, "type": upload.media_type, "key": key})
    return refs


async def load_files(
    server: MCPServer, sealer: Sealer, page_id: str, refs: list[dict[str, Any]]
) -> list[tuple[Place, UploadedFile]]:
    """The stored files `refs` name (a file that is gone, or not this page's, is left out).

    Raises:
        StoreUnavailable: If the store failed.
    """
    store = store_for(server)
    found: list[tuple[Place, UploadedFile]] = []
    for ref in refs:
        key = str(ref.get("key", ""))
        if not key.startswith(f"{FILE_PREFIX}{page_id}:"):
            continue
        sealed = await store.get(key)
        data = None if sealed is None else sealer.unseal(key, sealed)
        if data is not None:
            found.append((ref["place"], UploadedFile(str(ref["name"]), str(ref["type"]), data)))
    return found


async def delete_files(server: MCPServer, page_id: str, refs: list[dict[str, Any]]) -> None:
    """Delete the stored files `refs` name.

    Raises:
        StoreUnavailable: If the store failed.
    """
    await delete_stored(server, page_id, [str(ref.get("key", "")) for ref in refs])


async def delete_stored(server: MCPServer, page_id: str, keys: Iterable[str]) -> None:
    """Delete the stored files under `keys` (a key that is not one of this page's files is left).

    Raises:
        StoreUnavailable: If the store failed.
    """
    store = store_for(server)
    for key in keys:
        if key.startswith(f"{FILE_PREFIX}{page_id}:"):
            await store.delete(key)
