"""Stage metrics written before the reference's names were adopted (``tg:model``,
``tg:latencyMs "12.5"^^xsd:decimal``, docs/conformance.md) are renamed at start, on both
backends: ``tg:llmModel`` and ``tg:llmDurationMs`` (whole ms) on an LLM stage,
``tg:embeddingModel`` on an exploration (which keeps its ``tg:latencyMs``), in the traces and
in a document's extraction activities; what the views and the trace index show follows;
signed traces and documents still verify; idempotent; resumed when killed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pyoxigraph as ox
import pytest

from tests.support.migration import assert_verified, killed_at, seal_fixture
from tests.support.store import DOC, agent, document, graph_rag, handle_of, msg
from trustgraph_base.provenance import uris
from trustgraph_base.provenance.common import decimal_literal, integer_literal, text, triple
from trustgraph_base.provenance.namespaces import TG
from trustgraph_base.rdf.terms import Triple
from trustgraph_base.schema.trace import StageMetrics
from trustgraph_flow.store.backends.embedded.trace_index import TraceIndex
from trustgraph_flow.store.core.backend import Backend
from trustgraph_flow.store.governance.documents import seal_document
from trustgraph_flow.store.governance.migrate import migrate
from trustgraph_flow.store.governance.seal import Seal
from trustgraph_flow.store.governance.verify import verify_document, verify_trace
from trustgraph_flow.store.service.writer import write_batch
from trustgraph_flow.store.views import explain
from trustgraph_flow.store.views.lookup import RETRIEVAL, SOURCE, n

seal = seal_fixture()
NAMES = (TG.llmModel, TG.embeddingModel, TG.inToken, TG.outToken, TG.llmDurationMs, TG.latencyMs)
METRICS = {p.i for p in NAMES}
G = "urn:graph:retrieval"
QUESTION = uris.graph_rag_question_uri("g-old")
AGENT = uris.agent_session_uri("a-old")
EXTRACT = uris.activity_uri(f"{DOC}/p1/c0", "extract")


def old_metrics(
    uri: str, graph: str, model: str, latency: float, tokens: int | None
) -> list[Triple]:
    """A stage's figures as ``metrics_triples`` wrote them before (tg:model, tg:latencyMs)."""
    out = [triple(uri, TG.model, text(model), graph)]
    if tokens is not None:
        out += [triple(uri, TG.inToken, integer_literal(tokens), graph)]
    return [*out, triple(uri, TG.latencyMs, decimal_literal(latency), graph)]


def without_metrics(triples: list[Triple]) -> list[Triple]:
    return [t for t in triples if t.p.i not in METRICS]


def old_traces() -> list[Triple]:
    """A GraphRAG trace (its exploration timed, with its embeddings model) and an agent whose
    first step's LLM call was timed, as written before."""
    return [
        *without_metrics(graph_rag("g-old", 1)),
        *old_metrics(uris.synthesis_uri(QUESTION), G, "m1", 12.5, 10),
        *old_metrics(uris.exploration_uri(QUESTION), G, "hashing-384", 3.25, None),
        *without_metrics(agent("a-old", 2, "g-sub")),
        *old_metrics(uris.agent_iteration_uri(AGENT, 1), G, "m1", 7.5, 3),
    ]


@pytest.fixture
def old_store(make_backend: Callable[[], Backend], seal: Seal) -> Backend:
    stores = make_backend()
    write_batch(stores, [msg(old_traces(), "trace")], seal)
    old_doc = [t for t in document() if t.p.i != TG.llmModel.i]
    old_doc += old_metrics(EXTRACT, SOURCE.value, "offline", 4.5, 336)
    write_batch(stores, [msg(old_doc, "doc")], seal)
    assert seal_document(handle_of(stores), seal, DOC) is not None
    for root in (QUESTION, AGENT):
        assert verify_trace(handle_of(stores), seal.keys, root).verified
    return stores


def figures(stores: Backend, graph: ox.NamedNode) -> dict[tuple[str, str], str]:
    """(entity, predicate's local name) → value, of every metric in ``graph``."""
    h, out = handle_of(stores), {}
    for p in (TG.model, *NAMES):
        for q in h.store.quads_for_pattern(None, n(p), None, graph):
            out[q.subject.value, q.predicate.value.rpartition("/")[2]] = q.object.value  # type: ignore[union-attr]
    return out


def shown(stores: Backend) -> tuple[dict[str, StageMetrics], dict[str, StageMetrics]]:
    """The stage figures tg-show-explain-trace shows of the two traces."""
    h = handle_of(stores)
    rag = explain.get_trace(h, QUESTION, include_provenance=False).metrics
    return rag, explain.get_trace(h, AGENT, include_provenance=False).metrics


def test_old_metrics_get_the_reference_names_and_still_verify(
    old_store: Backend, seal: Seal
) -> None:
    synthesis, exploration = uris.synthesis_uri(QUESTION), uris.exploration_uri(QUESTION)
    step = uris.agent_iteration_uri(AGENT, 1)
    assert (synthesis, "model") in figures(old_store, RETRIEVAL)
    assert migrate(old_store, seal) > 0
    assert figures(old_store, RETRIEVAL) == {
        (synthesis, "llmModel"): "m1",
        (synthesis, "inToken"): "10",
        (synthesis, "llmDurationMs"): "13",  # 12.5 ms, whole
        (exploration, "embeddingModel"): "hashing-384",
        (exploration, "latencyMs"): "3.25",  # a search, not an LLM call: kept
        (step, "llmModel"): "m1",
        (step, "inToken"): "3",
        (step, "llmDurationMs"): "8",
    }
    plain = {
        q.object
        for q in handle_of(old_store).store.quads_for_pattern(None, n(TG.llmDurationMs), None, None)
    }
    assert plain == {ox.Literal("13"), ox.Literal("8"), ox.Literal("5")}  # plain literals
    assert figures(old_store, SOURCE) == {
        (EXTRACT, "llmModel"): "offline",
        (EXTRACT, "inToken"): "336",
        (EXTRACT, "llmDurationMs"): "5",
    }
    rag, steps = shown(old_store)
    assert rag["synthesis"] == StageMetrics(model="m1", in_token=10, latency_ms=13)
    assert rag["exploration"] == StageMetrics(model="hashing-384", latency_ms=3.25)
    assert steps["i1"] == StageMetrics(model="m1", in_token=3, latency_ms=8)
    assert_verified(handle_of(old_store), seal.keys, (DOC,), (QUESTION, AGENT))
    assert migrate(old_store, seal) == 0


def test_the_trace_index_keeps_no_old_name(old_store: Backend, seal: Seal) -> None:
    index = handle_of(old_store).index
    if not isinstance(index, TraceIndex):
        pytest.skip("the server's trace index keeps no read model of facts")
    count = "SELECT count(*) FROM {} WHERE pred = ?"
    old = (TG.model.i,)
    assert (
        sum(
            index.db.execute(count.format(t), old).fetchone()[0]
            for t in ("step_facts", "rag_facts")
        )
        == 3
    )
    migrate(old_store, seal)
    assert [
        index.db.execute(count.format(t), old).fetchone()[0] for t in ("step_facts", "rag_facts")
    ] == [0, 0]
    kept = index.db.execute(count.format("rag_facts"), (TG.llmDurationMs.i,)).fetchone()[0]
    assert (
        kept == 1
        and index.db.execute(count.format("step_facts"), (TG.llmDurationMs.i,)).fetchone()[0] == 1
    )


def test_a_renaming_killed_before_signing_resumes(
    old_store: Backend, seal: Seal, monkeypatch: pytest.MonkeyPatch
) -> None:
    with killed_at(monkeypatch, "append"):  # the document's renaming, before it is signed again
        migrate(old_store, seal)
    assert (EXTRACT, "llmModel") in figures(old_store, SOURCE)
    assert not verify_document(handle_of(old_store), seal.keys, DOC).verified
    migrate(old_store, seal)
    assert (uris.synthesis_uri(QUESTION), "llmDurationMs") in figures(old_store, RETRIEVAL)
    assert_verified(handle_of(old_store), seal.keys, (DOC,), (QUESTION, AGENT))
    assert shown(old_store)[0]["synthesis"].latency_ms == 13


def test_an_edited_trace_is_renamed_but_not_signed_over(old_store: Backend, seal: Seal) -> None:
    h = handle_of(old_store)
    synthesis = ox.NamedNode(uris.synthesis_uri(QUESTION))
    [answer] = h.store.quads_for_pattern(synthesis, n(TG.content), None, RETRIEVAL)
    h.store.remove(answer)
    h.store.extend([ox.Quad(synthesis, n(TG.content), ox.Literal("edited"), RETRIEVAL)])
    migrate(old_store, seal)
    assert shown(old_store)[0]["synthesis"].model == "m1"
    assert not verify_trace(handle_of(old_store), seal.keys, QUESTION).verified
    assert verify_trace(handle_of(old_store), seal.keys, AGENT).verified


def test_a_renaming_killed_before_a_trace_is_signed_again_resumes(
    old_store: Backend, seal: Seal, monkeypatch: pytest.MonkeyPatch
) -> None:
    append = Seal.append

    def killed_at_traces(self: Seal, handle: Any, found: Any, reason: str, kind: str) -> object:
        if kind == "trace":
            raise SystemExit("killed")
        return append(self, handle, found, reason, kind)

    with monkeypatch.context() as m:
        m.setattr(Seal, "append", killed_at_traces)
        with pytest.raises(SystemExit):
            migrate(old_store, seal)
    assert not verify_trace(handle_of(old_store), seal.keys, QUESTION).verified
    migrate(old_store, seal)
    assert_verified(handle_of(old_store), seal.keys, (), (QUESTION, AGENT))
    assert shown(old_store)[1]["i1"].latency_ms == 8
