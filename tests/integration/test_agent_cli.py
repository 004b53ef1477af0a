"""tg-invoke-agent end to end: the sample corpus loaded through the gateway and the real
pipeline, the offline engine, GraphRAG as the agent's tool, and the trace in the store."""

from __future__ import annotations

from pathlib import Path

from tests.support.openai_stub import OpenAIStub
from tests.support.poll import eventually
from tests.support.processors import EVERY, SAMPLES
from tests.support.stack import Stack
from trustgraph_base.messaging import TRIPLES_QUERY, Bus, RequestClient, Topics
from trustgraph_base.provenance import GRAPH_RETRIEVAL, PROV
from trustgraph_base.rdf.terms import IriTerm
from trustgraph_base.schema import TriplesQueryRequest, TriplesQueryResponse
from trustgraph_cli.rag_output import OFFLINE_NOTE
from trustgraph_flow.agent import processor as agent

USER = "dora"
QUESTION = "What is the capital of France?"


async def derived_from(stack: Stack, uri: str) -> TriplesQueryResponse:
    """What the store says was derived from ``uri`` in the retrieval graph."""
    bus = Bus(stack.pulsar_url)
    client = RequestClient(bus, Topics(stack.prefix), TRIPLES_QUERY, "agent-cli")
    try:
        req = TriplesQueryRequest(
            user=USER, p=PROV.wasDerivedFrom, o=IriTerm(i=uri), g=GRAPH_RETRIEVAL
        )
        return await client.request(req, timeout=10)
    finally:
        await client.close()
        await bus.close()


async def test_invoke_agent_on_the_sample_corpus(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    async with Stack(pulsar_url, prefix, EVERY, data_dir=tmp_path) as stack:
        scope = ("-U", USER)
        loaded = await stack.cli("tg-load-document", str(SAMPLES / "capitals.txt"), *scope)
        assert loaded.code == 0, loaded.stderr

        asked = await stack.cli("tg-invoke-agent", "-v", "-x", "-q", QUESTION, *scope)
        assert asked.code == 0, asked.stderr
        assert asked.stdout.startswith("Paris is the capital of France.")
        assert len(asked.stdout.strip().splitlines()) == 1  # the answer alone on stdout
        err = asked.stderr.strip().splitlines()
        trace = err[-1].removeprefix("trace: ")
        assert trace.startswith("urn:trustgraph:agent:")
        assert err[:3] == [
            f"Explain: {trace}",
            "Thought: I should look this up in the knowledge graph.",
            'Action: knowledge-query {"question": "What is the capital of France?"}',
        ]
        assert err[3].startswith("Observation: Paris is the capital of France.")
        assert err[4:-1] == [
            f"Explain: {trace}/i1",
            f"Explain: {trace}/i1/observation",
            "Thought: The observation answers the question.",
            f"Explain: {trace}/final",
            OFFLINE_NOTE,  # the answer came from the offline engine, and says so
        ]

        # The GraphRAG run the tool made is a sub-trace of the analysis that called it.
        subs = await eventually(
            lambda: derived_from(stack, f"{trace}/i1"), lambda r: len(r.triples) >= 2
        )
        children = {t.s.i for t in subs.triples if isinstance(t.s, IriTerm)}
        assert {f"{trace}/final", f"{trace}/i1/observation"} <= children
        (sub,) = children - {f"{trace}/final", f"{trace}/i1/observation"}
        assert sub.startswith("urn:trustgraph:question:")
        shown = await eventually(
            lambda: stack.cli("tg-show-explain-trace", trace, *scope),
            lambda r: "Conclusion" in r.stdout,
        )
        assert shown.code == 0, shown.stderr
        assert f"GraphRAG sub-trace: {sub}" in shown.stdout

        quiet = await stack.cli("tg-invoke-agent", "-v", "--no-streaming", "-q", QUESTION, *scope)
        assert quiet.code == 0, quiet.stderr
        assert quiet.stdout.startswith("Paris is the capital of France.")
        assert quiet.stderr.splitlines()[0] == OFFLINE_NOTE
        assert quiet.stderr.splitlines()[1].startswith("trace: urn:trustgraph:agent:")
        assert len(quiet.stderr.strip().splitlines()) == 2

        limited = await stack.cli(
            "tg-invoke-agent", "--max-iterations", "1", "-q", QUESTION, *scope
        )
        # The last step may only answer: at one iteration the offline engine says it found nothing.
        assert (limited.code, limited.stdout) == (
            0,
            f"The documents do not say: none of my tools found a supported answer to: {QUESTION}\n",
        )

        refused = await stack.cli("tg-invoke-agent", "--group", "nope", "-q", QUESTION, *scope)
        assert refused.code == 1
        assert (
            "no tool matches group ['nope']" in refused.stderr and "[bad-request]" in refused.stderr
        )


async def test_an_agent_stopped_at_its_limit_exits_1_with_the_reason(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    from trustgraph_flow.llm import processor as llm

    # A model whose every step is unusable: the loop runs out of iterations, no answer.
    async with OpenAIStub(default="I am not sure.") as stub:
        settings = {"text-completion": {"llm_base_url": stub.base_url, "llm_retries": 0}}
        async with Stack(
            pulsar_url, prefix, [llm.proc, agent.proc], data_dir=tmp_path, settings=settings
        ) as stack:
            limited = await stack.cli("tg-invoke-agent", "--max-iterations", "2", "-q", QUESTION)
    assert (limited.code, limited.stdout) == (1, "")
    stopped = limited.stderr.strip().splitlines()[-1]
    assert stopped.startswith(
        "Error: the agent stopped after 2 iterations without a final answer; "
        "raise --max-iterations, or see how far it got with tg-show-explain-trace "
        "urn:trustgraph:agent:"
    )
    assert "offline engine" not in limited.stderr and "Traceback" not in limited.stderr
    assert len(stub.requests) == 2  # the trace keeps the conclusion (test_agent_loop checks it)
