"""Ingestion failures: bad documents, unusable LLM output, an embeddings outage."""

from __future__ import annotations

import io
from collections import Counter
from collections.abc import AsyncIterator

import pytest
from pypdf import PdfWriter

from tests.conftest import RunningProcessors
from tests.support.ingest import SAMPLES, USER, Client, k, start
from tests.support.processors import PIPELINE
from tests.support.standin import StandIn
from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.messaging import (
    EMBEDDINGS,
    TEXT_COMPLETION,
    VECTORS,
    Bus,
    Context,
    Processor,
    RequestClient,
    Topics,
)
from trustgraph_base.provenance.uris import entity_uri, relation_uri
from trustgraph_base.rdf.terms import IriTerm
from trustgraph_base.schema import (
    EmbeddingsRequest,
    EmbeddingsResponse,
    TextCompletionRequest,
    TextCompletionResponse,
    VectorRequest,
)
from trustgraph_base.settings import ProcessorSettings
from trustgraph_flow.embeddings import processor as embeddings
from trustgraph_flow.llm import offline
from trustgraph_flow.llm import processor as llm


def scripted_llm(calls: Counter[str]) -> StandIn:
    """The offline engine, except that text containing GARBAGE gets a non-JSON answer."""
    proc: Processor[ProcessorSettings] = Processor("text-completion")

    @proc.service(TEXT_COMPLETION)
    async def complete(
        req: TextCompletionRequest, ctx: Context[ProcessorSettings]
    ) -> TextCompletionResponse:
        text = str(req.variables.get("text", ""))
        calls[text] += 1
        if "GARBAGE" in text:
            return TextCompletionResponse(response="I think Paris is nice.", model="scripted")
        return TextCompletionResponse(response=offline.extract(req.variables), model="scripted")

    return StandIn(proc)


def flaky_embeddings(calls: list[int]) -> StandIn:
    """Embeddings that are unavailable for the first request, then answer."""
    proc: Processor[ProcessorSettings] = Processor("embeddings")

    @proc.service(EMBEDDINGS)
    async def embed(req: EmbeddingsRequest, ctx: Context[ProcessorSettings]) -> EmbeddingsResponse:
        calls.append(len(req.texts))
        if len(calls) == 1:
            raise ServiceError(ErrorType.UNAVAILABLE, "model still loading")
        return EmbeddingsResponse(vectors=[[1.0, float(i), 0.5] for i in range(len(req.texts))])

    return StandIn(proc)


@pytest.fixture
async def client(bus: Bus, topics: Topics) -> AsyncIterator[Client]:
    c = Client(bus, topics)
    yield c
    await c.close()


def encrypted_pdf() -> bytes:
    writer = PdfWriter(clone_from=str(SAMPLES / "world-facts.pdf"))
    writer.encrypt(user_password="secret", algorithm="RC4-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


async def test_bad_documents_fail_with_a_reason_and_leave_no_provenance(
    processors: RunningProcessors, settings: ProcessorSettings, client: Client
) -> None:
    await start(processors, settings, llm, embeddings, *PIPELINE)
    pdf = (SAMPLES / "world-facts.pdf").read_bytes()
    cases = {
        "corrupt": (pdf[: len(pdf) // 2], "application/pdf", "corrupt"),
        "locked": (encrypted_pdf(), "application/pdf", "encrypted"),
        "empty": (b"", "text/plain", "empty"),
        "picture": (b"\x89PNG\r\n\x1a\n....", "image/png", "unsupported MIME type 'image/png'"),
        "latin1": (
            "café".encode("latin-1"),
            "text/plain",
            "not valid UTF-8 (byte 3 is 0xe9): convert it to UTF-8 first, "
            "e.g. iconv -f latin1 -t utf-8",
        ),
        # sent as text by a client that does not look (the official tg-load-document)
        "pdf-as-text": (pdf, "text/plain", "was sent as text, but it is a PDF"),
        "utf16": ("café".encode("utf-16"), "text/plain", "iconv -f UTF-16 -t UTF-8"),
    }
    docs = {
        name: (await client.upload(name, data, mime)).id for name, (data, mime, _) in cases.items()
    }
    for name, doc in docs.items():
        info = await client.settled(doc)
        assert info.status == "failed", name
        assert info.error is not None and cases[name][2] in info.error, (name, info.error)
        assert info.pages == 0 and info.chunks == 0
    # a good document after the bad ones still goes through, and only it has provenance
    good = (await client.upload("good", b"Rome is the capital of Italy.", "text/markdown")).id
    assert (await client.settled(good)).status == "complete"
    found = await client.wait_triples(lambda f: any(s == k(good + "/c0/subgraph") for s, _, _ in f))
    subjects = {s for s, _, _ in found}
    assert not any(s.startswith(k(doc)[:-1]) for doc in docs.values() for s in subjects)


async def test_unusable_llm_output_is_retried_once_then_reported(
    processors: RunningProcessors, settings: ProcessorSettings, client: Client
) -> None:
    calls: Counter[str] = Counter()
    await start(processors, settings, scripted_llm(calls), embeddings, *PIPELINE)
    body = b"Paris is the capital of France.\n\nThis GARBAGE sentence breaks the model."
    doc = (await client.upload("mixed", body, "text/plain", chunk_size=50, chunk_overlap=0)).id
    info = await client.settled(doc)
    assert (info.status, info.chunks, info.chunks_done, info.edges) == ("complete", 2, 2, 1)
    assert info.error is not None and f"{doc}/c1" in info.error and "not JSON" in info.error
    assert calls["This GARBAGE sentence breaks the model."] == 2
    assert calls["Paris is the capital of France."] == 1
    paris = (
        k(IriTerm(i=entity_uri("Paris"))),
        k(IriTerm(i=relation_uri("is the capital of"))),
        k(IriTerm(i=entity_uri("France"))),
    )
    await client.wait_triples(lambda f: paris in f, graph="")
    found = await client.wait_triples(lambda f: any(s == k(f"{doc}/c0/subgraph") for s, _, _ in f))
    assert not any(s == k(f"{doc}/c1/subgraph") for s, _, _ in found)
    assert (await client.content(f"{doc}/c1")).decode() == "This GARBAGE sentence breaks the model."


async def test_embeddings_outage_redelivers_the_chunk(
    processors: RunningProcessors,
    settings: ProcessorSettings,
    client: Client,
    bus: Bus,
    topics: Topics,
) -> None:
    llm_calls: Counter[str] = Counter()
    embed_calls: list[int] = []
    await start(
        processors, settings, scripted_llm(llm_calls), flaky_embeddings(embed_calls), *PIPELINE
    )
    doc = (await client.upload("berlin", b"Berlin is the capital of Germany.", "text/plain")).id
    info = await client.settled(doc)
    assert (info.status, info.chunks_done, info.edges) == ("complete", 1, 1)
    assert len(embed_calls) == 2, "the failed chunk came back"
    assert llm_calls["Berlin is the capital of Germany."] == 2
    vec = RequestClient(bus, topics, VECTORS, "tester-vectors")
    gone = await vec.request(
        VectorRequest(operation="delete-document", kind="chunk", document=doc, user=USER),
        timeout=10,
    )
    await vec.close()
    assert gone.count == 1
