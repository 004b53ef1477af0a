"""Where GraphRAG loses the gold place, stage by stage, on bench_answers' corpus and questions.

    python -m bench.bench_graph_stages          # counts per stage, tuned / held out
    python -m bench.bench_graph_stages -v       # and the tuned questions lost, by stage

In process, no stack (as bench_retrieval): the documents chunked as the chunker does, each
chunk's edges read by the offline extractor, the entity labels embedded (hashing) and the
question's nearest ``ENTITY_LIMIT`` taken, the subgraph walked from them as GraphRAG does
(both directions, ``MAX_PATH_LENGTH`` hops, ``TRIPLE_LIMIT`` a pattern, ``MAX_SUBGRAPH_SIZE``
edges, edges in the order they were extracted), then the offline engine's selection, an edge
of each of the ``PASSAGES`` chunks nearest the question none of whose edges was selected
(``graph_rag.passages``; bench/answers/graph_walk.py), and the answer. A gold edge is one read from the gold place with a gold answer in its labels. For
each question, the last stage it reaches:

- extracted: a gold edge exists; explored: one is in the subgraph; selected: one is among
  the edges chosen; withheld: the answer cites an edge from the gold place but the offline
  claim check withholds it; cited: it cites one and is let through (bench_answers' "gold
  cited" counts both).

It also counts answers right (a gold answer in it, not an abstention) and, for a question
lost at extraction, the last stage an edge read from its gold place reached (selected,
explored or not reached). A diagnosis of stages, not a substitute for bench_answers.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from bench.answers.graph_walk import Graph, Key, build, walk, with_passages
from bench.answers.planted import gold_span
from bench.answers.questions import QUESTIONS, Question
from bench.answers.scoring import abstained, share
from bench.bench_retrieval import Chunk, _gold, chunks_of
from bench.summary import summary
from trustgraph_base import bounds
from trustgraph_flow.embeddings.processor import Settings, open_embedder
from trustgraph_flow.graph_rag.evidence import with_context
from trustgraph_flow.graph_rag.passages import PASSAGES
from trustgraph_flow.llm import offline
from trustgraph_flow.llm.excerpts import anaphoric
from trustgraph_flow.verify.heuristic import relevant, verify_claims


def _default(bound: bounds.Bound) -> int:
    assert bound.default is not None
    return bound.default


ENTITY_LIMIT = _default(bounds.ENTITY_LIMIT)
MAX_EDGES_SELECTED = _default(bounds.MAX_EDGES_SELECTED)
STAGES = ("not extracted", "extracted", "explored", "selected", "withheld", "cited")


def _fact(graph: Graph, chunks: list[Chunk], k: Key) -> dict[str, str]:
    """An edge as GraphRAG gives it to the answer: labels, quotes and chunks."""
    quote = " ".join(dict.fromkeys(graph.quotes[k]))
    excerpt = " ".join(chunks[c][4] for c in dict.fromkeys(graph.sources[k]))
    return {"s": k[0], "p": k[1], "o": k[2], "quote": quote, "excerpt": excerpt}


def _evidence(graph: Graph, chunks: list[Chunk], k: Key) -> str:
    """An edge's text as GraphRAG checks its claims against it (``graph_rag.evidence``): its
    sentences, then the chunks they are in."""
    said = [
        with_context(quote, chunks[c][4], (k[0], k[2])) if anaphoric(quote) else quote
        for quote, c in zip(graph.quotes[k], graph.sources[k], strict=True)
    ]
    excerpt = " ".join(chunks[c][4] for c in dict.fromkeys(graph.sources[k]))
    return " ".join([*dict.fromkeys(said), excerpt])


def _verified(
    q: Question, graph: Graph, chunks: list[Chunk], chosen: list[Key], reply: dict[str, Any]
) -> bool:
    """Whether the offline check lets the answer through (some claim supported by what it
    cites, and what it cites speaks of the question)."""
    claims = reply.get("claims") or []
    texts = [[_evidence(graph, chunks, chosen[n - 1]) for n in c["cited"]] for c in claims]
    verdicts = verify_claims([c["text"] for c in claims], texts)
    seen = [t for ts in texts for t in ts]
    return any(v.verdict == "supported" for v in verdicts) and relevant(q.text, seen)


def stage(
    q: Question,
    graph: Graph,
    chunks: list[Chunk],
    span: tuple[int, int] | None,
    near: list[str],
    passages: list[int],
) -> tuple[str, str, str]:
    """The last stage the question reaches, the answer, and the last stage at which an edge
    read from the gold place (with or without a gold answer) was there: "explored",
    "selected" or "" (the chunk the answer could read when the edge was not made)."""

    def on_gold(k: Key) -> bool:
        return any(_gold(chunks[c], q, span) for c in graph.sources[k])

    def golden(k: Key) -> bool:
        return on_gold(k) and any(g.casefold() in " ".join(k).casefold() for g in q.gold)

    sub = walk(graph, near)
    ids = {f"e{n}": k for n, k in enumerate(sub, 1)}
    edges = [{"id": i, "s": k[0], "p": k[1], "o": k[2]} for i, k in ids.items()]
    picks = json.loads(
        offline.select_edges({"question": q.text, "edges": edges, "max": MAX_EDGES_SELECTED}, True)
    )["edges"]
    chosen = with_passages(graph, sub, [ids[p["id"]] for p in picks], passages)
    reply = json.loads(
        offline.graph_answer(
            {"question": q.text, "edges": [_fact(graph, chunks, k) for k in chosen]}, True
        )
    )
    cited = [chosen[n - 1] for n in reply["cited"]]
    place = next(
        (n for n, g in (("selected", chosen), ("explored", sub)) if any(map(on_gold, g))), ""
    )
    if any(on_gold(k) for k in cited):
        verified = _verified(q, graph, chunks, chosen, reply)
        return ("cited" if verified else "withheld"), reply["answer"], place
    for name, group in (("selected", chosen), ("explored", sub), ("extracted", graph.edges)):
        if any(golden(k) for k in group):
            return name, reply["answer"], place
    return "not extracted", reply["answer"], place


def reach(place: Counter[str]) -> str:
    """How far the chunks of the questions lost at extraction got: selected (an edge read
    from them was chosen), explored or not reached."""
    return ", ".join(f"{k} {place[k]}" for k in ("selected", "explored", "not reached"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-v", "--verbose", action="store_true", help="list the tuned losses")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-graph-stages-") as tmp:
        chunks, texts = chunks_of(Path(tmp))
    graph = build(chunks)
    embedder = open_embedder(Settings())
    labels = np.asarray(embedder.embed(graph.entities))
    questions = [q for q in QUESTIONS if q.doc in {c[0] for c in chunks}]
    asked = np.asarray(embedder.embed([q.text for q in questions]))
    passages = np.asarray(embedder.embed([c[4] for c in chunks])) @ asked.T
    print(f"{len(graph.edges)} edges, {len(graph.entities)} entities, {len(chunks)} chunks")
    counts: dict[bool, Counter[str]] = {False: Counter(), True: Counter()}
    right: Counter[bool] = Counter()
    place: dict[bool, Counter[str]] = {False: Counter(), True: Counter()}
    for i, q in enumerate(questions):
        span = None if q.page is not None else gold_span(texts[q.doc], q)
        top = np.argsort(-(labels @ asked[i]), kind="stable")[:ENTITY_LIMIT]
        nearest = [int(c) for c in np.argsort(-passages[:, i], kind="stable")[:PASSAGES]]
        names = [graph.entities[j] for j in top]
        reached, answer, near = stage(q, graph, chunks, span, names, nearest)
        counts[q.held_out][reached] += 1
        right[q.held_out] += not abstained(answer, None) and any(
            g.casefold() in answer.casefold() for g in q.gold
        )
        if reached == "not extracted":
            place[q.held_out][near or "not reached"] += 1
        if args.verbose and not q.held_out and reached != "cited":
            print(f"    {reached:13} {q.text!r} -> {answer[:120]!r}")
    for held, part in ((False, "tuned"), (True, "held-out")):
        n = sum(counts[held].values())
        row = "  ".join(f"{s} {counts[held][s]}" for s in STAGES)
        print(f"{part:8} ({n}): {row}")
        print(
            f"{'':8} right {right[held]}/{n}; not extracted, the gold place's chunk: {reach(place[held])}"
        )
        summary(f"graph stages: {part} cited", share(counts[held]["cited"], n), "-", row)
        summary(f"graph stages: {part} right", share(right[held], n), "-", "offline answer")
    whole = counts[False] + counts[True]
    print("whole   : " + "  ".join(f"{s} {whole[s]}" for s in STAGES))


if __name__ == "__main__":
    main()
