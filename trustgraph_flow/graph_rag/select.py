"""The LLM's edge selection: its prompt, its reply schema and the validation of the reply."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, field_validator, model_validator

from trustgraph_base.provenance import TG, SelectedEdge
from trustgraph_base.provenance.uris import focus_edge_uri
from trustgraph_base.rdf.terms import IriTerm, LiteralTerm, Triple, TripleTerm
from trustgraph_flow.graph_rag.subgraph import Subgraph
from trustgraph_flow.llm.hollow_labels import hollow
from trustgraph_flow.structured import BadReply, EdgeList, schema_of, validate

SELECT_SYSTEM = (
    "You choose which knowledge-graph edges are needed to answer a question. Reply with "
    'only JSON like {"edges": [{"id": "e1", "reasoning": "why this edge matters"}]}, using '
    "ids from the list given, most important first."
)
ANSWER_SYSTEM = (
    "You answer questions using only the knowledge-graph facts given. If they do not "
    "contain the answer, say so. Be concise."
)
NO_REASON = "(no reason given)"
MAX_REASON = 200  # the schema's maxLength for a reason
MAX_SELECT_TOKENS = 1024


class MalformedSelection(ValueError):
    """The LLM's selection is not a JSON list of objects with an ``id``."""


class Pick(BaseModel):
    """One selected edge: its id in the prompt's list and why it matters."""

    model_config = ConfigDict(extra="ignore", frozen=True)
    id: str
    reasoning: str = ""

    @field_validator("id", mode="before")
    @classmethod
    def _id(cls, value: Any) -> Any:
        return str(value) if isinstance(value, int) else value

    @field_validator("reasoning", mode="before")
    @classmethod
    def _reason(cls, value: Any) -> Any:
        return value if isinstance(value, str) else ""


class Selection(EdgeList):
    """A ``graph-rag-select`` reply: ``{"edges": [...]}`` (a bare list, or ``{"selected": [...]}``,
    is accepted too)."""

    edges: list[Pick]

    @model_validator(mode="before")
    @classmethod
    def _selected(cls, value: Any) -> Any:
        if isinstance(value, dict) and "edges" not in value and "selected" in value:
            return {"edges": value["selected"]}
        return value


def select_schema(count: int, limit: int) -> dict[str, Any]:
    """The reply schema for ``count`` edges: ids limited to ``e1…e{count}``, at most ``limit``."""
    schema = schema_of(Selection, max_length=MAX_REASON)
    edges = schema["properties"]["edges"]
    edges["maxItems"] = limit
    edges["items"]["properties"]["id"] = {"type": "string", "enum": edge_ids(count)}
    return schema


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
    """The chosen edges of a reply text (see ``chosen_edges``)."""
    try:
        selection = validate(text, Selection)
    except BadReply as exc:
        raise MalformedSelection(f"not a list of {{id, reasoning}}: {exc}") from None
    return chosen_edges(selection, graph, limit)


def chosen_edges(selection: Selection, graph: Subgraph, limit: int) -> list[SelectedEdge]:
    """The chosen edges in the LLM's order; unknown or repeated ids are ignored, and so are
    edges that name nothing (``names_nothing``)."""
    by_id = dict(zip(edge_ids(len(graph.edges)), graph.edges, strict=True))
    chosen: dict[str, SelectedEdge] = {}
    for pick in selection.edges:
        edge = by_id.get(pick.id)
        if edge is None or pick.id in chosen or names_nothing(graph, edge):
            continue
        reason = pick.reasoning.strip() or NO_REASON
        chosen[pick.id] = SelectedEdge(edge.s, edge.p, edge.o, reason)
        if len(chosen) >= limit:
            break
    return list(chosen.values())


def names_nothing(graph: Subgraph, edge: Triple) -> bool:
    """Whether an edge's subject, or its object when not a value, names nothing ("it",
    "I’ve", "As I", a subject "1998": ``llm/hollow_labels``): junk whoever extracted it, the
    offline engine or an LLM, and no evidence whoever chose it."""
    if hollow(graph.label(edge.s), subject=True):
        return True
    return not isinstance(edge.o, LiteralTerm) and hollow(graph.label(edge.o))


def answer_variables(
    question: str,
    graph: Subgraph,
    edges: list[SelectedEdge],
    quotes: list[str] | None = None,
    excerpts: list[str] | None = None,
    passages: list[str] | None = None,
) -> dict[str, Any]:
    """``graph-rag-answer`` variables: the selected edges by label, each with the sentences
    it was read from (``quote``) and its chunks (``excerpt``) when given (the prompt shows
    the labels; the offline engine reads the rest), and the texts of the passages nearest the
    question that gave no edge (``passages``, numbered after the edges), when there are any."""
    facts: list[dict[str, str]] = []
    for n, e in enumerate(edges):
        fact = labelled(graph, Triple(s=e.s, p=e.p, o=e.o))
        if quotes is not None and excerpts is not None:
            fact.update(quote=quotes[n], excerpt=excerpts[n])
        facts.append(fact)
    out: dict[str, Any] = {"question": question, "edges": facts}
    if passages:
        out["passages"] = list(passages)
    return out


def fact_lines(variables: dict[str, Any]) -> str:
    """The numbered facts of ``graph-rag-answer``: each edge ``[n] s p o``, then each passage
    ``[n] its text`` on one line (the numbers the answer cites)."""
    edges = variables["edges"]
    lines = [f"[{n}] {e['s']} {e['p']} {e['o']}" for n, e in enumerate(edges, start=1)]
    passages = variables.get("passages") or []
    lines += [f"[{n}] {' '.join(str(t).split())}" for n, t in enumerate(passages, len(edges) + 1)]
    return "\n".join(lines)


def render_answer(variables: dict[str, Any]) -> str:
    facts = fact_lines(variables)
    return "Facts:\n" + facts + f"\n\nQuestion: {variables['question']}\n\nAnswer:"


def recorded_edges(focus: list[Triple], question_uri: str) -> list[SelectedEdge]:
    """The edges a focus stage already recorded selected (a rerun of a run cut short after
    its focus goes on with these, not with a new selection), in order ``e1``, ``e2``, …"""
    edge: dict[str, TripleTerm] = {}
    reason: dict[str, str] = {}
    for t in focus:
        if t.p == TG.edge and isinstance(t.o, TripleTerm):
            edge[t.s.i if isinstance(t.s, IriTerm) else ""] = t.o
        elif t.p == TG.reasoning and isinstance(t.o, LiteralTerm):
            reason[t.s.i if isinstance(t.s, IriTerm) else ""] = t.o.v
    out: list[SelectedEdge] = []
    while (found := edge.get(focus_edge_uri(question_uri, len(out) + 1))) is not None:
        uri = focus_edge_uri(question_uri, len(out) + 1)
        out.append(SelectedEdge(found.tr.s, found.tr.p, found.tr.o, reason.get(uri, "")))
    return out
