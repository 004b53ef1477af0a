"""The SPARQL 1.1 Service Description a GET of the endpoint without a query answers.

It says what the endpoint is and does: SPARQL 1.1 Query (read-only: no Update, no
SERVICE), the result and graph formats it answers in, and the dataset a query sees (the
collection's default graph and its named graphs ``urn:graph:source`` and
``urn:graph:retrieval``). Built as RDF terms, never as text, and sent in the negotiated
graph format (Turtle by default).
"""

from __future__ import annotations

import pyoxigraph as ox

from trustgraph_base.provenance.namespaces import GRAPH_RETRIEVAL, GRAPH_SOURCE, RDF_NS

SD = "http://www.w3.org/ns/sparql-service-description#"
FORMATS = "http://www.w3.org/ns/formats/"
# The media types the endpoint answers in, by their W3C format IRIs.
FORMAT_NAMES = (
    "SPARQL_Results_JSON",
    "SPARQL_Results_XML",
    "SPARQL_Results_CSV",
    "SPARQL_Results_TSV",
    "Turtle",
    "N-Triples",
    "TriG",
    "N-Quads",
    "RDF_XML",
    "JSON-LD",
)


def service_description(endpoint: str) -> list[ox.Triple]:
    """The description of the endpoint at ``endpoint`` (its URL without a query string)."""

    def sd(name: str) -> ox.NamedNode:
        return ox.NamedNode(SD + name)

    a = ox.NamedNode(RDF_NS + "type")
    service, dataset, default = ox.BlankNode(), ox.BlankNode(), ox.BlankNode()
    out = [
        ox.Triple(service, a, sd("Service")),
        ox.Triple(service, sd("endpoint"), ox.NamedNode(endpoint)),
        ox.Triple(service, sd("supportedLanguage"), sd("SPARQL11Query")),
        ox.Triple(service, sd("defaultDataset"), dataset),
        ox.Triple(dataset, a, sd("Dataset")),
        ox.Triple(dataset, sd("defaultGraph"), default),
        ox.Triple(default, a, sd("Graph")),
    ]
    out += [ox.Triple(service, sd("resultFormat"), ox.NamedNode(FORMATS + f)) for f in FORMAT_NAMES]
    for graph in (GRAPH_SOURCE, GRAPH_RETRIEVAL):
        named = ox.BlankNode()
        out += [
            ox.Triple(dataset, sd("namedGraph"), named),
            ox.Triple(named, a, sd("NamedGraph")),
            ox.Triple(named, sd("name"), ox.NamedNode(graph)),
        ]
    return out
