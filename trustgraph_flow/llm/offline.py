"""The deterministic offline engine: answers every prompt type from its ``variables``.

No model and no network: extraction is heuristic, selection and answers are extractive
word-overlap, and the agent follows a fixed ReAct policy. Every function is pure.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from trustgraph_flow.llm.excerpts import excerpt_pieces
from trustgraph_flow.llm.extract import extract_edges
from trustgraph_flow.llm.fact_pieces import edge_text, fact_pieces
from trustgraph_flow.llm.support import best
from trustgraph_flow.llm.text import (
    as_list,
    as_text,
    content_words,
    field,
    first_sentence,
    overlap,
    unbulleted,
    unquoted_ends,
)
from trustgraph_flow.verify.judge import PROMPT_TYPE, judge_offline

MODEL = "offline"
DEFAULT_SELECT = 5
FALLBACK_PICKS = 3
MAX_ANSWER_SENTENCES = 3
MAX_DOCUMENT_SENTENCES = 2
NO_GRAPH_ANSWER = "No relevant information was found in the knowledge graph."
NO_DOCUMENT_ANSWER = "No relevant information was found in the documents."
NOT_SAID = "The documents do not say: none of my tools found a supported answer to:"
# An observation containing one of these did not answer the question.
# How an observation that does not answer opens (any of its lines): read as openings, not
# anywhere in the text, or an answer about errors ("Memcheck will issue messages about
# memory errors") would count as a failed tool.
UNHELPFUL = (
    "no relevant",
    "no answer",
    "not found",
    "could not",
    "error:",  # a tool's failure (agent/calls.py)
    "(tool '",  # a tool that returned nothing
    "the documents do not say",  # a RAG answer withheld: nothing it cites supports it
    "[verification: unsupported",  # kept, but marked unsupported
    "offline engine: ",  # free text's echo of the question (``free_text``): no answer
)
TOOL_ORDER = ("knowledge-query", "document-query")


def _ranked(question: str, texts: list[str]) -> list[tuple[int, list[str]]]:
    """Indexes of ``texts`` with overlapping words, best first (ties keep input order)."""
    words = content_words(question)
    scored = [(i, overlap(words, t)) for i, t in enumerate(texts)]
    hits = [(i, w) for i, w in scored if w]
    return sorted(hits, key=lambda hit: (-len(hit[1]), hit[0]))


def _most_relevant(ranked: list[tuple[int, list[str]]]) -> list[tuple[int, list[str]]]:
    """The hits sharing more than half as many question words as the best one."""
    if not ranked:
        return []
    best = len(ranked[0][1])
    return [hit for hit in ranked if 2 * len(hit[1]) > best]


def extract(variables: dict[str, Any], structured: bool = False) -> str:
    """``extract-edges``: a JSON list of edges from ``text`` (``{"edges": [...]}`` structured)."""
    edges = [e.as_json() for e in extract_edges(as_text(variables.get("text")))]
    return json.dumps({"edges": edges} if structured else edges, ensure_ascii=False)


def select_edges(variables: dict[str, Any], structured: bool = False) -> str:
    """``graph-rag-select``: the ids of the edges sharing most words with the question
    (a list; ``{"edges": [...]}`` structured)."""
    edges = [e for e in as_list(variables.get("edges")) if isinstance(e, dict)]
    try:
        limit = max(1, int(variables.get("max", DEFAULT_SELECT)))
    except (TypeError, ValueError):
        limit = DEFAULT_SELECT
    ranked = _ranked(as_text(variables.get("question")), [edge_text(e) for e in edges])
    picks = [
        {
            "id": field(edges[i], "id"),
            "reasoning": "mentions " + ", ".join(f"'{w}'" for w in words) + " from the question",
        }
        for i, words in _most_relevant(ranked)[:limit]
    ]
    if not picks:
        picks = [
            {"id": field(e, "id"), "reasoning": "closest available edge"}
            for e in edges[: min(limit, FALLBACK_PICKS)]
        ]
    return json.dumps({"edges": picks} if structured else picks, ensure_ascii=False)


def graph_answer(variables: dict[str, Any], structured: bool = False) -> str:
    """``graph-rag-answer``: the pieces that best support an answer to the question
    (``support.best``): an edge as "S P O.", or a sentence of the chunks the edges were read
    from, or of the passages nearest the question that gave no edge (``passages``, numbered
    after the edges) (``fact_pieces``); or that the graph does not say (structured: ``{"answer",
    "cited", "claims"}`` citing those edges' numbers). An edge's ``quote`` (the sentences it
    was read from) is its context and its ``excerpt`` (the chunks) where the question's names
    may be: "Where can bicycles be hired on Skarra?" is answered by "Bicycles can be hired at
    pier", read from a guide to Skarra."""
    edges = [
        e for e in as_list(variables.get("edges")) if isinstance(e, dict) and edge_text(e).strip()
    ]
    passages = [as_text(p) for p in as_list(variables.get("passages"))]
    pieces, owner, claims, states = fact_pieces(edges, passages)
    found = best(as_text(variables.get("question")), pieces, MAX_ANSWER_SENTENCES)
    chosen: list[int] = []
    said: set[int] = set()  # what the chosen pieces state (``fact_pieces``)
    for s in found:
        if not states[s.index] & said:
            chosen.append(s.index)
            said |= states[s.index]
    if not chosen:
        return _answer([NO_GRAPH_ANSWER], [], structured)
    return _answer([claims[i] for i in chosen], [owner[i] + 1 for i in chosen], structured)


def _answer(claims: list[str], cited: list[int], structured: bool) -> str:
    """An answer of sentences (claims), the n-th written from evidence ``cited[n]``: plain
    text, or ``{"answer", "cited", "claims"}`` structured (the 1-based numbers of the
    evidence, ascending; each claim with the one it was written from)."""
    claims = [unquoted_ends(unbulleted(c)) for c in claims]
    text = " ".join(claims)
    if not structured:
        return text
    reply = {
        "answer": text,
        "cited": sorted(set(cited)),
        "claims": [{"text": c, "cited": [n]} for c, n in zip(claims, cited, strict=False)],
    }
    return json.dumps(reply, ensure_ascii=False)


def document_answer(variables: dict[str, Any], structured: bool = False) -> str:
    """``document-rag-answer``: the sentence of the excerpts that best supports an answer to
    the question, and another only if it adds to it (``support.best``), in document order;
    or that the documents do not say (structured: ``{"answer", "cited", "claims"}`` citing
    the excerpts they come from)."""
    chunks = [as_text(c) for c in as_list(variables.get("chunks"))]
    pieces, source = excerpt_pieces(chunks)
    chosen = sorted(
        s.index for s in best(as_text(variables.get("question")), pieces, MAX_DOCUMENT_SENTENCES)
    )
    if not chosen:
        return _answer([NO_DOCUMENT_ANSWER], [], structured)
    return _answer([pieces[i].text for i in chosen], [source[i] for i in chosen], structured)


def _useful(observation: str) -> bool:
    lines = [line.strip().lower() for line in observation.splitlines()]
    return any(lines) and not any(line.startswith(UNHELPFUL) for line in lines)


def _action(tool: str, question: str, thought: str, structured: bool) -> str:
    if structured:
        step = {"action": tool, "arguments": {"question": question}}
        return json.dumps({"thought": thought, "next": step}, ensure_ascii=False)
    args = json.dumps({"question": question}, ensure_ascii=False)
    return f"Thought: {thought}\nAction: {tool}\nArgs: {args}"


def _final(thought: str, answer: str, structured: bool) -> str:
    if structured:
        step = {"action": "final-answer", "answer": answer}
        return json.dumps({"thought": thought, "next": step}, ensure_ascii=False)
    return f"Thought: {thought}\nFinal Answer: {answer}"


def agent_step(variables: dict[str, Any], structured: bool = False) -> str:
    """``agent-react``: the next step under a fixed look-it-up policy (ReAct text, or the
    JSON step ``{"thought", "next": {"action", "arguments" | "answer"}}`` structured)."""
    question = as_text(variables.get("question"))
    names = [field(t, "name") for t in as_list(variables.get("tools")) if field(t, "name")]
    history = [h for h in as_list(variables.get("history")) if isinstance(h, dict)]
    if history:
        observation = field(history[-1], "observation")
        if _useful(observation):
            return _final("The observation answers the question.", observation.strip(), structured)
    if structured and variables.get("final"):  # the last step: only an answer is allowed
        useful = [field(h, "observation") for h in history if _useful(field(h, "observation"))]
        if useful:
            return _final(
                "This is my last step; an earlier observation answers it.",
                useful[-1].strip(),
                structured,
            )
        return _final(
            "This is my last step and no tool found the answer.",
            f"{NOT_SAID} {question}",
            structured,
        )
    tried = {field(h, "action") for h in history}
    preferred = [n for n in TOOL_ORDER if n in names] + [n for n in names if n not in TOOL_ORDER]
    untried = [n for n in preferred if n not in tried]
    if untried and not history:
        return _action(
            untried[0],
            question,
            "I should look this up in the knowledge graph."
            if untried[0] == "knowledge-query"
            else f"I should look this up with {untried[0]}.",
            structured,
        )
    if untried:
        return _action(
            untried[0], question, f"That did not answer it; I should try {untried[0]}.", structured
        )
    return _final(
        "None of my tools found the answer.",
        f"{NOT_SAID} {question}",
        structured,
    )


def free_text(variables: dict[str, Any], prompt: str = "") -> str:
    """``text``: a deterministic echo of the question's (or prompt's) first sentence."""
    source = as_text(variables.get("question")) or prompt
    return "Offline engine: " + (first_sentence(source) or "(empty prompt)")


ENGINES: dict[str, Callable[[dict[str, Any], bool], str]] = {
    "extract-edges": extract,
    "graph-rag-select": select_edges,
    "graph-rag-answer": graph_answer,
    "document-rag-answer": document_answer,
    "agent-react": agent_step,
    PROMPT_TYPE: judge_offline,  # verify-claims: the deterministic check (verify/heuristic.py)
}


def complete(
    prompt_type: str, variables: dict[str, Any], prompt: str = "", *, structured: bool = False
) -> str:
    """The offline completion for one request; unknown prompt types get free text.

    ``structured`` (the request carried a response schema): the reply is the JSON object
    that schema describes, as a server enforcing it would send.
    """
    engine = ENGINES.get(prompt_type)
    return engine(variables, structured) if engine is not None else free_text(variables, prompt)
