"""The processor lists the end-to-end tests start, and the sample documents they load."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from trustgraph_base.messaging import Processor
from trustgraph_flow import chunker, decoder, extractor
from trustgraph_flow.agent import processor as agent
from trustgraph_flow.config import processor as config
from trustgraph_flow.document_rag import processor as document_rag
from trustgraph_flow.embeddings import processor as embeddings
from trustgraph_flow.graph_rag import processor as graph_rag
from trustgraph_flow.librarian import processor as librarian
from trustgraph_flow.llm import processor as llm
from trustgraph_flow.store import processor as store
from trustgraph_flow.vectors import processor as vectors

SAMPLES = Path(__file__).resolve().parents[2] / "samples"

# What loading a document needs: the store, models, vectors and the ingest pipeline.
INGEST: list[Processor[Any, Any]] = [
    store.proc,
    config.proc,
    llm.proc,
    embeddings.proc,
    vectors.proc,
    librarian.proc,
    decoder.proc,
    chunker.proc,
    extractor.proc,
]
# The modules of the ingest pipeline behind the models (tests.support.ingest.start takes
# modules, so a test can put stand-ins for the models in front).
PIPELINE = (store, config, vectors, librarian, decoder, chunker, extractor)
# The ingest pipeline and the two RAG services (what the agent's tools call).
RAG: list[Processor[Any, Any]] = [*INGEST, graph_rag.proc, document_rag.proc]
# Every processor: the ingest pipeline and the three question answerers.
EVERY: list[Processor[Any, Any]] = [*RAG, agent.proc]
