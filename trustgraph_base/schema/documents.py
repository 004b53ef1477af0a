"""The ingestion pipeline: librarian → decoder → chunker → extractor, and its progress events."""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field

from trustgraph_base import bounds
from trustgraph_base.schema.core import Message, Metadata, Response, Scoped, bounded
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
    # stored: in the library, not processed yet (add-processing starts it)
    status: Literal["uploading", "stored", "processing", "complete", "failed"] = "processing"
    pages: int = 0
    pages_decoded: int = 0  # while a PDF decodes: pages read so far
    pages_chunked: int = 0  # pages whose chunks are counted: ``chunks`` is final when all are
    chunks: int = 0
    chunks_done: int = 0
    chunks_made: int = 0  # while a page-less text is chunked: chunks made so far
    chunks_split: int = 0  # a page-less text split: its chunk count, final (spans recorded next)
    edges: int = 0
    error: str | None = None
    sealing: bool = False  # complete, and the store asked to sign its provenance now
    # complete, not confirmed: its writes held for a down shard, or the store did not answer
    held: str | None = None
    chunk_size: int | None = None  # per-document chunker overrides, carried to PageText
    chunk_overlap: int | None = None
    comments: str = ""
    tags: list[str] = []
    metadata: list[dict[str, object]] = []  # the triples the uploader described it with


class DocumentMetadata(Message):
    """A document as TrustGraph names it (``document-metadata``, ``document-metadatas``):
    ``time`` in seconds since the epoch, ``kind`` the MIME type. Read tolerantly: clients
    send more (``parent-id``, ``document-type``, ``workspace``) than we keep."""

    model_config = ConfigDict(frozen=True, extra="ignore", populate_by_name=True)

    id: str = Field(min_length=1, max_length=2000)
    time: int = 0
    kind: str = Field(min_length=1, max_length=200)
    title: str = Field(default="", max_length=2000)
    comments: str = Field(default="", max_length=20_000)
    metadata: list[dict[str, object]] = Field(default=[], max_length=10_000)
    user: str = ""
    tags: list[str] = Field(default=[], max_length=1000)


class ProcessingMetadata(Message):
    """TrustGraph's ``processing-metadata``: ingest ``document-id`` into ``collection``."""

    model_config = ConfigDict(frozen=True, extra="ignore", populate_by_name=True)

    id: str = Field(min_length=1, max_length=200)
    document_id: str = Field(alias="document-id", min_length=1, max_length=2000)
    time: int = 0
    flow: str = Field(default="default", max_length=200)
    collection: str = Field(default="default", min_length=1, max_length=200)
    user: str = ""
    tags: list[str] = Field(default=[], max_length=1000)


class CollectionMetadata(Message):
    """A collection as TrustGraph's collection management names it."""

    model_config = ConfigDict(frozen=True, extra="ignore", populate_by_name=True)

    collection: str
    name: str = ""
    description: str = ""
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
    # True: ``text`` is empty and the text is kept by the librarian under the page URI (or
    # the document URI): too large to travel inline, it is read back in ranges.
    by_reference: bool = False


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
    # decoding: pages so far; split, chunking (a page-less text): its chunks, chunks so far
    stage: Literal["decoding", "decoded", "split", "chunking", "chunked", "extracted", "failed"]
    pages: int = 0
    chunks: int = 0
    edges: int = 0
    error: str | None = None
    source: str | None = None  # the page/chunk URI the event is about (deduplicates redeliveries)


class CollectionDeleted(Message):
    """Store → librarian, vectors: a collection's store was deleted; forget its documents and vectors."""

    user: str = Field(min_length=1, max_length=bounds.NAME_MAX)
    collection: str = Field(min_length=1, max_length=bounds.NAME_MAX)
    upto: int | None = Field(default=None, ge=0)  # its loads numbered up to this are removed


class LoadsRemoved(Message):
    """Librarian, store → chunker, extractor: drop the work of loads removed (``upto``)."""

    user: str = Field(min_length=1, max_length=bounds.NAME_MAX)
    collection: str = Field(min_length=1, max_length=bounds.NAME_MAX)
    document: str = ""  # empty: every load of the collection
    upto: int = Field(ge=0)


class ChunkSpan(Message):
    """Where a chunk lies in its page (or page-less document) text, in characters."""

    id: str
    offset: int = Field(ge=0)
    length: int = Field(ge=0)


# What a client may ask of the librarian through the gateway (trustgraph_flow/gateway/edge.py),
# and what only the processors ask (the decoder's and the chunker's put-content).
LibrarianClientOperation = Literal[
    "add-document",
    "get-document",
    "get-document-metadata",
    "list-documents",
    "remove-document",
    "get-content",
    "get-document-content",
    "add-processing",
    "list-processing",
    "remove-processing",
    "list-collections",
    "update-collection",
    "begin-upload",
    "upload-chunk",
    "complete-upload",
    "abort-upload",
]
LibrarianInternalOperation = Literal["put-content"]


class LibrarianRequest(Scoped):
    """Librarian operations, in TrustGraph's names and fields.

    ``add-document`` stores a document in the library (not processed yet):
    ``document-metadata`` (``id``, ``kind`` = MIME type, ``title``, ``comments``, ``tags``,
    ``metadata`` triples) and ``content`` (base64). A large one goes in parts:
    ``begin-upload`` (``document-metadata``, ``total-size``) answers an ``upload-id``, then
    ``upload-chunk`` (``upload-id``, ``chunk-index``, ``content``) in order, then
    ``complete-upload`` (or ``abort-upload``). ``add-processing`` (``processing-metadata``:
    ``id``, ``document-id``, ``collection``, ``flow``, ``tags``) runs the ingestion (decode,
    chunk, extract) of a stored document into a collection; ``list-processing`` and
    ``remove-processing`` (``processing-id``) read and drop those records. ``get-document``
    (and ``get-document-metadata``, TrustGraph's name for it) and ``remove-document`` take
    ``document-id``. ``list-collections`` and ``update-collection`` (``name``,
    ``description``, ``tags``) keep the user's collections' descriptions.
    ``get-content`` returns base64 content of a document, page or chunk URI, a range of
    it with ``offset``/``length`` (bytes for documents, characters for page/chunk text).
    ``put-content`` stores a page's text (``id`` the page URI, or the document URI for a
    page-less document's decoded text; ``content`` base64 UTF-8) or, with ``spans``, where
    each chunk lies in its parent's text. ``get-document-content`` (TrustGraph's name) takes
    ``document-id`` and answers the whole content, also of the answer and observation
    documents a trace names with ``tg:document``.
    """

    operation: Literal[LibrarianClientOperation, LibrarianInternalOperation]
    id: str = ""  # get-content, put-content: a document, page or chunk URI
    document_id: str = Field(default="", alias="document-id")
    document_metadata: DocumentMetadata | None = Field(default=None, alias="document-metadata")
    processing_metadata: ProcessingMetadata | None = Field(
        default=None, alias="processing-metadata"
    )
    processing_id: str = Field(default="", alias="processing-id", max_length=200)
    upload_id: str = Field(default="", alias="upload-id", max_length=200)
    chunk_index: int = Field(default=0, alias="chunk-index", ge=0)
    total_size: int = Field(default=0, alias="total-size", ge=0)
    content: str = ""
    offset: int = Field(default=0, ge=0)
    length: int | None = Field(default=None, ge=0)
    ids: list[str] = []
    chunk_size: int | None = bounded(bounds.CHUNK_SIZE)
    chunk_overlap: int | None = bounded(bounds.CHUNK_OVERLAP)
    # remove-document: what becomes of the traces that used it (docs/lineage.md)
    purge_traces: bool = False
    reason: str = Field(default="", max_length=2000)
    spans: list[ChunkSpan] = []
    # update-collection
    name: str | None = Field(default=None, max_length=2000)
    description: str | None = Field(default=None, max_length=20_000)
    tags: list[str] | None = Field(default=None, max_length=1000)


class LibrarianResponse(Response):
    document: DocumentInfo | None = None
    removal: RemovalReport | None = None  # remove-document: the traces marked or purged
    documents: list[DocumentInfo] = []
    # list-documents, as TrustGraph's clients read it
    document_metadatas: list[DocumentMetadata] = Field(default=[], alias="document-metadatas")
    document_metadata: DocumentMetadata | None = Field(default=None, alias="document-metadata")
    processing_metadatas: list[ProcessingMetadata] = Field(default=[], alias="processing-metadatas")
    collections: list[CollectionMetadata] = []
    # begin-upload: the upload's id, the part size to send (bytes) and how many parts
    upload_id: str = Field(default="", alias="upload-id")
    upload_chunk_size: int = Field(default=0, alias="chunk-size")
    total_chunks: int = Field(default=0, alias="total-chunks")
    content: str = ""
    contents: dict[str, str] = {}
    total: int = 0
