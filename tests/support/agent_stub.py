"""The agent on the scripted OpenAI stub: the real text-completion service and agent started
on it, one question asked, the trace's facts read off the explain-store topic."""

from __future__ import annotations

import json
from typing import Any

from tests.conftest import RunningProcessors
from tests.support.agent import PROV, TG, TraceWatcher
from tests.support.openai_stub import OpenAIStub
from trustgraph_base.messaging import RequestClient
from trustgraph_base.rdf.terms import IriTerm, LiteralTerm
from trustgraph_base.schema import AgentRequest, AgentResponse, Triples
from trustgraph_base.settings import ProcessorSettings
from trustgraph_flow.agent import processor as agent
from trustgraph_flow.llm import processor as llm

Client = RequestClient[AgentRequest, AgentResponse]
Facts = dict[str, dict[str, list[str]]]  # entity → predicate local name (tg:, prov:) → values


def step(thought: str, action: str, uses: list[str] | None = None, **rest: Any) -> str:
    """A structured step as the model writes it (``uses`` left out when None)."""
    body: dict[str, Any] = {"thought": thought}
    if uses is not None:
        body["uses"] = uses
    return json.dumps({**body, "next": {"action": action, **rest}})


async def ask_on_stub(
    processors: RunningProcessors,
    settings: ProcessorSettings,
    stub: OpenAIStub,
    *,
    watcher: TraceWatcher,
    client: Client,
    session: str,
    max_iterations: int | None = None,
) -> tuple[AgentResponse, Facts]:
    """Start text-completion and the agent on ``stub``, ask once (the text-completion tool
    alone); the answer and the facts of the session's trace up to its conclusion."""
    base = settings.model_dump()
    await processors.start(
        llm.proc, llm.Settings(**base, llm_base_url=stub.base_url, llm_retries=0)
    )
    await processors.start(agent.proc, agent.Settings(**base))
    req = AgentRequest(
        question="Capital of France?",
        group=["text-completion"],
        session_id=session,
        max_iterations=max_iterations,
    )
    answer = await client.request(req, timeout=30)
    return answer, facts(await watcher.until(f"urn:trustgraph:agent:{session}/final"))


def facts(batches: list[Triples]) -> Facts:
    """Every value of every entity's predicates, in the order the trace wrote them."""
    out: Facts = {}
    for batch in batches:
        for t in batch.triples:
            assert isinstance(t.s, IriTerm) and isinstance(t.o, IriTerm | LiteralTerm)
            value = t.o.i if isinstance(t.o, IriTerm) else t.o.v
            name = t.p.i.removeprefix(TG).removeprefix(PROV)
            out.setdefault(t.s.i, {}).setdefault(name, []).append(value)
    return out
