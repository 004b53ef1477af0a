"""GraphRAG cites no edge that names nothing (issue 29, "junk edges no longer show up as
evidence"): an LLM's extraction, or a store filled before the offline extractor dropped
them, may hold "it → chases → fox" or "1998 → chases → fox"; offered to the selecting LLM
and picked by it, such an edge is still kept out of the focus (graph_rag/select.py,
llm/hollow_labels.py). Real broker, store and processors; the LLM is the OpenAI stub."""

from __future__ import annotations

import json
from typing import Any

from tests.conftest import RunningProcessors
from tests.integration.test_rag_graph import Q, ask, focus_edges
from tests.support.openai_stub import OpenAIStub
from tests.support.rag import (
    COLLECTION,
    DOC,
    USER,
    E,
    R,
    World,
    start_stack,
    stored_trace,
    world_fixture,  # noqa: F401
)
from trustgraph_base.messaging import TRIPLES_STORE
from trustgraph_base.provenance import RDFS
from trustgraph_base.rdf.terms import Triple, iri, lit
from trustgraph_base.schema import Metadata, Triples
from trustgraph_base.settings import ProcessorSettings

HOLLOW = {"it": E("it"), "1998": E("1998")}


def pick_all(body: dict[str, Any]) -> str:
    """The selecting LLM picks every edge offered, the hollow ones among them."""
    prompt = body["messages"][-1]["content"]
    assert "it | chases | fox" in prompt and "1998 | chases | fox" in prompt, prompt
    ids = [line.split(":")[0] for line in prompt.splitlines() if line[:1] == "e"]
    return json.dumps([{"id": i, "reasoning": "picked"} for i in ids])


async def test_an_edge_naming_nothing_is_not_selected(
    processors: RunningProcessors, settings: ProcessorSettings, world: World
) -> None:
    extra = [Triple(s=iri(s), p=iri(R("chases")), o=iri(E("fox"))) for s in HOLLOW.values()]
    extra += [Triple(s=iri(s), p=RDFS.label, o=lit(label)) for label, s in HOLLOW.items()]
    async with OpenAIStub([pick_all, "The fox jumps over the dog."]) as stub:
        await start_stack(processors, settings, stub.base_url)
        meta = Metadata(id=DOC, user=USER, collection=COLLECTION)
        await world.bus.publish(
            world.topics.topic(TRIPLES_STORE), Triples(metadata=meta, triples=extra)
        )
        await world.seed()
        await ask(world, query="What chases the fox?", session_id="h1")
    trace = await stored_trace(world, Q + "h1")
    subjects = {e.s for e in focus_edges(trace, Q + "h1")}
    assert iri(E("fox")) in subjects or iri(E("cat")) in subjects, subjects
    assert not subjects & {iri(s) for s in HOLLOW.values()}, subjects
