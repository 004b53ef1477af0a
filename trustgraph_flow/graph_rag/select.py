"""The LLM's edge selection: its prompt and the validation of its JSON answer."""

from __future__ import annotations

import json
import re
from typing import Any

from trustgraph_base.provenance import SelectedEdge
from trustgraph_base.rdf.terms import Triple
from trustgraph_flow.graph_rag.subgraph import Subgraph

SELECT_SYSTEM = (
    "You choose which knowledge-graph edges are needed to answer a question. Reply with "
    'only a JSON list like [{"id": "e1", "reasoning": "why this edge matters"}], using '
    "ids from the list given, most important first."
)
ANSWER_SYSTEM = (
    "You answer questions using only the knowledge-graph facts given. If they do not "
    "contain the answer, say so. Be concise."
)
NO_REASON = "(no reason given)"
_FENCE = re.compile(r"^```[a-zA-Z]*\s*|\s*```$")


class MalformedSelection(ValueError):
    """The LLM's selection is not a JSON list of objects with an ``id``."""


def edge_ids(count: int) -> list[str]:
    return [f"e{n}" for n in range(1, count + 1)]


def labelled(graph: Subgraph, edge: Triple) -> dict[str, str]:
    return {"s": graph.label(edge.s), "p": graph.label(edge.p), "o": graph.label(edge.o)}


def select_variables(question: str, graph: Subgraph, limit: int) -> dict[str, Any]:
    """``graph-rag-select`` variables: every edge with an id and its labels."""
    edges = [
        {"id": eid, **labelled(graph, e)}
        for eid, e in zip(edge_ids(len(graph.edges)), graph.edges, strict=True)
    ]
    return {"question": question, "edges": edges, "max": limit}


def render_select(variables: dict[str, Any]) -> str:
    lines = [f"{e['id']}: {e['s']} | {e['p']} | {e['o']}" for e in variables["edges"]]
    return (
        f"Question: {variables['question']}\n\nEdges:\n"
        + "\n".join(lines)
        + f"\n\nChoose at most {variables['max']} edges. JSON:"
    )


def parse_selection(text: str, graph: Subgraph, limit: int) -> list[SelectedEdge]:
    """The chosen edges in the LLM's order; unknown or repeated ids are ignored."""
    try:
        data = json.loads(_FENCE.sub("", text.strip()))
    except ValueError:
        raise MalformedSelection(f"not JSON: {text[:120]!r}") from None
    if isinstance(data, dict):
        data = data.get("edges", data.get("selected"))
    if not isinstance(data, list) or not all(isinstance(i, dict) and "id" in i for i in data):
        raise MalformedSelection(f"not a list of {{id, reasoning}}: {text[:120]!r}")
    by_id = dict(zip(edge_ids(len(graph.edges)), graph.edges, strict=True))
    chosen: dict[str, SelectedEdge] = {}
    for item in data:
        eid = str(item["id"])
        edge = by_id.get(eid)
        if edge is None or eid in chosen:
            continue
        reason = item.get("reasoning")
        reason = reason.strip() if isinstance(reason, str) and reason.strip() else NO_REASON
        chosen[eid] = SelectedEdge(edge.s, edge.p, edge.o, reason)
        if len(chosen) >= limit:
            break
    return list(chosen.values())


def answer_variables(question: str, graph: Subgraph, edges: list[SelectedEdge]) -> dict[str, Any]:
    """``graph-rag-answer`` variables: the selected edges by label."""
    facts = [labelled(graph, Triple(s=e.s, p=e.p, o=e.o)) for e in edges]
    return {"question": question, "edges": facts}


def render_answer(variables: dict[str, Any]) -> str:
    lines = [f"- {e['s']} {e['p']} {e['o']}" for e in variables["edges"]]
    return "Facts:\n" + "\n".join(lines) + f"\n\nQuestion: {variables['question']}\n\nAnswer:"
