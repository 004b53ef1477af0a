"""Triples of a ReAct agent trace (graph ``urn:graph:retrieval``)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from trustgraph_base.provenance.common import datetime_literal, derived_row, type_rows
from trustgraph_base.provenance.namespaces import GRAPH_RETRIEVAL, PROV, RDF, TG
from trustgraph_base.provenance.rag import QUESTION_LABELS, answer_extra_rows, label_row
from trustgraph_base.provenance.uris import agent_observation_uri, answer_document_uri
from trustgraph_base.rdf.rows import Row, as_triples, row
from trustgraph_base.rdf.terms import IriTerm

G = GRAPH_RETRIEVAL


def agent_session_rows(session_uri: str, query: str, timestamp: str) -> list[Row]:
    """The question that starts an agent session."""
    return [
        *type_rows(session_uri, G, PROV.Activity, TG.Question, TG.AgentQuestion),
        row(session_uri, TG.query, query, G),
        row(session_uri, PROV.startedAtTime, datetime_literal(timestamp), G),
        label_row(session_uri, QUESTION_LABELS[TG.AgentQuestion.i]),
    ]


def analysis_label(action: str) -> str:
    """An analysis's label, as the reference names it: "Analysis: {action}" (before, "Analysis")."""
    return f"Analysis: {action}"


def arguments_json(arguments: Mapping[str, Any] | str) -> str:
    """Tool arguments as the JSON text stored in ``tg:arguments`` (keys sorted, stable)."""
    if isinstance(arguments, str):
        return arguments
    return json.dumps(dict(arguments), sort_keys=True, ensure_ascii=False)


# Why an agent session ended (``tg:terminationReason`` on its conclusion): the reference's
# names, and "abstained" for an agent that declines to answer from what it found. "error"
# (a run that failed after it began) has a conclusion of its own (``agent_error_triples``).
TerminationReason = Literal["final-answer", "max-iterations", "abstained"]
FAILED_RUN = "error"  # the tg:terminationReason of a run that failed: no answer


def _derivations(uri: str, parents: str | Sequence[str]) -> list[Row]:
    """``prov:wasDerivedFrom`` each parent (one URI, or the entities a step names as used)."""
    named = [parents] if isinstance(parents, str) else list(dict.fromkeys(parents))
    if not named:
        raise ValueError(f"{uri} derives from nothing")
    return [derived_row(uri, parent, G) for parent in named]


def agent_iteration_rows(
    iteration_uri: str,
    parent_uri: str | Sequence[str],
    thought: str,
    action: str,
    arguments: Mapping[str, Any] | str,
    observation: str,
    *,
    step: int | None = None,
    candidates: Sequence[str] = (),
) -> list[Row]:
    """One analysis step, derived from the previous step (the first from the question), or
    from each entity the step named as used (``parent_uri`` a list: SPEC.md, the agent graph).
    ``step``: its ``tg:stepNumber``; ``candidates``: the tools offered (``tg:toolCandidate``)."""
    extras = [row(iteration_uri, TG.toolCandidate, name, G) for name in candidates]
    if step is not None:  # the reference's form: a plain literal
        extras.append(row(iteration_uri, TG.stepNumber, str(step), G))
    return [
        *type_rows(iteration_uri, G, PROV.Entity, TG.Analysis),
        *_derivations(iteration_uri, parent_uri),
        row(iteration_uri, TG.thought, thought, G),
        row(iteration_uri, TG.action, action, G),
        row(iteration_uri, TG.arguments, arguments_json(arguments), G),
        row(iteration_uri, TG.observation, observation, G),
        row(iteration_uri, RDF.type, TG.ToolUse, G),
        label_row(iteration_uri, analysis_label(action)),  # the reference's
        *extras,
    ]


def agent_observation_rows(observation_uri: str, iteration_uri: str) -> list[Row]:
    """TrustGraph's Observation entity of one analysis, beside SPEC's ``tg:observation``:
    derived from the analysis, its text the librarian document ``tg:document`` names (that
    document is the analysis's own ``tg:observation`` literal, not a second copy)."""
    return [
        *type_rows(observation_uri, G, PROV.Entity, TG.Observation),
        label_row(observation_uri, "Observation"),
        derived_row(observation_uri, iteration_uri, G),
        row(observation_uri, TG.document, IriTerm(i=answer_document_uri(observation_uri)), G),
    ]


def agent_call_rows(
    call_uri: str,
    iteration_uri: str,
    action: str,
    arguments: Mapping[str, Any] | str,
    observation: str,
) -> list[Row]:
    """One of several tools a step called at once (``…/i{n}/c{k}``, beside SPEC's analysis,
    which keeps them all): the tool use, derived from its step, with its action and arguments,
    and its Observation ``…/c{k}/observation``, derived from the call and from the step (the
    step is what TrustGraph's tools walk), holding the call's result as ``tg:observation``."""
    seen = agent_observation_uri(call_uri)
    return [
        *type_rows(call_uri, G, PROV.Entity, TG.ToolUse),
        label_row(call_uri, "Tool use"),
        derived_row(call_uri, iteration_uri, G),
        row(call_uri, TG.action, action, G),
        row(call_uri, TG.arguments, arguments_json(arguments), G),
        *type_rows(seen, G, PROV.Entity, TG.Observation),
        label_row(seen, "Observation"),
        derived_row(seen, call_uri, G),
        derived_row(seen, iteration_uri, G),
        row(seen, TG.observation, observation, G),
        row(seen, TG.document, IriTerm(i=answer_document_uri(seen)), G),
    ]


def agent_final_rows(
    final_uri: str,
    parent_uri: str | Sequence[str],
    answer: str,
    reason: TerminationReason | None = None,
) -> list[Row]:
    """The conclusion, derived from the last analysis (or the question if none), or from each
    entity the answering step named as used; ``reason``: its ``tg:terminationReason``."""
    ended = [] if reason is None else [row(final_uri, TG.terminationReason, reason, G)]
    return [
        *type_rows(final_uri, G, PROV.Entity, TG.Conclusion),
        *_derivations(final_uri, parent_uri),
        row(final_uri, TG.answer, answer, G),
        *answer_extra_rows(final_uri, "Conclusion"),
        *ended,
    ]


def agent_error_rows(
    final_uri: str, parent_uri: str, message: str, error_type: str | None = None
) -> list[Row]:
    """The conclusion of a run that failed after it began (docs/provenance.md): derived from
    the last analysis (or the question), ``tg:terminationReason`` "error", the reason as
    ``tg:error`` and the error's type (``llm-error``, ``timeout``, ``no-data``) as
    ``tg:errorType`` (ours); no ``tg:answer`` (there is none) and not a ``tg:Answer``. The
    question keeps its own ``tg:error`` (SPEC's failure form)."""
    typed = [] if error_type is None else [row(final_uri, TG.errorType, error_type, G)]
    return [
        *type_rows(final_uri, G, PROV.Entity, TG.Conclusion),
        derived_row(final_uri, parent_uri, G),
        label_row(final_uri, "Conclusion"),
        row(final_uri, TG.terminationReason, FAILED_RUN, G),
        row(final_uri, TG.error, message, G),
        *typed,
    ]


agent_session_triples = as_triples(agent_session_rows)
agent_iteration_triples = as_triples(agent_iteration_rows)
agent_observation_triples = as_triples(agent_observation_rows)
agent_call_triples = as_triples(agent_call_rows)
agent_final_triples = as_triples(agent_final_rows)
agent_error_triples = as_triples(agent_error_rows)
