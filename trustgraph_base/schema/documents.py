"""The ingestion pipeline: librarian → decoder → chunker → extractor, and its progress events."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from trustgraph_base.schema.core import Message, Metadata, Response, Scoped
from trustgraph_base.schema.explain import RemovalReport


class DocumentInfo(Message):
    """A stored document's metadata; ``id`` is its URI (``urn:trustgraph:doc:…``)."""

    id: str
    title: str = ""
    mime_type: str
    user: str
    collection: str
    time: str  # xsd:dateTime of upload
    size: int = 0
    status: Literal["uploading", "processing", "complete", "failed"] = "processing"
    pages: int = 0
    pages_decoded: int = 0  # while a PDF decodes: pages read so far
    pages_chunked: int = 0  # pages whose chunks are counted: ``chunks`` is final when all are
    chunks: int = 0
    chunks_done: int = 0
    edges: int = 0
    error: str | None = None
    chunk_size: int | None = None  # per-document chunker overrides, carried to PageText
    chunk_overlap: int | None = None


class DocumentMetadata(Message):
    """A document as TrustGraph's ``list-documents`` names it (``document-metadatas``):
    ``time`` in seconds since the epoch, ``kind`` the MIME type."""

    id: str
    time: int
    kind: str
    title: str = ""
    comments: str = ""
    metadata: list[dict[str, object]] = []
    user: str = ""
    tags: list[str] = []


class DocumentLoaded(Message):
    """Librarian → decoder: a document is stored and ready to decode (content by URI)."""

    metadata: Metadata
    document: DocumentInfo


class PageText(Message):
    """Decoder → chunker: the text of one page, or of a whole page-less document."""

    metadata: Metadata
    document: str
    page: str | None = None  # page URI; None for plain text / Markdown
    page_number: int | None = None
    text: str
    chunk_size: int | None = None
    chunk_overlap: int | None = None


class ChunkText(Message):
    """Chunker → extractor: one chunk, located in its page (or document)."""

    metadata: Metadata
    document: str
    page: str | None = None
    chunk: str  # chunk URI
    index: int
    char_offset: int
    char_length: int
    text: str


class IngestEvent(Message):
    """Progress of a document through the pipeline, reported to the librarian."""

    metadata: Metadata
    document: str
    stage: Literal[
        "decoding", "decoded", "chunked", "extracted", "failed"
    ]  # decoding: pages so far
    pages: int = 0
    chunks: int = 0
    edges: int = 0
    error: str | None = None
    source: str | None = None  # the page/chunk URI the event is about (deduplicates redeliveries)


class CollectionDeleted(Message):
    """Store → librarian, vectors: a collection's store was deleted; forget its documents and vectors."""

    user: str = Field(min_length=1, max_length=200)
    collection: str = Field(min_length=1, max_length=200)


class ChunkSpan(Message):
    """Where a chunk lies in its page (or page-less document) text, in characters."""

    id: str
    offset: int = Field(ge=0)
    length: int = Field(ge=0)


class LibrarianRequest(Scoped):
    """Librarian operations.

    ``add-document`` uploads in parts: ``content`` is base64 of one part, ``part`` its
    index from 0, ``final`` true on the last; the first part carries the metadata.
    ``get-content`` returns base64 content of a document, page or chunk URI, a range of
    it with ``offset``/``length`` (bytes for documents, characters for page/chunk text).
    ``put-content`` stores a page's text (``id`` the page URI, or the document URI for a
    page-less document's decoded text; ``content`` base64 UTF-8) or, with ``spans``, where
    each chunk lies in its parent's text. ``get-document-content`` (TrustGraph's name) takes
    ``document-id`` and answers the whole content, also of the answer and observation
    documents a trace names with ``tg:document``.
    """

    operation: Literal[
        "add-document",
        "get-document",
        "list-documents",
        "remove-document",
        "get-content",
        "put-content",
        "get-document-content",
    ]
    id: str = ""
    document_id: str = Field(default="", alias="document-id")  # get-document-content (TrustGraph's)
    title: str = ""
    mime_type: str = ""
    content: str = ""
    part: int = Field(default=0, ge=0)
    final: bool = True
    offset: int = Field(default=0, ge=0)
    length: int | None = Field(default=None, ge=0)
    ids: list[str] = []
    chunk_size: int | None = Field(default=None, ge=50, le=100_000)
    chunk_overlap: int | None = Field(default=None, ge=0, le=50_000)
    # remove-document: what becomes of the traces that used it (docs/lineage.md)
    purge_traces: bool = False
    reason: str = Field(default="", max_length=2000)
    spans: list[ChunkSpan] = []


class LibrarianResponse(Response):
    document: DocumentInfo | None = None
    removal: RemovalReport | None = None  # remove-document: the traces marked or purged
    documents: list[DocumentInfo] = []
    # list-documents, as TrustGraph's clients read it
    document_metadatas: list[DocumentMetadata] = Field(default=[], alias="document-metadatas")
    content: str = ""
    contents: dict[str, str] = {}
    total: int = 0
