"""The whole ingestion pipeline on the real broker, store, LLM (offline), embeddings, vectors."""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest

from bench.pdf_truth import make_pdf, on_sentence
from tests.conftest import RunningProcessors
from tests.support.ingest import SAMPLES, USER, Client, k, keys, objects, start
from tests.support.processors import PIPELINE
from trustgraph_base.layout import PageLayout, layout_uri
from trustgraph_base.messaging import VECTORS, Bus, RequestClient, Topics
from trustgraph_base.provenance import (
    DC,
    GRAPH_SOURCE,
    PROV,
    RDF,
    RDFS,
    TG,
    chunk_triples,
    document_triples,
    page_triples,
    subgraph_triples,
)
from trustgraph_base.provenance.common import integer_literal, text
from trustgraph_base.provenance.extraction import VERSION
from trustgraph_base.provenance.uris import activity_uri, component_uri, entity_uri, relation_uri
from trustgraph_base.rdf.terms import IriTerm, LiteralTerm, quoted, term_key
from trustgraph_base.rdf.terms import lit as tlit
from trustgraph_base.schema import VectorRequest
from trustgraph_base.settings import ProcessorSettings
from trustgraph_base.spans import locate
from trustgraph_flow.embeddings import processor as embeddings
from trustgraph_flow.llm import offline
from trustgraph_flow.llm import processor as llm

PARIS, FRANCE = IriTerm(i=entity_uri("Paris")), IriTerm(i=entity_uri("France"))
CAPITAL = IriTerm(i=relation_uri("is the capital of"))


@pytest.fixture
async def client(
    processors: RunningProcessors, settings: ProcessorSettings, bus: Bus, topics: Topics
) -> AsyncIterator[Client]:
    # a small fetch size makes the decoder read the PDF from the librarian in several ranges
    await start(processors, settings, llm, embeddings, *PIPELINE, fetch_bytes=700)
    c = Client(bus, topics)
    yield c
    await c.close()


def lit(value: int | str) -> str:
    return term_key(integer_literal(value) if isinstance(value, int) else text(value))


def about(found: set[tuple[str, str, str]], subject: str) -> set[tuple[str, str, str]]:
    return {t for t in found if t[0] == k(subject)}


async def assert_exactly_as_built(
    client: Client, found: set[tuple[str, str, str]], doc: str
) -> None:
    """Page 1's document, page, chunk and subgraph carry exactly the builders' triples."""
    page, chunk = f"{doc}/p1", f"{doc}/p1/c0"
    chunk_text = (await client.content(chunk)).decode()
    edges = [
        (
            IriTerm(i=entity_uri(e["s"])),
            IriTerm(i=relation_uri(e["p"])),
            LiteralTerm(v=e["o"]) if e["o_literal"] else IriTerm(i=entity_uri(e["o"])),
        )
        for e in json.loads(offline.extract({"text": chunk_text}))
    ]
    expected = {
        doc: document_triples(doc, "world-facts", "application/pdf"),
        page: page_triples(page, doc, 1, activity_uri(doc, "decode")),
        chunk: chunk_triples(chunk, page, 0, 0, len(chunk_text), activity_uri(page, "chunk")),
        chunk + "/subgraph": subgraph_triples(
            chunk + "/subgraph", chunk, edges, activity_uri(chunk, "extract")
        ),
    }
    for subject, triples in expected.items():
        assert all(t.g == GRAPH_SOURCE for t in triples)
        assert about(found, subject) == keys(triples), subject


def activity_of(found: set[tuple[str, str, str]], entity: str, component: str) -> str:
    """The activity that generated ``entity``; asserts it is associated with ``component``."""
    (activity,) = objects(found, entity, PROV.wasGeneratedBy)
    act = activity.strip("<>")
    assert objects(found, act, PROV.wasAssociatedWith) == {k(component_uri(component))}
    assert k(PROV.Activity) in objects(found, act, RDF.type)
    assert k(PROV.SoftwareAgent) in objects(found, component_uri(component), RDF.type)
    return act


async def test_pdf_becomes_pages_chunks_and_edges_with_provenance(
    client: Client, bus: Bus, topics: Topics
) -> None:
    pdf = (SAMPLES / "world-facts.pdf").read_bytes()
    loaded = await client.upload("world-facts", pdf, "application/pdf", part_size=1000)
    doc = loaded.id
    assert doc == "urn:trustgraph:doc:world-facts" and loaded.size == len(pdf)
    info = await client.settled(doc)
    assert (info.status, info.error) == ("complete", None)
    assert (info.pages, info.chunks, info.chunks_done, info.edges) == (3, 3, 3, 13)

    sub0 = f"{doc}/p1/c0/subgraph"
    found = await client.wait_triples(
        lambda f: any(s == k(f"{doc}/p3/c0/subgraph") for s, _, _ in f)
    )
    # document
    assert objects(found, doc, RDF.type) == {k(PROV.Entity), k(TG.Document)}
    assert objects(found, doc, DC.title) == {lit("world-facts")}
    assert objects(found, doc, TG.mimeType) == {lit("application/pdf")}
    assert objects(found, doc, RDFS.label) == {lit("world-facts")}
    for n in (1, 2, 3):
        page, chunk = f"{doc}/p{n}", f"{doc}/p{n}/c0"
        assert objects(found, page, RDF.type) == {k(PROV.Entity), k(TG.Page)}
        assert objects(found, page, TG.pageNumber) == {lit(str(n))}
        assert objects(found, page, PROV.wasDerivedFrom) == {k(doc)}
        decode = activity_of(found, page, "decoder")
        assert objects(found, decode, PROV.used) == {k(doc)}  # the reference's facts
        assert objects(found, decode, RDFS.label) == {lit("decoder extraction")}
        assert objects(found, decode, TG.componentVersion) == {lit(VERSION)}
        assert objects(found, chunk, RDF.type) == {k(PROV.Entity), k(TG.Chunk)}
        assert objects(found, chunk, PROV.wasDerivedFrom) == {k(page)}
        assert objects(found, chunk, TG.chunkIndex) == {lit("0")}
        assert objects(found, chunk, TG.charOffset) == {lit("0")}  # plain, the reference's form
        act = activity_of(found, chunk, "chunker")
        assert objects(found, act, TG.chunkSize) == {lit("1000")}
        assert objects(found, act, TG.chunkOverlap) == {lit("100")}
        assert objects(found, act, PROV.used) == {k(page)}
        subgraph = chunk + "/subgraph"
        assert objects(found, subgraph, RDF.type) == {k(PROV.Entity), k(TG.Subgraph)}
        assert objects(found, subgraph, PROV.wasDerivedFrom) == {k(chunk)}
        act = activity_of(found, subgraph, "extractor")
        assert objects(found, act, TG.llmModel) == {lit(offline.MODEL)}
        assert objects(found, act, PROV.used) == {k(chunk)}
    contains = objects(found, sub0, TG.contains)
    assert term_key(quoted(PARIS, CAPITAL, FRANCE)) in contains and len(contains) == 5
    await assert_exactly_as_built(client, found, doc)

    # the chunk's recorded span is exactly its text
    page_text = (await client.content(f"{doc}/p1")).decode()
    (length,) = objects(found, f"{doc}/p1/c0", TG.charLength)
    chunk_text = (await client.content(f"{doc}/p1/c0")).decode()
    assert lit(str(len(chunk_text))) == length and page_text.startswith(chunk_text)
    assert "Paris is the capital of France." in chunk_text
    # each edge of the chunk knows its sentence: the span holds it in the chunk and the page
    p1_spans = [v for v in (await spans_of(client)).values() if v.chunk == f"{doc}/p1/c0"]
    assert sorted(v.quote for v in p1_spans) == sorted(
        line for line in page_text.splitlines() if "capital" in line
    )
    for v in p1_spans:
        assert v.page_offset == v.offset and v.length == len(v.quote)  # chunk 0 starts the page
        assert page_text[v.offset : v.offset + v.length] == v.quote  # type: ignore[operator]
    # where each character of the page is: one box per character, the sentence on one line
    layout = PageLayout.from_json((await client.content(layout_uri(f"{doc}/p1"))).decode())
    assert layout.text_layer and len(layout.boxes) == len(page_text)
    sentence = "Paris is the capital of France."
    (rect,) = layout.span_boxes(page_text.index(sentence), len(sentence))
    assert 0 < rect[0] < rect[2] < layout.width and 0 < rect[1] < rect[3] < layout.height
    batch = (await client.lib("get-content", ids=[f"{doc}/p2/c0", f"{doc}/p9", doc])).contents
    assert set(batch) == {f"{doc}/p2/c0", doc}
    assert base64.b64decode(batch[doc]) == pdf
    assert await client.content(doc, offset=0, length=8) == pdf[:8]

    # facts in the default graph, with labels
    facts = await client.wait_triples(lambda f: bool(f), graph="")
    assert (k(PARIS), k(CAPITAL), k(FRANCE)) in facts
    assert objects(facts, PARIS.i, RDFS.label) == {lit("Paris")}
    assert objects(facts, CAPITAL.i, RDFS.label) == {lit("is the capital of")}

    # chunk and entity vectors, findable by the document they came from
    vec = RequestClient(bus, topics, VECTORS, "tester-vectors")
    deleted = await vec.request(
        VectorRequest(operation="delete-document", kind="chunk", document=doc, user=USER),
        timeout=10,
    )
    assert deleted.count == 3
    deleted = await vec.request(
        VectorRequest(operation="delete-document", kind="entity", document=doc, user=USER),
        timeout=10,
    )
    assert deleted.count >= 10
    await vec.close()


@dataclass
class Span:
    chunk: str = ""
    quote: str = ""
    offset: int | None = None  # in the chunk
    length: int | None = None
    page_offset: int | None = None
    located: bool = True
    edge: str = ""


async def spans_of(client: Client) -> dict[str, Span]:
    """Every edge span (``tg:Span``) in the source graph, by URI."""
    spans: dict[str, Span] = {}
    triples = await client.triples()
    typed = {t.s.i for t in triples if t.p == RDF.type and t.o == TG.Span}  # type: ignore[union-attr]
    for t in triples:
        subject = t.s.i  # type: ignore[union-attr]
        if subject not in typed:
            continue
        span = spans.setdefault(subject, Span())
        value = getattr(t.o, "v", None)
        if t.p == PROV.wasDerivedFrom:
            span.chunk = t.o.i  # type: ignore[union-attr]
        elif t.p == TG.quote:
            span.quote = str(value)
        elif t.p == TG.charOffset:
            span.offset = int(str(value))
        elif t.p == TG.charLength:
            span.length = int(str(value))
        elif t.p == TG.pageCharOffset:
            span.page_offset = int(str(value))
        elif t.p == TG.located:
            span.located = value == "true"
        elif t.p == TG.edge:
            span.edge = term_key(t.o)
    return spans


async def test_a_pdf_page_without_text_says_so_and_the_others_keep_their_boxes(
    client: Client,
) -> None:
    data, truth, empty = make_pdf()
    doc = (await client.upload("truth", data, "application/pdf")).id
    info = await client.settled(doc)
    assert (info.status, info.pages) == ("complete", 5)
    found = await client.wait_triples(
        lambda f: any(s == k(f"{doc}/p4") and p == k(TG.pageNumber) for s, p, _ in f)
    )
    assert objects(found, f"{doc}/p{empty[0]}", TG.textLayer) == {term_key(tlit(False))}
    assert all(not objects(found, f"{doc}/p{n}", TG.textLayer) for n in (1, 2, 3, 4))
    blank = PageLayout.from_json((await client.content(layout_uri(f"{doc}/p{empty[0]}"))).decode())
    assert not blank.text_layer and not any(blank.boxes)
    turned = PageLayout.from_json((await client.content(layout_uri(f"{doc}/p3"))).decode())
    assert turned.rotation == 90
    page_text = (await client.content(f"{doc}/p3")).decode()
    for sentence in (s for s in truth if s.page == 3):
        start, length = locate(sentence.text, page_text) or (-1, 0)
        assert start >= 0, sentence.text
        assert len(turned.span_boxes(start, length)) == len(sentence.lines)

    # each edge's span holds its sentence (a line of it: the offline engine reads lines),
    # there in the page text and on the page
    await client.wait_triples(lambda f: any(s == k(f"{doc}/p4/c0/subgraph") for s, _, _ in f))
    spans = [v for v in (await spans_of(client)).values() if v.chunk.startswith(doc + "/")]
    assert len(spans) >= 30
    held = 0
    for span in spans:
        page = span.chunk.rsplit("/c", 1)[0]
        n = int(page.rsplit("/p", 1)[1])
        page_text = (await client.content(page)).decode()
        layout = PageLayout.from_json((await client.content(layout_uri(page))).decode())
        assert span.located and span.page_offset is not None and span.length
        assert page_text[span.page_offset : span.page_offset + span.length] == span.quote
        chunk_text = (await client.content(span.chunk)).decode()
        assert chunk_text[span.offset : span.offset + span.length] == span.quote  # type: ignore[operator]
        boxes = list(layout.boxes[span.page_offset : span.page_offset + span.length])
        flat = " ".join(span.quote.split())
        held += any(
            flat in " ".join(s.text.split()) and on_sentence(s, span.quote, boxes)
            for s in truth
            if s.page == n
        )
    assert held / len(spans) >= 0.99, f"{held} of {len(spans)} spans hold their sentence"


async def test_text_document_chunks_directly_under_the_document(client: Client) -> None:
    body = (SAMPLES / "capitals.txt").read_bytes()
    loaded = await client.upload("capitals", body, "text/plain", chunk_size=100, chunk_overlap=20)
    doc = loaded.id
    info = await client.settled(doc)
    assert info.status == "complete" and info.pages == 0 and info.chunks >= 3
    assert (info.chunk_size, info.chunk_overlap) == (100, 20)
    last = f"{doc}/c{info.chunks - 1}/subgraph"
    found = await client.wait_triples(lambda f: any(s == k(last) for s, _, _ in f))
    assert not any(s.startswith(k(doc)[:-1] + "/p") for s, _, _ in found), "no pages"
    text_body = body.decode()
    for m in range(info.chunks):
        chunk = f"{doc}/c{m}"
        assert objects(found, chunk, PROV.wasDerivedFrom) == {k(doc)}
        assert objects(found, chunk, TG.chunkIndex) == {lit(str(m))}
        act = activity_of(found, chunk, "chunker")
        assert objects(found, act, TG.chunkSize) == {lit("100")}
        assert objects(found, act, TG.chunkOverlap) == {lit("20")}
        (offset,) = objects(found, chunk, TG.charOffset)
        content = (await client.content(chunk)).decode()
        start = int(offset.split('"')[1])
        assert text_body[start : start + len(content)] == content and len(content) <= 100
    assert await client.content(doc) == body
    facts = await client.wait_triples(lambda f: (k(PARIS), k(CAPITAL), k(FRANCE)) in f, graph="")
    assert (
        k(IriTerm(i=entity_uri("Eiffel Tower"))),
        k(IriTerm(i=relation_uri("was built in"))),
        term_key(LiteralTerm(v="1889")),
    ) in facts
