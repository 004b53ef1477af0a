"""The extraction tests' end-to-end check (issue 29, "junk edges no longer show up as
evidence"): a text loaded with tg-load-document, the labels tg-query-triples shows, and the
edges a GraphRAG answer cites; and the graph's edges as labels (``loaded_edges``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.support.stack import Stack
from trustgraph_base.provenance import RDFS


async def check_never_read_nor_cited(
    stack: Stack, path: Path, text: str, prose: set[str], junk: set[str], question: str
) -> None:
    """``text`` loaded from ``path``: the graph's labels (lower case) hold every one of
    ``prose`` and none of ``junk``, and GraphRAG asked ``question`` cites no edge naming one."""
    path.write_text(text)
    loaded = await stack.cli("tg-load-document", str(path))
    assert loaded.code == 0, loaded.stderr

    shown = await stack.cli("tg-query-triples", "-p", RDFS.label.i, "-g", "", "--format", "json")
    assert shown.code == 0, shown.stderr
    labels = {str(t["o"].get("v", "")).lower() for t in json.loads(shown.stdout)}
    assert prose <= labels, labels  # its prose is read
    assert not labels & junk, labels & junk

    done = await stack.cli("tg-invoke-graph-rag", "--no-streaming", "-q", question)
    assert done.code == 0, done.stderr
    trace = done.stderr.strip().splitlines()[-1].removeprefix("trace: ")
    shown = await stack.cli("tg-show-explain-trace", trace, "--format", "json")
    assert shown.code == 0, shown.stderr
    edges = json.loads(shown.stdout)["edges"]
    named = {str(e[f"{k}_label"] or "").lower() for e in edges for k in "so"}
    assert not named & junk, edges


def _key(term: dict[str, Any]) -> str:
    return str(term.get("i") or term.get("v") or "")


def _named(term: dict[str, Any], label: dict[str, str]) -> str:
    """An entity's label, or a literal's value ("8x8 group" is a value: it opens with a digit)."""
    return label.get(_key(term), "") if "i" in term else str(term.get("v", ""))


async def loaded_edges(stack: Stack, path: Path, *options: str) -> set[tuple[str, str, str]]:
    """The file at ``path`` loaded with tg-load-document (and ``options``): the graph's edges
    as tg-query-triples shows them, (subject, predicate, object) labels, the subject's and
    object's in lower case."""
    loaded = await stack.cli("tg-load-document", str(path), *options)
    assert loaded.code == 0, loaded.stderr
    shown = await stack.cli("tg-query-triples", "-g", "", "--format", "json")
    assert shown.code == 0, shown.stderr
    found = json.loads(shown.stdout)
    label = {_key(t["s"]): str(t["o"].get("v", "")) for t in found if _key(t["p"]) == RDFS.label.i}
    return {
        (label[_key(t["s"])].lower(), label[_key(t["p"])], _named(t["o"], label).lower())
        for t in found
        if all(_key(t[k]) in label for k in "sp") and _key(t["p"]) != RDFS.label.i
    }
