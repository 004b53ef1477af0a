"""tg-list-explain-traces and tg-show-explain-trace through the real gateway and store."""

from __future__ import annotations

import json
from pathlib import Path

from tests.golden import agent_graph, corpus
from tests.golden.golden import ENV, check, invoke
from tests.support.poll import eventually
from tests.support.stack import CliResult, Stack
from trustgraph_base.messaging import TRIPLES_STORE
from trustgraph_base.provenance import GRAPH_RETRIEVAL, agent_session_triples, interrupted_triples
from trustgraph_base.schema import Metadata, Triples
from trustgraph_base.schema.explain import TraceView
from trustgraph_base.wire import from_json
from trustgraph_flow.store.processor import proc as store


def lines(result: CliResult) -> list[str]:
    return result.stdout.splitlines()


async def loaded(stack: Stack) -> None:
    """Publish the golden corpus and wait until the store lists every trace of it."""
    for message in corpus.batches():
        await stack.publish(TRIPLES_STORE, message)
    listed = await eventually(
        lambda: invoke(stack.url, "tg-list-explain-traces", "--format", "json"),
        lambda r: r.code == 0 and len(json.loads(r.stdout)) == 5,
    )
    assert len(json.loads(listed.stdout)) == 5, listed
    agent = await eventually(  # the last batches may still be landing after the list is complete
        lambda: invoke(stack.url, "tg-show-explain-trace", corpus.AGENT, "--format", "json"),
        lambda r: r.code == 0 and json.loads(r.stdout)["answer"] is not None,
    )
    assert json.loads(agent.stdout)["answer"] == corpus.LONG_ANSWER


async def test_list_and_show_golden(pulsar_url: str, prefix: str, tmp_path: Path) -> None:
    async with Stack(pulsar_url, prefix, [store], data_dir=tmp_path) as stack:
        await loaded(stack)
        listed = await stack.cli("tg-list-explain-traces", env=ENV)  # the real console script
        assert listed.code == 0, listed.stderr
        check("list_traces.txt", listed.stdout)
        as_json = await invoke(stack.url, "tg-list-explain-traces", "--format", "json")
        rows = json.loads(as_json.stdout)
        assert [r["id"] for r in rows] == [
            corpus.FAILED,
            corpus.RUNNING,
            corpus.AGENT,
            corpus.DOC_RAG,
            corpus.GRAPH_RAG,
        ]
        assert corpus.SUB not in as_json.stdout  # sub-traces are not top-level
        assert all(list(r) == ["id", "type", "question", "time", "status"] for r in rows)
        limited = await invoke(
            stack.url, "tg-list-explain-traces", "--limit", "2", "--format", "json"
        )
        assert [r["id"] for r in json.loads(limited.stdout)] == [corpus.FAILED, corpus.RUNNING]

        for stem, trace_id in corpus.GOLDEN_TRACES.items():
            text = await invoke(stack.url, "tg-show-explain-trace", trace_id, "--max-answer", "120")
            assert text.code == 0, text.stderr
            check(f"{stem}.txt", text.stdout)
            prov = await invoke(
                stack.url,
                "tg-show-explain-trace",
                trace_id,
                "--show-provenance",
                "--format",
                "json",
            )
            check(f"{stem}.json", prov.stdout)
            view = from_json(TraceView, json.loads(prov.stdout))
            assert view.id == trace_id
        with_prov = await stack.cli(
            "tg-show-explain-trace", corpus.GRAPH_RAG, "--show-provenance", env=ENV
        )
        check("trace_graph_rag_provenance.txt", with_prov.stdout)


async def test_agent_trace_nests_its_subtrace_and_json_carries_all_text(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    async with Stack(pulsar_url, prefix, [store], data_dir=tmp_path) as stack:
        await loaded(stack)
        text = await invoke(stack.url, "tg-show-explain-trace", corpus.AGENT, "--max-answer", "50")
        out = lines(text)
        analysis = next(n for n, line in enumerate(out) if "Analysis 1:" in line)
        sub = next(n for n, line in enumerate(out) if "GraphRAG sub-trace:" in line)
        second = next(n for n, line in enumerate(out) if "Analysis 2:" in line)
        assert analysis < sub < second
        assert out[sub].startswith("  │   └── GraphRAG sub-trace: " + corpus.SUB)
        assert f"[truncated, {len(corpus.LONG_ANSWER)} chars]" in text.stdout
        full = await invoke(stack.url, "tg-show-explain-trace", corpus.AGENT, "--format", "json")
        view = from_json(TraceView, json.loads(full.stdout))
        assert view.answer == corpus.LONG_ANSWER  # JSON is never cut
        assert view.steps[0].subtraces[0].id == corpus.SUB
        bare = await invoke(stack.url, "tg-show-explain-trace", "golden-agent", "--format", "json")
        assert json.loads(bare.stdout)["id"] == corpus.AGENT  # a bare session id resolves


async def test_unknown_ids_other_users_and_empty_collections(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    async with Stack(pulsar_url, prefix, [store], data_dir=tmp_path) as stack:
        empty = await stack.cli("tg-list-explain-traces")
        assert (empty.code, empty.stdout) == (
            0,
            "No traces in collection 'default' of user 'trustgraph'.\n",
        )
        await loaded(stack)
        for bad in ("urn:trustgraph:agent:nope", "not a trace id", "urn:other:x"):
            result = await stack.cli("tg-show-explain-trace", bad)
            assert result.code == 1 and result.stdout == ""
            assert result.stderr == (
                f"Error: no trace {bad!r} in collection 'default' of user 'trustgraph'.\n"
            )
        bob_id = "urn:trustgraph:question:bob-private"
        hidden = await stack.cli("tg-show-explain-trace", bob_id)
        assert hidden.code == 1 and "no trace" in hidden.stderr
        as_bob = await stack.cli("tg-show-explain-trace", bob_id, "-U", "bob")
        assert as_bob.code == 0 and "GraphRAG trace: " + bob_id in as_bob.stdout
        bob_list = await stack.cli("tg-list-explain-traces", "-U", "bob", "--format", "json")
        assert [r["id"] for r in json.loads(bob_list.stdout)] == [bob_id]
        # no librarian here: its list of collections is waited for 2 s, then only the
        # store's is known, and told
        other = await stack.cli("tg-list-explain-traces", "-C", "elsewhere")
        assert other.stdout == "No traces in collection 'elsewhere' of user 'trustgraph'.\n"
        assert other.code == 0 and other.stderr == (
            "Note: the store has no collection 'elsewhere' of user 'trustgraph' (it holds "
            "default); the librarian did not answer within 2 s, so a collection with "
            "documents only is not known here.\n"
        ), other


async def test_an_interrupted_run_is_listed_and_shown_as_interrupted(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    """What an agent publishes for a run it started and, restarted, found left open."""
    uri, reason = "urn:trustgraph:agent:cut1", "the agent process stopped before this run finished"
    meta = Metadata(id=uri)
    async with Stack(pulsar_url, prefix, [store], data_dir=tmp_path) as stack:
        opened = agent_session_triples(uri, "Where is Cairo?", "2026-03-01T10:00:00.000Z")
        await stack.publish(TRIPLES_STORE, Triples(metadata=meta, triples=opened))
        ended = interrupted_triples(uri, GRAPH_RETRIEVAL, reason, "2026-03-01T10:05:00.000Z")
        await stack.publish(TRIPLES_STORE, Triples(metadata=meta, triples=ended))
        listed = await eventually(
            lambda: stack.cli("tg-list-explain-traces", env=ENV),
            lambda r: r.code == 0 and "interrupted" in r.stdout,
        )
        assert "interrupted" in listed.stdout and "Where is Cairo?" in listed.stdout, listed
        shown = await stack.cli("tg-show-explain-trace", uri, env=ENV)
        assert shown.code == 0, shown.stderr
        assert "  Status: interrupted" in lines(shown)
        assert f"  Error: {reason}" in lines(shown)


async def test_an_agent_graph_shows_what_each_step_used(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    # Step 2 called two tools at once, step 3 used only step 1, the answer only step 3.
    async with Stack(pulsar_url, prefix, [store], data_dir=tmp_path) as stack:
        await stack.publish(TRIPLES_STORE, agent_graph.graph_batch())
        shown = await eventually(
            lambda: invoke(
                stack.url, "tg-show-explain-trace", agent_graph.GRAPH, "--format", "json"
            ),
            lambda r: r.code == 0 and json.loads(r.stdout)["answer"] is not None,
        )
        check("trace_agent_graph.json", shown.stdout)
        view = from_json(TraceView, json.loads(shown.stdout))
        g = agent_graph.GRAPH
        assert [s.uses for s in view.steps] == [[g], [f"{g}/i1"], [f"{g}/i1/observation"]]
        assert [s.used for s in view.steps] == [True, False, True]  # step 2: a dead end
        assert view.uses == [f"{g}/i3/observation"]
        assert [(c.action, c.observation) for c in view.steps[1].calls] == [
            ("text-completion", "Perhaps."),
            ("document-query", agent_graph.FAILED),
        ]
        text = await invoke(stack.url, "tg-show-explain-trace", g)
        assert text.code == 0, text.stderr
        check("trace_agent_graph.txt", text.stdout)
        assert (
            "Uses: step 1\n" in text.stdout and "Used by the answer: no (a dead end)" in text.stdout
        )
