"""Stand-in GraphRAG and DocumentRAG services for the agent's tools, and the agent started
on them with the real text-completion service against the scripted OpenAI stub."""

from __future__ import annotations

import asyncio
from typing import Any

from tests.conftest import RunningProcessors
from tests.support.agent import PARIS, G, publish_sub_question
from tests.support.openai_stub import OpenAIStub
from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.messaging import DOCUMENT_RAG, GRAPH_RAG, Context, Processor
from trustgraph_base.schema import (
    DocumentRagRequest,
    DocumentRagResponse,
    GraphRagRequest,
    GraphRagResponse,
)
from trustgraph_base.settings import ProcessorSettings
from trustgraph_flow.agent import processor as agent
from trustgraph_flow.llm import processor as llm


class StandIns:
    """Stand-in RAG services: GraphRAG publishes a tiny sub-trace and answers; DocRAG fails."""

    def __init__(self) -> None:
        self.graph_requests: list[GraphRagRequest] = []
        self.release = asyncio.Event()  # a query "slow" waits for it
        self.proc: Processor[ProcessorSettings] = Processor("standin-rag")

        @self.proc.service(GRAPH_RAG)
        async def graph_rag(
            req: GraphRagRequest, ctx: Context[ProcessorSettings]
        ) -> GraphRagResponse:
            self.graph_requests.append(req)
            if req.query == "slow":
                await self.release.wait()
            question = f"urn:trustgraph:question:sub{len(self.graph_requests)}"
            await publish_sub_question(req, ctx, question)
            return GraphRagResponse(response=PARIS, explain_id=question, explain_graph=G)

        @self.proc.service(DOCUMENT_RAG)
        async def document_rag(
            req: DocumentRagRequest, ctx: Context[ProcessorSettings]
        ) -> DocumentRagResponse:
            raise ServiceError(ErrorType("no-index"), "the document index is unavailable")


async def start_stack(
    processors: RunningProcessors,
    settings: ProcessorSettings,
    stub: OpenAIStub,
    **agent_settings: Any,
) -> StandIns:
    base = settings.model_dump()
    await processors.start(
        llm.proc, llm.Settings(**base, llm_base_url=stub.base_url, llm_retries=0)
    )
    stand = StandIns()
    await processors.start(stand.proc, settings)
    agent_settings.setdefault("llm_structured", "none")
    await processors.start(agent.proc, agent.Settings(**base, **agent_settings))
    return stand
