"""Triples of a ReAct agent trace (graph ``urn:graph:retrieval``)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from trustgraph_base.provenance.common import datetime_literal, derived, text, triple, types
from trustgraph_base.provenance.namespaces import GRAPH_RETRIEVAL, PROV, RDF, TG
from trustgraph_base.provenance.rag import answer_extras, label
from trustgraph_base.provenance.uris import answer_document_uri
from trustgraph_base.rdf.terms import IriTerm, Triple

G = GRAPH_RETRIEVAL


def agent_session_triples(session_uri: str, query: str, timestamp: str) -> list[Triple]:
    """The question that starts an agent session."""
    return [
        *types(session_uri, G, PROV.Activity, TG.Question, TG.AgentQuestion),
        triple(session_uri, TG.query, text(query), G),
        triple(session_uri, PROV.startedAtTime, datetime_literal(timestamp), G),
        label(session_uri, "Question"),
    ]


def arguments_json(arguments: Mapping[str, Any] | str) -> str:
    """Tool arguments as the JSON text stored in ``tg:arguments`` (keys sorted, stable)."""
    if isinstance(arguments, str):
        return arguments
    return json.dumps(dict(arguments), sort_keys=True, ensure_ascii=False)


def agent_iteration_triples(
    iteration_uri: str,
    parent_uri: str,
    thought: str,
    action: str,
    arguments: Mapping[str, Any] | str,
    observation: str,
) -> list[Triple]:
    """One analysis step, derived from the previous step (the first from the question)."""
    return [
        *types(iteration_uri, G, PROV.Entity, TG.Analysis),
        derived(iteration_uri, parent_uri, G),
        triple(iteration_uri, TG.thought, text(thought), G),
        triple(iteration_uri, TG.action, text(action), G),
        triple(iteration_uri, TG.arguments, text(arguments_json(arguments)), G),
        triple(iteration_uri, TG.observation, text(observation), G),
        triple(iteration_uri, RDF.type, TG.ToolUse, G),
        label(iteration_uri, "Analysis"),
    ]


def agent_observation_triples(observation_uri: str, iteration_uri: str) -> list[Triple]:
    """TrustGraph's Observation entity of one analysis, beside SPEC's ``tg:observation``:
    derived from the analysis, its text the librarian document ``tg:document`` names (that
    document is the analysis's own ``tg:observation`` literal, not a second copy)."""
    return [
        *types(observation_uri, G, PROV.Entity, TG.Observation),
        label(observation_uri, "Observation"),
        derived(observation_uri, iteration_uri, G),
        triple(observation_uri, TG.document, IriTerm(i=answer_document_uri(observation_uri)), G),
    ]


def agent_final_triples(final_uri: str, parent_uri: str, answer: str) -> list[Triple]:
    """The conclusion, derived from the last analysis (or the question if none)."""
    return [
        *types(final_uri, G, PROV.Entity, TG.Conclusion),
        derived(final_uri, parent_uri, G),
        triple(final_uri, TG.answer, text(answer), G),
        *answer_extras(final_uri, "Conclusion"),
    ]
