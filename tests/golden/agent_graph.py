"""A golden agent trace that is a graph (SPEC.md, the agent graph), built with the real
provenance builders: step 2 calls two tools at once, step 3 uses only step 1's observation,
and the answer uses only step 3's — so step 2 is a dead end the answer does not rely on."""

from __future__ import annotations

from tests.support.store import msg
from trustgraph_base.provenance import (
    agent_call_triples,
    agent_final_triples,
    agent_iteration_triples,
    agent_observation_triples,
    agent_session_triples,
    uris,
)
from trustgraph_base.rdf.terms import Triple
from trustgraph_base.schema import Triples

GRAPH = uris.agent_session_uri("golden-graph")
TOOLS = ("text-completion", "document-query")
FAILED = "Error: tool 'document-query' failed: the document index is unavailable [no-index]."


def agent_graph() -> list[Triple]:
    i1, i2, i3 = (uris.agent_iteration_uri(GRAPH, n) for n in (1, 2, 3))
    seen1 = uris.agent_observation_uri(i1)
    out = agent_session_triples(GRAPH, "Who chases the fox?", "2026-01-01T10:00:09.000Z")
    ask = {"question": "Who chases the fox?"}
    out += agent_iteration_triples(
        i1, GRAPH, "Ask the model first.", "text-completion", ask, "The cat.",
        step=1, candidates=TOOLS,
    )  # fmt: skip
    out += agent_observation_triples(seen1, i1)
    both = (
        '[{"action": "text-completion", "arguments": {"question": "Is that so?"}}, '
        '{"action": "document-query", "arguments": {"question": "Who chases the fox?"}}]'
    )
    out += agent_iteration_triples(
        i2, i1, "Check it two ways at once.", "text-completion, document-query", both,
        f"[c1] text-completion: Perhaps.\n[c2] document-query: {FAILED}", step=2, candidates=TOOLS,
    )  # fmt: skip
    out += agent_call_triples(
        uris.agent_call_uri(i2, 1), i2, "text-completion", {"question": "Is that so?"}, "Perhaps."
    )
    out += agent_call_triples(uris.agent_call_uri(i2, 2), i2, "document-query", ask, FAILED)
    out += agent_iteration_triples(
        i3, [seen1], "Neither check helped: go back to the first answer.", "text-completion",
        {"question": "Say who chases the fox, in one line."}, "The cat chases the fox.",
        step=3, candidates=TOOLS,
    )  # fmt: skip
    out += agent_observation_triples(uris.agent_observation_uri(i3), i3)
    out += agent_final_triples(
        uris.agent_final_uri(GRAPH), [uris.agent_observation_uri(i3)], "The cat.", "final-answer"
    )
    return out


def graph_batch(user: str = "trustgraph") -> Triples:
    """The trace as one message for the store."""
    return msg(agent_graph(), "agent-graph", user)
