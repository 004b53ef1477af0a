"""Triples of a ReAct agent trace (graph ``urn:graph:retrieval``)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from trustgraph_base.provenance.common import datetime_literal, derived, text, triple, types
from trustgraph_base.provenance.namespaces import GRAPH_RETRIEVAL, PROV, RDF, TG
from trustgraph_base.provenance.rag import QUESTION_LABELS, answer_extras, label
from trustgraph_base.provenance.uris import agent_observation_uri, answer_document_uri
from trustgraph_base.rdf.terms import IriTerm, Triple

G = GRAPH_RETRIEVAL


def agent_session_triples(session_uri: str, query: str, timestamp: str) -> list[Triple]:
    """The question that starts an agent session."""
    return [
        *types(session_uri, G, PROV.Activity, TG.Question, TG.AgentQuestion),
        triple(session_uri, TG.query, text(query), G),
        triple(session_uri, PROV.startedAtTime, datetime_literal(timestamp), G),
        label(session_uri, QUESTION_LABELS[TG.AgentQuestion.i]),
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


def _derivations(uri: str, parents: str | Sequence[str]) -> list[Triple]:
    """``prov:wasDerivedFrom`` each parent (one URI, or the entities a step names as used)."""
    named = [parents] if isinstance(parents, str) else list(dict.fromkeys(parents))
    if not named:
        raise ValueError(f"{uri} derives from nothing")
    return [derived(uri, parent, G) for parent in named]


def agent_iteration_triples(
    iteration_uri: str,
    parent_uri: str | Sequence[str],
    thought: str,
    action: str,
    arguments: Mapping[str, Any] | str,
    observation: str,
    *,
    step: int | None = None,
    candidates: Sequence[str] = (),
) -> list[Triple]:
    """One analysis step, derived from the previous step (the first from the question), or
    from each entity the step named as used (``parent_uri`` a list: SPEC.md, the agent graph).
    ``step``: its ``tg:stepNumber``; ``candidates``: the tools offered (``tg:toolCandidate``)."""
    extras = [triple(iteration_uri, TG.toolCandidate, text(name), G) for name in candidates]
    if step is not None:  # the reference's form: a plain literal
        extras.append(triple(iteration_uri, TG.stepNumber, text(str(step)), G))
    return [
        *types(iteration_uri, G, PROV.Entity, TG.Analysis),
        *_derivations(iteration_uri, parent_uri),
        triple(iteration_uri, TG.thought, text(thought), G),
        triple(iteration_uri, TG.action, text(action), G),
        triple(iteration_uri, TG.arguments, text(arguments_json(arguments)), G),
        triple(iteration_uri, TG.observation, text(observation), G),
        triple(iteration_uri, RDF.type, TG.ToolUse, G),
        label(iteration_uri, analysis_label(action)),  # the reference's
        *extras,
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


def agent_call_triples(
    call_uri: str,
    iteration_uri: str,
    action: str,
    arguments: Mapping[str, Any] | str,
    observation: str,
) -> list[Triple]:
    """One of several tools a step called at once (``…/i{n}/c{k}``, beside SPEC's analysis,
    which keeps them all): the tool use, derived from its step, with its action and arguments,
    and its Observation ``…/c{k}/observation``, derived from the call and from the step (the
    step is what TrustGraph's tools walk), holding the call's result as ``tg:observation``."""
    seen = agent_observation_uri(call_uri)
    return [
        *types(call_uri, G, PROV.Entity, TG.ToolUse),
        label(call_uri, "Tool use"),
        derived(call_uri, iteration_uri, G),
        triple(call_uri, TG.action, text(action), G),
        triple(call_uri, TG.arguments, text(arguments_json(arguments)), G),
        *types(seen, G, PROV.Entity, TG.Observation),
        label(seen, "Observation"),
        derived(seen, call_uri, G),
        derived(seen, iteration_uri, G),
        triple(seen, TG.observation, text(observation), G),
        triple(seen, TG.document, IriTerm(i=answer_document_uri(seen)), G),
    ]


def agent_final_triples(
    final_uri: str,
    parent_uri: str | Sequence[str],
    answer: str,
    reason: TerminationReason | None = None,
) -> list[Triple]:
    """The conclusion, derived from the last analysis (or the question if none), or from each
    entity the answering step named as used; ``reason``: its ``tg:terminationReason``."""
    ended = [] if reason is None else [triple(final_uri, TG.terminationReason, text(reason), G)]
    return [
        *types(final_uri, G, PROV.Entity, TG.Conclusion),
        *_derivations(final_uri, parent_uri),
        triple(final_uri, TG.answer, text(answer), G),
        *answer_extras(final_uri, "Conclusion"),
        *ended,
    ]


def agent_error_triples(
    final_uri: str, parent_uri: str, message: str, error_type: str | None = None
) -> list[Triple]:
    """The conclusion of a run that failed after it began (docs/provenance.md): derived from
    the last analysis (or the question), ``tg:terminationReason`` "error", the reason as
    ``tg:error`` and the error's type (``llm-error``, ``timeout``, ``no-data``) as
    ``tg:errorType`` (ours); no ``tg:answer`` (there is none) and not a ``tg:Answer``. The
    question keeps its own ``tg:error`` (SPEC's failure form)."""
    typed = [] if error_type is None else [triple(final_uri, TG.errorType, text(error_type), G)]
    return [
        *types(final_uri, G, PROV.Entity, TG.Conclusion),
        derived(final_uri, parent_uri, G),
        label(final_uri, "Conclusion"),
        triple(final_uri, TG.terminationReason, text(FAILED_RUN), G),
        triple(final_uri, TG.error, text(message), G),
        *typed,
    ]
