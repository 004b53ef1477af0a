"""Exports that lose nothing (issue 33 item 2): every statement of a GraphRAG and a
DocumentRAG trace's export comes back from PROV-JSON through the ``prov`` package (edge
reasoning, labels, ranks and scores included); PROV-N declares only the prefixes it uses;
``--rdf11`` TriG and Turtle are read by rdflib and by ``prov``'s PROV-O reader."""

from __future__ import annotations

import io
import re
import warnings
from datetime import datetime
from typing import Any

import pyoxigraph as ox
import rdflib
from prov import read as prov_read
from prov.model import ProvElement, ProvRelation

from tests.golden.golden import invoke
from tests.integration.test_cli_export import canonical
from tests.support.processors import EVERY
from tests.support.stack import Stack, stack_fixture
from tests.support.traces import DOC_RAG, GRAPH_RAG, loaded_and_answered
from trustgraph_flow.store.core.reify import rdf11
from trustgraph_flow.store.views.prov_export import reified, typed_times

stack = stack_fixture(EVERY)
PROV = "http://www.w3.org/ns/prov#"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
# How the prov package names what PROV-O says with these predicates.
AS_PROV = {
    "http://www.w3.org/2000/01/rdf-schema#label": PROV + "label",
    RDF_TYPE: PROV + "type",
}


async def export(url: str, trace: str, fmt: str, *extra: str) -> str:
    done = await invoke(url, "tg-export-explain-trace", trace, "--format", fmt, *extra)
    assert done.code == 0, done.stderr
    return done.stdout


def value(v: Any) -> str:
    if isinstance(v, datetime):
        return v.isoformat()
    if isinstance(v, bool):  # an xsd:boolean, which the prov package reads as Python's
        return "true" if v else "false"
    uri = getattr(v, "uri", None)
    return str(uri if uri is not None else getattr(v, "value", v))


RELATIONS = {
    "ProvDerivation": "wasDerivedFrom",
    "ProvGeneration": "wasGeneratedBy",
    "ProvAssociation": "wasAssociatedWith",
    "ProvUsage": "used",
}


def prov_statements(doc: Any) -> set[tuple[str, str, str]]:
    """(subject, predicate, value) of every record of the document and its bundles, in
    PROV-O's predicates for the relations."""
    out: set[tuple[str, str, str]] = set()
    for record in [r for b in [doc, *doc.bundles] for r in b.get_records()]:
        if isinstance(record, ProvElement):
            assert record.identifier is not None
            subject = record.identifier.uri
            out.update((subject, name.uri, value(v)) for name, v in record.attributes)
            start = getattr(record, "get_startTime", lambda: None)()
            if start is not None:
                out.add((subject, PROV + "startedAtTime", value(start)))
            end = getattr(record, "get_endTime", lambda: None)()  # a verification's end
            if end is not None:
                out.add((subject, PROV + "endedAtTime", value(end)))
        elif isinstance(record, ProvRelation):
            (_, subject), (_, obj), *_ = record.formal_attributes
            out.add((subject.uri, PROV + RELATIONS[type(record).__name__], obj.uri))
    return out


TIMES = (PROV + "startedAtTime", PROV + "endedAtTime")  # an extraction's: a plain literal


def expected(trig: str) -> set[tuple[str, str, str]]:
    out = set()
    for q in reified(ox.parse(input=trig, format=ox.RdfFormat.TRIG)):
        if not isinstance(q.subject, ox.NamedNode):
            continue
        p = AS_PROV.get(q.predicate.value, q.predicate.value)
        o = q.object
        if isinstance(o, ox.Literal) and (o.datatype.value.endswith("#dateTime") or p in TIMES):
            text = datetime.fromisoformat(o.value).isoformat()
        else:
            text = o.value  # type: ignore[union-attr]
        if p == PROV + "type" and text in (PROV + "Entity", PROV + "Activity", PROV + "Agent"):
            continue  # the record's kind: entity(…), activity(…), agent(…)
        out.add((q.subject.value, p, text))
    return out


async def test_prov_json_keeps_every_statement(stack: Stack) -> None:
    await loaded_and_answered(stack.url)
    for trace in (GRAPH_RAG, DOC_RAG):
        trig = await export(stack.url, trace, "trig")
        doc = prov_read(io.StringIO(await export(stack.url, trace, "provjson")), format="json")
        kept = prov_statements(doc)
        lost = expected(trig) - kept
        assert not lost, sorted(lost)[:10]
        words = {s[1].rsplit("/", 1)[-1] for s in kept}
        if trace == GRAPH_RAG:
            assert {"reasoning", "edge", "selectedEdge"} <= words
        else:
            assert {"rank", "score", "selectedChunk"} <= words


async def test_prov_n_declares_only_the_prefixes_it_uses(stack: Stack) -> None:
    await loaded_and_answered(stack.url)
    provn = await export(stack.url, GRAPH_RAG, "provn")
    declared = re.findall(r"^\s*prefix (\S+) <", provn, flags=re.M)
    assert declared
    body = "\n".join(line for line in provn.splitlines() if not line.strip().startswith("prefix"))
    unused = [p for p in set(declared) if f"{p}:" not in body]
    assert not unused, unused


async def test_rdf11_trig_and_turtle_read_by_rdflib_and_prov(stack: Stack) -> None:
    await loaded_and_answered(stack.url)
    trig = await export(stack.url, GRAPH_RAG, "trig")
    as11 = await export(stack.url, GRAPH_RAG, "trig", "--rdf11")
    store_quads = set(ox.parse(input=trig, format=ox.RdfFormat.TRIG))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # rdflib's own
        data = rdflib.Dataset()
        data.parse(data=as11, format="trig")
        nquads = data.serialize(format="nquads")
    back = set(ox.parse(input=nquads, format=ox.RdfFormat.N_QUADS))
    # every statement, RDF 1.1, a plain start time typed as PROV-O's range says
    assert canonical(back) == canonical(set(typed_times(rdf11(store_quads))))
    turtle = await export(stack.url, GRAPH_RAG, "turtle", "--rdf11")
    assert len(rdflib.Graph().parse(data=turtle, format="turtle")) > 0
    with warnings.catch_warnings(record=True):  # rdflib's deprecations, prov's notes
        warnings.simplefilter("always")
        doc = prov_read(io.StringIO(as11), format="rdf", rdf_format="trig")
    assert doc is not None and any(b.get_records() for b in doc.bundles)
    refused = await invoke(
        stack.url, "tg-export-explain-trace", GRAPH_RAG, "--format", "provn", "--rdf11"
    )
    assert refused.code == 2 and "--rdf11" in refused.stderr
