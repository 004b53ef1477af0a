"""Extraction-time provenance (graph ``urn:graph:source``): document → page → chunk → subgraph."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from importlib import metadata

from trustgraph_base.provenance.common import (
    derived,
    plain_integer,
    text,
    triple,
    types,
)
from trustgraph_base.provenance.namespaces import DC, GRAPH_SOURCE, PROV, RDFS, TG
from trustgraph_base.rdf.terms import BlankTerm, IriTerm, Term, Triple, quoted

G = GRAPH_SOURCE
try:
    VERSION = metadata.version("explaingraph")  # each activity's tg:componentVersion
except metadata.PackageNotFoundError:  # run from a checkout that was never installed
    VERSION = "unknown"
Edge = tuple[IriTerm | BlankTerm, IriTerm, Term]


def document_triples(doc_uri: str, title: str, mime_type: str) -> list[Triple]:
    """The document entity: its title, MIME type and label."""
    return [
        *types(doc_uri, G, PROV.Entity, TG.Document),
        triple(doc_uri, DC.title, text(title), G),
        triple(doc_uri, TG.mimeType, text(mime_type), G),
        triple(doc_uri, RDFS.label, text(title or doc_uri), G),
    ]


def page_triples(page: str, doc_uri: str, page_number: int, activity: str) -> list[Triple]:
    """A page ``{doc}/p{n}``, derived from its document."""
    return [
        *types(page, G, PROV.Entity, TG.Page),
        triple(page, TG.pageNumber, plain_integer(page_number), G),
        derived(page, doc_uri, G),
        triple(page, PROV.wasGeneratedBy, IriTerm(i=activity), G),
    ]


def chunk_triples(
    chunk: str,
    parent_uri: str,
    index: int,
    char_offset: int,
    char_length: int,
    activity: str,
) -> list[Triple]:
    """A chunk, derived from its page (or from its document when there are no pages)."""
    return [
        *types(chunk, G, PROV.Entity, TG.Chunk),
        triple(chunk, TG.chunkIndex, plain_integer(index), G),
        triple(chunk, TG.charOffset, plain_integer(char_offset), G),  # the reference's form
        triple(chunk, TG.charLength, plain_integer(char_length), G),
        derived(chunk, parent_uri, G),
        triple(chunk, PROV.wasGeneratedBy, IriTerm(i=activity), G),
    ]


def subgraph_triples(
    subgraph: str, chunk: str, edges: Sequence[Edge], activity: str
) -> list[Triple]:
    """The edges extracted from one chunk, each as ``tg:contains << s p o >>``."""
    return [
        *types(subgraph, G, PROV.Entity, TG.Subgraph),
        derived(subgraph, chunk, G),
        triple(subgraph, PROV.wasGeneratedBy, IriTerm(i=activity), G),
        *(triple(subgraph, TG.contains, quoted(s, p, o), G) for s, p, o in edges),
    ]


def activity_triples(
    activity: str,
    component: str,
    component_label: str,
    started_at: str,
    settings: Mapping[IriTerm, int | str] | None = None,
    *,
    used: str,
) -> list[Triple]:
    """An activity associated with the software agent that ran it, with the settings it used,
    and the reference's facts beside them: ``prov:used`` the entity it read (the document a
    decode read, the page or page-less document a chunking read, the chunk an extraction
    read), ``rdfs:label`` "{component} extraction" and ``tg:componentVersion``."""
    out = [
        *types(activity, G, PROV.Activity),
        triple(activity, PROV.wasAssociatedWith, IriTerm(i=component), G),
        triple(activity, PROV.startedAtTime, text(started_at), G),  # the reference's plain form
        *activity_facts(activity, component_label, used, VERSION),
        *types(component, G, PROV.Agent, PROV.SoftwareAgent),  # the reference's, and ours
        triple(component, RDFS.label, text(component_label), G),
    ]
    for predicate, value in (settings or {}).items():
        literal = (
            plain_integer(value) if isinstance(value, int) else text(value)
        )  # the reference's form
        out.append(triple(activity, predicate, literal, G))
    return out


def activity_facts(
    activity: str, component_label: str, used: str, version: str | None
) -> list[Triple]:
    """The reference's facts on an extraction activity (docs/conformance.md); ``version``
    None where it is not known (an activity written before they were, migrated)."""
    out = [
        triple(activity, PROV.used, IriTerm(i=used), G),
        triple(activity, RDFS.label, text(f"{component_label} extraction"), G),
    ]
    if version is not None:
        out.append(triple(activity, TG.componentVersion, text(version), G))
    return out
