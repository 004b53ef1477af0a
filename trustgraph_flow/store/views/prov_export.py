"""A trace export as the ``prov`` package's document (PROV-N, PROV-JSON), losing nothing.

The ``prov`` package reads RDF 1.1 (``export.reified``: triple terms as ``rdf:Statement``
nodes) and keeps only the nodes PROV knows: an entity, an activity or an agent. So that
nothing of the trace is dropped, every other subject — a focus edge selection (its edge and
reasoning), a retrieved chunk's rank and score (its reifier), an extracted entity with its
label — is also typed ``prov:Entity`` here, as it is in PROV terms. An activity's start or
end written as a plain literal (an extraction activity's ``prov:startedAtTime``, in the
reference's form, docs/conformance.md) is given here the ``xsd:dateTime`` PROV-O's range says
it is, which the ``prov`` package requires of a start time. The document is then copied into
a fresh one, which declares only the namespaces its records use (rdflib's reader brings some
thirty more of its own).
"""

from __future__ import annotations

import io
import logging
import warnings
from collections.abc import Iterable

import pyoxigraph as ox

from trustgraph_base.provenance.namespaces import PREFIXES, PROV, PROV_NS, RDF, XSD
from trustgraph_base.rdf.lexical import check_lexical
from trustgraph_flow.store.core.convert import serialized
from trustgraph_flow.store.core.reify import rdf11
from trustgraph_flow.store.views.lookup import n

log = logging.getLogger(__name__)


def reified(quads: Iterable[ox.Quad]) -> list[ox.Quad]:
    """The quads in RDF 1.1 (``core.reify``), as PROV readers want them: each statement node
    also a ``prov:Entity``, each ``prov:SoftwareAgent`` also a ``prov:Agent`` (PROV-O)."""
    out = rdf11(quads)
    typed, statement = n(RDF.type), n(RDF.Statement)
    extra = [
        ox.Quad(
            q.subject, typed, n(PROV.Entity if q.object == statement else PROV.Agent), q.graph_name
        )
        for q in out
        if q.predicate == typed and q.object in (statement, n(PROV.SoftwareAgent))
    ]
    return sorted(set(out + extra), key=str)


def as_prov(quads: list[ox.Quad]) -> list[ox.Quad]:
    """The (reified) quads with each subject that has no PROV class typed ``prov:Entity``."""
    out = reified(quads)
    typed = n(RDF.type)
    known = {
        (q.subject, q.graph_name)
        for q in out
        if q.predicate == typed
        and isinstance(q.object, ox.NamedNode)
        and q.object.value.startswith(PROV_NS)
    }
    extra = {
        ox.Quad(q.subject, typed, n(PROV.Entity), q.graph_name)
        for q in out
        if isinstance(q.subject, ox.NamedNode) and (q.subject, q.graph_name) not in known
    }
    # what a verification used and the agent it is associated with, named but not described
    # in its graph (evidence of another graph, the verifier): typed, so PROV readers keep them
    refs = {n(PROV.used): n(PROV.Entity), n(PROV.wasAssociatedWith): n(PROV.Agent)}
    described = known | {(q.subject, q.graph_name) for q in extra}
    extra |= {
        ox.Quad(q.object, typed, refs[q.predicate], q.graph_name)
        for q in out
        if q.predicate in refs
        and isinstance(q.object, ox.NamedNode)
        and (q.object, q.graph_name) not in described
    }
    return sorted(set(typed_times(out)) | extra, key=str)


TIMES = {n(PROV.startedAtTime), n(PROV.endedAtTime)}
DATETIME = ox.NamedNode(XSD.dateTime)


def typed_times(quads: Iterable[ox.Quad]) -> list[ox.Quad]:
    """The quads with each plain start or end time typed ``xsd:dateTime``, PROV-O's range
    (what PROV readers require: the PROV export's and the ``--rdf11`` export's)."""
    return [_timed(q) for q in quads]


def _timed(q: ox.Quad) -> ox.Quad:
    o = q.object
    if q.predicate not in TIMES or not isinstance(o, ox.Literal) or o.datatype == DATETIME:
        return q
    if o.language is not None or not _is_datetime(o.value):
        return q  # not a time: left as it is (the prov package names it)
    return ox.Quad(q.subject, q.predicate, ox.Literal(o.value, datatype=DATETIME), q.graph_name)


def _is_datetime(value: str) -> bool:
    try:
        check_lexical(value, XSD.dateTime)
    except ValueError:
        return False
    return True


def prov_document(quads: list[ox.Quad]) -> object:
    """The ``prov`` package's document of the statements: one bundle per named graph."""
    from prov import read
    from prov.model import ProvDocument

    trig = serialized(as_prov(quads), ox.RdfFormat.TRIG, prefixes=PREFIXES).decode()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")  # rdflib's deprecations inside prov's reader; prov's notes
        read_back = read(io.StringIO(trig), format="rdf", rdf_format="trig")
    for w in caught:
        if not issubclass(w.category, DeprecationWarning):
            log.info("PROV export: %s", w.message)
    assert read_back is not None  # read() returns None only for an empty source
    doc = ProvDocument()
    doc.update(read_back)  # a fresh document declares only the namespaces its records use
    return doc
