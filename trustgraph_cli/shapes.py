"""Check a trace's statements against the project's SHACL shapes (docs/shapes/, pySHACL).

The shapes (``trustgraph_base/provenance/shapes/*.ttl``) describe SPEC.md's trace types and
extraction provenance as RDF 1.1: a quoted edge ``<< s p o >>`` is an ``rdf:Statement`` node,
as ``tg-export-explain-trace --format jsonld`` writes it. They are open: facts written
beside SPEC's are allowed.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from importlib.resources import files
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import rdflib

SHAPE_FILES = (
    "common.ttl",
    "agent.ttl",
    "graph-rag.ttl",
    "document-rag.ttl",
    "extraction.ttl",
    "verification.ttl",
)
SH = "http://www.w3.org/ns/shacl#"


@dataclass(frozen=True)
class Violation:
    """One result of the validation: which node, which property, what SHACL said."""

    focus: str
    path: str | None
    value: str | None
    shape: str
    message: str

    def line(self) -> str:
        at = f" {self.path}" if self.path else ""
        value = f" (value {self.value})" if self.value and self.value != self.focus else ""
        return f"{self.focus}{at}: {self.message}{value}"


def shapes_graph() -> rdflib.Graph:
    """Every shape file, parsed into one graph."""
    import rdflib

    graph = rdflib.Graph()
    folder = files("trustgraph_base.provenance") / "shapes"
    for name in SHAPE_FILES:
        graph.parse(data=(folder / name).read_text(encoding="utf-8"), format="turtle")
    return graph


def data_graph(jsonld: str) -> rdflib.Graph:
    """A JSON-LD export's statements in one graph (every named graph merged: the shapes
    follow links between the trace and its source chain)."""
    import rdflib

    dataset = rdflib.Dataset()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # rdflib's own, in its JSON-LD reader
        dataset.parse(data=jsonld, format="json-ld")
    merged = rdflib.Graph()
    for s, p, o, _ in dataset.quads((None, None, None, None)):
        merged.add((s, p, o))
    return merged


def validate(data: rdflib.Graph) -> list[Violation]:
    """The shapes' violations in ``data``, in a stable order (none: it conforms)."""
    import rdflib
    from pyshacl import validate as shacl_validate

    _, report, _ = shacl_validate(data, shacl_graph=shapes_graph(), advanced=True)
    sh = rdflib.Namespace(SH)
    out = []
    for result in report.subjects(rdflib.RDF.type, sh.ValidationResult):

        def one(p: rdflib.URIRef, result: rdflib.term.Node = result) -> str | None:
            value = report.value(result, p)
            return None if value is None else _text(value)

        out.append(
            Violation(
                focus=one(sh.focusNode) or "?",
                path=one(sh.resultPath),
                value=one(sh.value),
                shape=one(sh.sourceShape) or "?",
                message=str(report.value(result, sh.resultMessage) or "does not conform"),
            )
        )
    return sorted(set(out), key=lambda v: (v.focus, v.path or "", v.message))


def _text(node: rdflib.term.Node) -> str:
    import rdflib

    if isinstance(node, rdflib.URIRef):
        return str(node)
    if isinstance(node, rdflib.BNode):
        return "[]"  # a blank node (a path expression or a shape of the shapes graph)
    return node.n3() if isinstance(node, rdflib.Literal) else str(node)
