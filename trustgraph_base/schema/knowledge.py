"""The knowledge service (the reference's ``knowledge``): knowledge cores, per user.

A knowledge core is a named package of extracted knowledge: triples and graph embeddings
(a ``kg`` core), or document embeddings (a ``de`` core). ``put-kg-core`` / ``put-de-core``
append one part to the core ``id``; ``get-kg-core`` / ``get-de-core`` stream its parts back,
the last reply carrying ``eos``; ``load-kg-core`` writes a core into a collection (its
triples to the collection's graph, its vectors to the collection's index) and
``unload-kg-core`` takes its vectors out again. The parts keep the reference's shapes:
``{"metadata": {"id", "root", "collection"}, "triples": [...]}``, ``{"metadata", "entities":
[{"entity": term, "vector": [...]}]}`` and ``{"metadata", "chunks": [{"chunk_id", "vector"}]}``.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from trustgraph_base.schema.core import Response, Scoped

CORE_ID_MAX = 200  # characters in a core's id

KnowledgeOperation = Literal[
    "list-kg-cores",
    "get-kg-core",
    "put-kg-core",
    "delete-kg-core",
    "load-kg-core",
    "unload-kg-core",
    "list-de-cores",
    "get-de-core",
    "put-de-core",
    "delete-de-core",
    "load-de-core",
]
# Operations that write into a collection (the caller must be allowed to use it); the
# others act on the user's own cores, in no collection.
KNOWLEDGE_LOADS = ("load-kg-core", "load-de-core")


class KnowledgeRequest(Scoped):
    """One knowledge operation on ``user``'s cores (``collection``: where a load writes)."""

    operation: KnowledgeOperation
    id: str = Field(default="", max_length=CORE_ID_MAX)
    flow: str = Field(default="default", max_length=CORE_ID_MAX)
    triples: dict[str, Any] | None = None
    graph_embeddings: dict[str, Any] | None = Field(default=None, alias="graph-embeddings")
    document_embeddings: dict[str, Any] | None = Field(default=None, alias="document-embeddings")
    library_metadata: dict[str, Any] | None = Field(default=None, alias="library-metadata")
    library_blob: dict[str, Any] | None = Field(default=None, alias="library-blob")


class KnowledgeResponse(Response):
    """A list of core ids, one streamed part of a core, or (``eos``) the end of a core."""

    ids: list[str] | None = None
    triples: dict[str, Any] | None = None
    graph_embeddings: dict[str, Any] | None = Field(default=None, alias="graph-embeddings")
    document_embeddings: dict[str, Any] | None = Field(default=None, alias="document-embeddings")
    eos: bool | None = None
