"""The ReAct agent service: the wiring of settings, tools, run journal and the handler.

A session is the question ``urn:trustgraph:agent:{id}`` (published as the first LLM call
goes out), one analysis ``…/i{n}`` per iteration (published as soon as its observation is
known) and a conclusion ``…/final``. The loop is ``loop.py``; the session and its trace
``session.py``.
"""

from __future__ import annotations

import gc
from collections.abc import AsyncIterator

from trustgraph_base.errors import ErrorType, ServiceError, TrustGraphError
from trustgraph_base.messaging import AGENT, CONFIG, Context, Processor
from trustgraph_base.provenance import uris
from trustgraph_base.schema import AgentRequest, AgentResponse
from trustgraph_flow.agent.configured import user_tools
from trustgraph_flow.agent.loop import run
from trustgraph_flow.agent.prompt import Step
from trustgraph_flow.agent.session import Session
from trustgraph_flow.agent.settings import Ctx, Settings, State
from trustgraph_flow.agent.tools import ToolConfig, load_tools, select_tools
from trustgraph_flow.config.cache import ConfigCache
from trustgraph_flow.rag_common import refuse_unknown_collection
from trustgraph_flow.run_recovery import journal_open
from trustgraph_flow.trace_writer import TraceWriter, identity, open_trace

__all__ = ["Settings", "State", "main", "proc"]

proc: Processor[Settings, State] = Processor("agent", Settings)


@proc.lifespan
async def open_state(ctx: Context[Settings]) -> AsyncIterator[State]:
    """Load the tool configuration (a bad one stops the agent at start) and the run journal
    (traces a killed predecessor left open end as interrupted); configuration changes are
    listened for from the start, so that reads are kept from the first question on."""
    ConfigCache.of(ctx, CONFIG)
    try:
        tools = load_tools(ctx.settings.tools)
    except ValueError as exc:
        raise TrustGraphError(str(exc)) from None
    async with journal_open(ctx) as book:
        # What is loaded by now (modules, pydantic schemas) is never garbage: out of the
        # cyclic collector, whose full collections walked it all again every few hundred
        # sessions (~90 µs of CPU per explainable session, the trace's models setting them off).
        gc.freeze()
        try:
            yield State(tools, book)
        finally:
            gc.unfreeze()  # a test may run the agent in its own process


def open_session(
    req: AgentRequest,
    ctx: Ctx,
    uri: str,
    trace: TraceWriter | None,
    configured: tuple[ToolConfig, ...],
) -> Session:
    """Check the request and set up its session; ``ServiceError`` ("bad-request") if it is wrong.
    ``configured``: the user's tools (``configured.user_tools``)."""
    tools = select_tools(configured, req.group)
    if req.group and not tools:
        names = ", ".join(t.name for t in configured)
        raise ServiceError(
            ErrorType.BAD_REQUEST, f"no tool matches group {req.group}; configured tools: {names}"
        )
    prior = [Step(s.thought, s.action, dict(s.arguments), s.observation) for s in req.history]
    return Session(
        ctx=ctx,
        req=req,
        uri=uri,
        tools=tools,
        max_iterations=req.max_iterations or ctx.settings.max_iterations,
        prior=prior,
        trace=trace,
        structured=ctx.settings.llm_structured != "none",
    )


@proc.service(AGENT, once=True)
async def agent(req: AgentRequest, ctx: Ctx) -> AsyncIterator[AgentResponse]:
    """Run the ReAct loop; stream every event, or only the final answer when not streaming."""
    uri, started = identity(req.session_id, req.started_at, uris.agent_session_uri)
    explainable = ctx.settings.explainable
    await refuse_unknown_collection(ctx, req)
    with open_trace(ctx, uri, req, started, journaled=explainable) as trace:
        # A rerun of a session cut short continues its trace: its id, and its steps so far.
        tools = await user_tools(ctx, req.user, ctx.state.tools)
        session = open_session(req, ctx, trace.question_uri, trace if explainable else None, tools)
        async for event in session.stream(run(session)):
            # Not an entity its caller heard of from the run a kill cut short.
            if (req.streaming or event.end_of_stream) and not trace.heard(event):
                yield event


main = proc.main

if __name__ == "__main__":
    main()
