"""Two agent traces made with the reference's own builders, as its ReAct agent chains them.

Run ONLY with the official client's python (``trustgraph-base`` 2.11.1 is installed there),
never imported by our code or tests (tests/integration/test_official_client.py runs it):
prints ``{"traces": {name: session URI}, "triples": [[s, p, o], ...]}``, each term as
reference_build.py prints it.

- ``linear``: two steps whose tools ran no traced flow: question ← analysis 1 ←
  observation 1 ← analysis 2 ← observation 2 ← conclusion (the reference derives each
  analysis and the conclusion from the observation before it).
- ``sub-trace``: the same, but step 1's tool ran GraphRAG: its question derives from the
  analysis that called it (``parent_uri``) and the step's observation from the sub-trace's
  synthesis (the reference's agent: "derive from last sub-trace entity if available").
"""

# mypy: ignore-errors
from __future__ import annotations

import json

from reference_build import _term  # beside this script, on its path when run
from trustgraph import provenance as ref
from trustgraph.provenance import uris as ref_uris
from trustgraph.schema import IRI, Term

TIME = "2026-12-05T07:00:00Z"


def graph_rag(session: str, parent: str) -> tuple[list, str]:
    """A GraphRAG sub-trace called from ``parent``, and its synthesis."""
    q, ground = ref_uris.question_uri(session), ref_uris.grounding_uri(session)
    exp, focus = ref_uris.exploration_uri(session), ref_uris.focus_uri(session)
    synth = ref_uris.synthesis_uri(session)
    edge = tuple(
        Term(type=IRI, iri=f"urn:trustgraph:{x}")
        for x in ("entity:paris", "rel:is_the_capital_of", "entity:france")
    )
    return [
        *ref.question_triples(q, "capital of France?", TIME, parent_uri=parent),
        *ref.grounding_triples(ground, q, ["capital", "France"]),
        *ref.exploration_triples(exp, ground, 1),
        *ref.focus_triples(focus, exp, [{"edge": edge, "reasoning": "names it"}], session),
        *ref.synthesis_triples(synth, focus, f"{synth}/document"),
    ], synth


def agent(session: str, sub: bool) -> list:
    q = ref_uris.agent_session_uri(session)
    out = [*ref.agent_session_triples(q, "What is the capital of France?", TIME)]
    previous = None
    for n, action in enumerate(("knowledge-query", "text-completion"), start=1):
        it, seen = (
            ref_uris.agent_iteration_uri(session, n),
            ref_uris.agent_observation_uri(session, n),
        )
        out += ref.agent_iteration_triples(
            it, question_uri=None if previous else q, previous_uri=previous, action=action,
            arguments={"question": "capital of France?"}, step_number=n,
        )  # fmt: skip
        made_by = it
        if sub and n == 1:
            triples, made_by = graph_rag(f"{session}-rag", it)
            out += triples
        out += ref.agent_observation_triples(seen, made_by, f"{seen}/document")
        previous = seen
    final = ref_uris.agent_final_uri(session)
    out += ref.agent_final_triples(
        final, previous_uri=previous, document_id=f"{final}/document",
        termination_reason="final-answer",
    )  # fmt: skip
    return out


def main() -> None:
    sessions = {"linear": "ref-linear", "sub-trace": "ref-subtrace"}
    triples = agent(sessions["linear"], False) + agent(sessions["sub-trace"], True)
    print(
        json.dumps(
            {
                "traces": {k: ref_uris.agent_session_uri(s) for k, s in sessions.items()},
                "triples": [[_term(t.s), _term(t.p), _term(t.o)] for t in triples],
            }
        )
    )


if __name__ == "__main__":
    main()
