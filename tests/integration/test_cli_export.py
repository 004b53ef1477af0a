"""tg-export-explain-trace end to end: every format written by the command, read back by an
independent reader (pyoxigraph, rdflib, prov), holding the same statements."""

from __future__ import annotations

import io
import json
import warnings
from collections import Counter
from datetime import datetime
from pathlib import Path

import pyoxigraph as ox
import rdflib
from prov import read as prov_read

from tests.golden.golden import invoke
from tests.support.processors import EVERY
from tests.support.stack import Stack, stack_fixture
from tests.support.traces import AGENT, loaded_and_answered
from trustgraph_flow.store.views.prov_export import reified

PROV_NS = "http://www.w3.org/ns/prov#"

stack = stack_fixture(EVERY)


def as_quads(text: str, fmt: ox.RdfFormat) -> set[ox.Quad]:
    return set(ox.parse(input=text, format=fmt))


def rdflib_quads(text: str) -> set[ox.Quad]:
    """JSON-LD read by rdflib, handed over as N-Quads."""
    data = rdflib.Dataset()
    with warnings.catch_warnings():
        warnings.simplefilter(
            "ignore", DeprecationWarning
        )  # rdflib's own, inside its JSON-LD reader
        data.parse(data=text, format="json-ld")
        nquads = data.serialize(format="nquads")
    return as_quads(nquads, ox.RdfFormat.N_QUADS)


def canonical(quads: set[ox.Quad]) -> set[tuple[object, ...]]:
    """Quads with xsd:dateTime literals as instants (readers may rewrite their lexical form)."""

    def term(t: object) -> object:
        if isinstance(t, ox.Literal) and t.datatype.value.endswith("#dateTime"):
            return ("dateTime", datetime.fromisoformat(t.value))
        return t

    return {(q.subject, q.predicate, term(q.object), q.graph_name) for q in quads}


def prov_relations(doc: object) -> Counter[str]:
    records = [r for b in [doc, *doc.bundles] for r in b.get_records()]  # type: ignore[attr-defined]
    return Counter(type(r).__name__ for r in records)


async def test_every_export_format_reads_back_the_same_statements(
    stack: Stack, tmp_path: Path
) -> None:
    url = stack.url
    facts, _ = await loaded_and_answered(url)
    out = {}
    for fmt in ("trig", "turtle", "jsonld", "provn", "provjson"):
        path = tmp_path / f"agent.{fmt}"
        done = await stack.cli("tg-export-explain-trace", AGENT, "--format", fmt, "-o", str(path))
        assert done.code == 0, done.stderr
        out[fmt] = path.read_text()

    trig = as_quads(out["trig"], ox.RdfFormat.TRIG)
    graphs = {q.graph_name for q in trig}
    assert {
        ox.NamedNode("urn:graph:retrieval"),
        ox.NamedNode("urn:graph:source"),
        ox.DefaultGraph(),
    } == graphs
    subjects = {q.subject.value for q in trig if isinstance(q.subject, ox.NamedNode)}
    assert {
        AGENT,
        f"{AGENT}/final",
        facts,
        f"{facts}/p2",
    } <= subjects  # the trace and its source chain
    assert any(s.startswith("urn:trustgraph:question:") for s in subjects)  # its sub-trace
    stdout = await invoke(url, "tg-export-explain-trace", AGENT)
    assert as_quads(stdout.stdout, ox.RdfFormat.TRIG) == trig

    turtle = {
        ox.Triple(t.subject, t.predicate, t.object)
        for t in as_quads(out["turtle"], ox.RdfFormat.TURTLE)
    }
    assert turtle == {ox.Triple(q.subject, q.predicate, q.object) for q in trig}

    assert canonical(rdflib_quads(out["jsonld"])) == canonical(
        set(reified(trig))
    )  # edges as rdf:Statement nodes

    doc = prov_read(io.StringIO(out["provjson"]), format="json")
    relations = prov_relations(doc)
    derived = sum(1 for q in reified(trig) if q.predicate.value == PROV_NS + "wasDerivedFrom")
    assert relations["ProvDerivation"] == derived
    generated = sum(1 for q in reified(trig) if q.predicate.value == PROV_NS + "wasGeneratedBy")
    assert relations["ProvGeneration"] == generated
    # PROV-N has no Python reader: its records are counted against the PROV-JSON ones.
    for relation, name in (
        ("wasDerivedFrom(", "ProvDerivation"),
        ("wasGeneratedBy(", "ProvGeneration"),
        ("entity(", "ProvEntity"),
        ("activity(", "ProvActivity"),
        ("agent(", "ProvAgent"),
    ):
        records = [line for line in out["provn"].splitlines() if line.lstrip().startswith(relation)]
        assert len(records) == relations[name] > 0, relation  # in the bundles and at the top
    assert json.loads(out["provjson"])["bundle"]

    for bad, message in [("nope", "no trace 'nope'"), ("x> } DROP", "no trace 'x> } DROP'")]:
        refused = await stack.cli("tg-export-explain-trace", bad)
        assert refused.code == 1 and message in refused.stderr
    usage = await stack.cli("tg-export-explain-trace", AGENT, "--format", "xml")
    assert usage.code == 2
