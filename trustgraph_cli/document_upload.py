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
    client: GatewayClient, file: Path, size: int, meta: dict[str, Any], progress: Any
) -> DocumentInfo:
    """Store the file in the library (TrustGraph's ``add-document``, or for a large file
    ``begin-upload``, ``upload-chunk``…, ``complete-upload``), then start its processing into
    the collection (``add-processing``)."""
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
        **{k: meta[k] for k in CHUNKING if meta.get(k) is not None},
    }
    with file.open("rb") as fh:
        if size <= PART_SIZE:
            content = base64.b64encode(fh.read()).decode()
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
            data = await client.librarian({"operation": "complete-upload", "upload-id": upload_id})
    stored = document_of(data)
    record = {
        "id": f"load-{uuid.uuid4()}",
        "document-id": stored.id,
        "collection": stored.collection,
        "flow": "default",
    }
    return document_of(
        await client.librarian({"operation": "add-processing", "processing-metadata": record})
    )
