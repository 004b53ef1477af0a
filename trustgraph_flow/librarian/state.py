"""The librarian's settings and run state, and what every operation reads from a request."""

from __future__ import annotations

import asyncio
import base64
import binascii
from dataclasses import dataclass, field
from datetime import datetime

from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.messaging import Context
from trustgraph_base.provenance.uris import document_uri
from trustgraph_base.rdf.terms import check_iri
from trustgraph_base.schema import DocumentInfo, DocumentMetadata, LibrarianRequest
from trustgraph_base.settings import ProcessorSettings
from trustgraph_flow.librarian.store import LibrarianStore, Scope
from trustgraph_flow.removed_loads import LoadClock, RemovedLoads


class Settings(ProcessorSettings):
    max_content_bytes: int = 3 * 1024 * 1024
    """Most bytes in one get-content reply (fits a Pulsar message)."""
    removal_timeout: float = 30.0
    """Seconds a document removal may take."""
    max_document_bytes: int = 256 * 1024 * 1024
    """The largest document the librarian stores (docs/ingestion.md); larger is refused."""
    upload_idle_seconds: float = 3600.0
    """An upload that receives no part for this long is dropped (its client is gone)."""
    seal_retry_seconds: float = 30.0
    """How often a complete document the store has not signed yet is offered again."""


@dataclass(frozen=True)
class State:
    """The document store, the removed loads and the numbering of new ones, and one lock
    per upload in progress."""

    store: LibrarianStore
    removed: RemovedLoads
    clock: LoadClock
    locks: dict[tuple[Scope, str], asyncio.Lock] = field(default_factory=dict)


Ctx = Context[Settings, State]


def metadata_of(doc: DocumentInfo) -> DocumentMetadata:
    """TrustGraph's view of a stored document (``document-metadata``)."""
    when = int(datetime.fromisoformat(doc.time.replace("Z", "+00:00")).timestamp())
    return DocumentMetadata(
        id=doc.id,
        time=when,
        kind=doc.mime_type,
        title=doc.title,
        comments=doc.comments,
        metadata=doc.metadata,
        user=doc.user,
        tags=doc.tags,
    )


def named(req: LibrarianRequest, what: str) -> str:
    """The document a request names (``document-id``; ``id`` is still read), as a checked URI."""
    name = req.document_id or req.id
    if not name:
        raise ServiceError(ErrorType.BAD_REQUEST, f"{what} needs a document-id")
    return document(name)


def document(name: str) -> str:
    """The document URI a name gives (``urn:trustgraph:doc:{name}``, or the URI itself),
    checked: it names the document in every provenance triple."""
    doc = document_uri(name)
    try:
        check_iri(doc)
    except ValueError as exc:
        raise ServiceError(ErrorType.BAD_REQUEST, f"bad document id {name!r}: {exc}") from None
    return doc


def b64(value: str, what: str) -> bytes:
    """Base64 ``value`` decoded; ``bad-request`` naming ``what`` when it is not base64."""
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise ServiceError(ErrorType.BAD_REQUEST, f"{what} is not valid base64") from None
