"""Storing a file in the library through the gateway: whole, or in upload chunks."""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

from trustgraph_cli.document_progress import document_of

if TYPE_CHECKING:
    from pathlib import Path

    from trustgraph_base.schema.documents import DocumentInfo
    from trustgraph_cli.client import GatewayClient

PART_SIZE = 1 << 20  # files up to this go in one add-document; larger ones in upload chunks
CHUNKING = ("chunk_size", "chunk_overlap")


async def upload(
    client: GatewayClient,
    file: Path,
    size: int,
    meta: dict[str, Any],
    progress: Any,
    state: dict[str, str],
) -> DocumentInfo:
    """Store the file in the library (TrustGraph's ``add-document``, or for a large file
    ``begin-upload``, ``upload-chunk``…, ``complete-upload``) with the processing to start
    once it is stored (``processing-metadata``): the server starts it even if this client
    is gone by then. ``state["stage"]`` says how far it got (for an interrupted load)."""
    import base64
    import time
    import uuid

    described: dict[str, Any] = {
        "document-metadata": {
            "id": meta["id"],
            "time": int(time.time()),
            "kind": meta["mime_type"],
            "title": meta["title"],
        },
        "processing-metadata": {"id": f"load-{uuid.uuid4()}", "document-id": meta["id"]},
        **{k: meta[k] for k in CHUNKING if meta.get(k) is not None},
    }
    with file.open("rb") as fh:
        if size <= PART_SIZE:
            content = base64.b64encode(fh.read()).decode()
            state["stage"] = "storing"
            data = await client.librarian(
                {"operation": "add-document", **described, "content": content}
            )
            progress.update("uploading", size, size, "bytes")
        else:
            begun = await client.librarian(
                {"operation": "begin-upload", **described, "total-size": size}
            )
            upload_id, part_size = begun["upload-id"], int(begun["chunk-size"])
            sent = 0
            for index in itertools.count():
                block = fh.read(part_size)
                if not block:
                    break
                chunk = {"upload-id": upload_id, "chunk-index": index}
                content = base64.b64encode(block).decode()
                await client.librarian({"operation": "upload-chunk", **chunk, "content": content})
                sent += len(block)
                progress.update("uploading", sent, size, "bytes")
            state["stage"] = "storing"
            data = await client.librarian({"operation": "complete-upload", "upload-id": upload_id})
    info = document_of(data)
    state.update(stage="processing", id=info.id)
    return info
