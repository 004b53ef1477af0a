"""The OTLP import's messages: a request's traces packed as N-Quads text in a few messages,
each under the broker's limit, read by the store as any trace message (docs/otel.md)."""

from __future__ import annotations

from pyoxigraph import NamedNode

from trustgraph_base.messaging.limits import MAX_MESSAGE_BYTES
from trustgraph_base.rdf.nquads import nquads_text
from trustgraph_base.schema import Metadata
from trustgraph_base.schema.core import StoreTriples
from trustgraph_base.wire import decode
from trustgraph_flow.gateway.otlp import MESSAGE_CHARS, packed, wire
from trustgraph_flow.otel.spans import Span
from trustgraph_flow.otel.steps import Steps
from trustgraph_flow.otel.to_prov import question_uri, to_prov

S0 = 1_700_000_000_000_000_000


def one_trace(n: int, question: str) -> list[Span]:
    tid = (n + 1).to_bytes(16, "big")
    root = Span(tid, b"\x01" * 8, "answer", S0, S0 + 9, b"", {"input.value": question})
    step = Span(tid, b"\x02" * 8, "step", S0 + 1, S0 + 5, root.span_id, {"output.value": "o"})
    return [root, step]


def test_a_requests_traces_travel_together_in_messages_of_bounded_size() -> None:
    """Nothing lost or reordered, each part under ``MESSAGE_CHARS``, named by the first
    trace it holds; the store reads a part back as the same triples."""
    steps = Steps()
    traces = [t for n in range(50) for t in to_prov(one_trace(n, "q" * 40_000), steps)]
    texts = list(packed(traces))
    assert "".join(text for _, text in texts) == "".join(nquads_text(ts) for _, ts in traces)
    assert 1 < len(texts) < len(traces)
    assert all(len(text) <= MESSAGE_CHARS for _, text in texts)
    heads = [uri for uri, _ in traces]
    assert texts[0][0] == heads[0] and all(uri in heads for uri, _ in texts)
    metadata = Metadata(id=heads[0], user="u", collection="c")
    (payload,) = wire(metadata, texts[0][1])
    read = decode(StoreTriples, payload)
    assert read.metadata == metadata and read.text == texts[0][1]
    assert len(read.quads) == read.text.count("\n") > 0


def test_small_traces_share_one_message() -> None:
    """A request of many small traces (the usual one) is one message, named by its first."""
    traces = [t for n in range(50) for t in to_prov(one_trace(n, f"q{n}"), Steps())]
    ((uri, text),) = packed(traces)
    assert uri == question_uri((1).to_bytes(16, "big"))
    assert text == "".join(nquads_text(ts) for _, ts in traces)


def test_a_trace_larger_than_a_message_is_split_between_lines() -> None:
    (trace,) = to_prov(one_trace(0, "q" * (MESSAGE_CHARS // 2)), Steps())
    big = [(trace[0], trace[1] * 3)]  # three times its triples: past one message
    texts = list(packed(big))
    assert len(texts) > 1 and all(len(t) <= MESSAGE_CHARS for _, t in texts)
    assert all(text.endswith(".\n") for _, text in texts)
    assert "".join(t for _, t in texts) == nquads_text(big[0][1])


def test_a_message_over_the_brokers_limit_is_halved_by_lines() -> None:
    """JSON escapes can make N-Quads text grow past the broker's limit: such a message is
    split between lines until each part fits, and no line is lost."""
    line = '<urn:x:s> <urn:x:p> "%s" <urn:graph:retrieval> .\n' % ('\\"' * 20_000)
    text = line * (MAX_MESSAGE_BYTES // len(line) + 5)  # fits by characters, not once escaped
    payloads = list(wire(Metadata(id="urn:x:s", user="u", collection="c"), text))
    assert len(payloads) > 1 and all(len(p) <= MAX_MESSAGE_BYTES for p in payloads)
    assert "".join(decode(StoreTriples, p).text for p in payloads) == text


def test_a_document_id_the_store_would_refuse_does_not_sink_the_message() -> None:
    """``http://ex.com/%zz`` passes the schema's IRI check but not pyoxigraph's: kept as an
    IRI, the store refused the message holding it after the 2xx (dead-lettered, with every
    trace packed beside it). It is encoded as any id that is not an IRI."""
    tid = (7).to_bytes(16, "big")
    root = Span(tid, b"\x01" * 8, "answer", S0, S0 + 9, b"", {"input.value": "q"})
    retriever = Span(tid, b"\x02" * 8, "lookup", S0 + 1, S0 + 5, root.span_id, {
        "openinference.span.kind": "RETRIEVER",
        "retrieval.documents.0.document.id": "http://ex.com/%zz",
        "retrieval.documents.1.document.id": "urn:trustgraph:doc:a/p1/c1"})  # fmt: skip
    traces = [*to_prov([root, retriever], Steps()), *to_prov(one_trace(1, "next"), Steps())]
    (text,) = [t for _, t in packed(traces)]
    (payload,) = wire(Metadata(id="urn:x:s", user="u", collection="c"), text)
    read = decode(StoreTriples, payload)  # what the store does first: refused, before
    objects = {q.object.value for q in read.quads if isinstance(q.object, NamedNode)}
    assert "urn:trustgraph:otel-document:http%3A%2F%2Fex.com%2F%25zz" in objects
    assert "urn:trustgraph:doc:a/p1/c1" in objects  # an IRI the store reads stays itself
