"""Lineage commands end to end: the real pipeline loads two documents, real services answer
questions, then the lineage commands run against the gateway as a user would run them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.golden.golden import invoke
from tests.support.poll import eventually
from tests.support.processors import EVERY
from tests.support.stack import CliResult, Stack, stack_fixture
from tests.support.traces import (
    AGENT,
    DOC_RAG,
    GRAPH_RAG,
    ask,
    load,
    loaded_and_answered,
    settled,
)

PARIS = (
    "<urn:trustgraph:entity:paris> <urn:trustgraph:rel:is_the_capital_of> "
    "<urn:trustgraph:entity:france>"
)

stack = stack_fixture(EVERY)


def as_json(result: CliResult) -> Any:
    assert result.code == 0, result.stderr
    return json.loads(result.stdout)


async def test_source_usage_and_hierarchy_counts(stack: Stack) -> None:
    url = stack.url
    facts, capitals = await loaded_and_answered(url)

    edge = as_json(await invoke(url, "tg-show-source-usage", PARIS, "--format", "json"))
    assert edge["kind"] == "edge"
    assert [t["trace"]["id"] for t in edge["traces"]] == [GRAPH_RAG]

    page1 = as_json(await invoke(url, "tg-show-source-usage", f"{facts}/p1", "--format", "json"))
    assert [t["trace"]["id"] for t in page1["traces"]] == [AGENT, DOC_RAG, GRAPH_RAG]
    kinds = {t["trace"]["id"]: {p["kind"] for p in t["paths"]} for t in page1["traces"]}
    assert kinds == {AGENT: {"edge"}, DOC_RAG: {"chunk"}, GRAPH_RAG: {"edge"}}
    cited = {t["trace"]["id"]: any(p["cited"] for p in t["paths"]) for t in page1["traces"]}
    # The agent's GraphRAG sub-trace took an edge of page 1 from the passage nearest its
    # question (graph_rag/passages.py) but cited only the Nile edge of page 2; DocumentRAG
    # selected a chunk of page 1 (Victor Hugo's birthplace is not on it) and cited none of it.
    assert cited == {AGENT: False, DOC_RAG: False, GRAPH_RAG: True}

    # The agent's knowledge-query sub-trace selected the Nile edge of page 2.
    page2 = as_json(await invoke(url, "tg-show-source-usage", f"{facts}/p2", "--format", "json"))
    bare = facts.removeprefix("urn:trustgraph:doc:") + "/p2"  # the id it was loaded with
    assert as_json(await invoke(url, "tg-show-source-usage", bare, "--format", "json")) == page2
    agent_use = next(t for t in page2["traces"] if t["trace"]["id"] == AGENT)
    assert agent_use["paths"] and all(p["trace"] != AGENT for p in agent_use["paths"])

    whole = as_json(
        await invoke(url, "tg-show-source-usage", capitals, "-l", "1", "--format", "json")
    )
    assert len(whole["traces"]) == 1 and whole["kind"] == "document"

    table = await stack.cli("tg-show-source-usage", f"{facts}/p2", env={"COLUMNS": "200"})
    assert table.code == 0, table.stderr
    header, _, *rows = table.stdout.splitlines()
    assert header.split()[:2] == ["Session", "ID"] and "Linked through" in header
    assert any(r.startswith("lin-agent") and "via sub-trace" in r for r in rows)

    tree = await invoke(url, "tg-show-document-hierarchy", facts)
    assert tree.code == 0, tree.stderr
    assert "Used by: 2 answers" in tree.stdout  # page 1: the GraphRAG and the DocumentRAG

    diff = as_json(
        await invoke(url, "tg-diff-explain-traces", GRAPH_RAG, DOC_RAG, "--format", "json")
    )
    assert (diff["a"]["type"], diff["b"]["type"]) == ("graph-rag", "document-rag")
    assert [i["id"] for i in diff["edges"]["only_a"]] == [PARIS]
    assert {i["id"] for i in diff["documents"]["both"]} == {facts, capitals}
    assert f"{facts}/p1" in {i["id"] for i in diff["pages"]["both"]}
    assert f"{facts}/p2" in {i["id"] for i in diff["pages"]["only_b"]}
    text = await stack.cli("tg-diff-explain-traces", "lin-graph", "lin-doc", env={"COLUMNS": "200"})
    assert text.code == 0, text.stderr
    assert text.stdout.splitlines()[0] == f"A: GraphRAG {GRAPH_RAG}"
    assert "   Answer: Paris is the capital of France." in text.stdout
    assert "Edges: 0 both, 1 only A, 0 only B" in text.stdout
    assert "  only A  Paris → is the capital of → France (" in text.stdout
    agents = as_json(
        await invoke(url, "tg-diff-explain-traces", AGENT, GRAPH_RAG, "--format", "json")
    )
    assert (
        agents["edges"]["only_a"] and agents["edges"]["only_b"]
    )  # the agent's evidence: its sub-trace's
    unknown = await stack.cli("tg-diff-explain-traces", "lin-graph", "nope")
    assert unknown.code == 1 and unknown.stderr.startswith("Error: no trace 'nope' in collection")

    stem = bare.rsplit("-", 1)[0]  # world-facts: the file's name
    for bad, message in [
        (
            "urn:trustgraph:doc:nope",
            "no document, page or chunk 'urn:trustgraph:doc:nope' in collection 'default' of user 'trustgraph'.",
        ),
        (  # the file's name without the hash its default id ends with: the id is named
            f"{stem}/p2/c0",
            f"'urn:trustgraph:doc:{stem}/p2/c0' in collection 'default' of "
            f"user 'trustgraph'. Did you mean '{bare}/c0'?",
        ),
        (  # ... or by the file's name itself: its extension is not in the id
            f"{stem}.pdf/p2/c0",
            f"'urn:trustgraph:doc:{stem}.pdf/p2/c0' in collection 'default' of "
            f"user 'trustgraph'. Did you mean '{bare}/c0'?",
        ),
        ("<urn:a> <urn:b>", "malformed edge"),
        (f"{PARIS} . <urn:x> <urn:y> <urn:z>", "malformed edge"),  # two triples smuggled in one
    ]:
        refused = await stack.cli("tg-show-source-usage", bad)
        assert refused.code == 1 and message in refused.stderr, refused
        assert len(refused.stderr.strip().splitlines()) == 1


async def test_remove_document_marks_its_traces_and_leaves_the_rest(stack: Stack) -> None:
    url = stack.url
    bob_doc = await load(url, "world-facts.pdf", "-U", "bob")
    facts, capitals = await loaded_and_answered(url)
    await ask(
        url,
        "graph-rag",
        {"query": "What is the capital of France?", "user": "bob", "session_id": "bob-graph"},
    )
    bob = ["-U", "bob", "--format", "json"]
    bob_trace = await eventually(
        lambda: invoke(url, "tg-show-explain-trace", "bob-graph", *bob),
        lambda r: r.code == 0 and json.loads(r.stdout)["status"] == "complete",
    )
    assert json.loads(bob_trace.stdout)["status"] == "complete"
    bob_before = [
        await invoke(url, "tg-show-document-hierarchy", bob_doc, *bob),
        await invoke(url, "tg-show-explain-trace", "bob-graph", *bob),
    ]
    capitals_before = await invoke(url, "tg-show-document-hierarchy", capitals, "--format", "json")

    removed = await stack.cli("tg-remove-document", facts, "--reason", "takedown request 114")
    assert removed.code == 0, removed.stderr
    assert removed.stdout.startswith(f'Removed {facts} ("world-facts.pdf"): ')
    assert "Kept 3 answers that used it, marked" in removed.stdout

    text = await stack.cli("tg-show-explain-trace", GRAPH_RAG, env={"COLUMNS": "200"})
    assert text.code == 0, text.stderr
    assert "source removed on " in text.stdout and "reason: takedown request 114" in text.stdout
    view = as_json(
        await invoke(
            url, "tg-show-explain-trace", GRAPH_RAG, "--show-provenance", "--format", "json"
        )
    )
    [edge] = view["edges"]
    assert edge["removed"][0]["document"] == facts
    assert [s["document"] for s in edge["sources"]] == [capitals]  # the other source stays
    agent = as_json(await invoke(url, "tg-show-explain-trace", AGENT, "--format", "json"))
    assert agent["steps"][0]["subtraces"][0]["edges"][0]["removed"]

    gone = await stack.cli("tg-show-document-hierarchy", facts)
    assert gone.code == 1 and f"document '{facts}' was removed on " in gone.stderr
    assert "(reason: takedown request 114)" in gone.stderr, gone.stderr
    # The Nile edge went with its only document, labels and all: shown by the names its
    # entities were minted from, never as raw identifiers, with the removal beside it.
    agent_text = await stack.cli("tg-show-explain-trace", AGENT, env={"COLUMNS": "200"})
    assert "nile → flows through → cairo" in agent_text.stdout.lower(), agent_text.stdout
    assert "urn:trustgraph:entity:" not in agent_text.stdout
    assert "source removed on " in agent_text.stdout
    # An auditor following the claims sees the removal, not "(no source recorded)".
    evidence = await stack.cli("tg-show-evidence", DOC_RAG, env={"COLUMNS": "200"})
    assert evidence.code == 0, evidence.stderr
    assert "(no source recorded)" not in evidence.stdout, evidence.stdout
    assert "source removed on " in evidence.stdout and "takedown request 114" in evidence.stdout
    cited = as_json(await invoke(url, "tg-show-evidence", DOC_RAG, "--format", "json"))
    assert cited[0]["claims"][0]["evidence"][0]["removed"][0]["document"] == facts
    listed = as_json(await invoke(url, "tg-list-documents", "--format", "json"))
    assert [d["id"] for d in listed] == [capitals]
    after = await invoke(url, "tg-show-document-hierarchy", capitals, "--format", "json")
    assert after.stdout == capitals_before.stdout
    assert [
        await invoke(url, "tg-show-document-hierarchy", bob_doc, *bob),
        await invoke(url, "tg-show-explain-trace", "bob-graph", *bob),
    ] == bob_before

    # Its vectors went too: a new DocumentRAG answer retrieves only the other document's chunks.
    after_uri = "urn:trustgraph:docrag:after-removal"
    await ask(
        url,
        "document-rag",
        {"query": "Where was Victor Hugo born?", "session_id": "after-removal"},
    )
    retrieved = [c["uri"] for c in (await settled(url, after_uri))["chunks"]]
    assert retrieved and all(c.startswith(capitals) for c in retrieved), retrieved

    again = await stack.cli("tg-remove-document", facts)
    assert again.code == 1 and "no document" in again.stderr
    assert len(again.stderr.strip().splitlines()) == 1

    purged = as_json(
        await invoke(url, "tg-remove-document", capitals, "--purge-traces", "--format", "json")
    )
    assert set(purged["removal"]["purged"]) == {GRAPH_RAG, DOC_RAG, after_uri}
    traces = as_json(await invoke(url, "tg-list-explain-traces", "--format", "json"))
    assert [t["id"] for t in traces] == [AGENT]


async def test_a_failed_load_can_be_removed_and_loaded_again(stack: Stack, tmp_path: Path) -> None:
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"this is not a PDF at all")
    failed = await invoke(stack.url, "tg-load-document", str(broken), "--id", "broken")
    assert failed.code == 1
    listed = as_json(await invoke(stack.url, "tg-list-documents", "--format", "json"))
    assert [d["status"] for d in listed] == ["failed"]
    removed = await stack.cli("tg-remove-document", "broken")
    assert removed.code == 0, removed.stderr
    assert "held nothing extracted" in removed.stdout
    assert as_json(await invoke(stack.url, "tg-list-documents", "--format", "json")) == []
    good = tmp_path / "broken.txt"
    good.write_text("Paris is the capital of France.")
    again = await invoke(stack.url, "tg-load-document", str(good), "--id", "broken")
    assert again.code == 0, again.stderr
