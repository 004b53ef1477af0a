"""Running the tools a step chose: one (``act``), or several at once (``run_calls``: at most
``tool_concurrency`` at a time, each call's observation recorded as soon as it returns, a
failing or timed-out call its own ``Error: …`` observation that cancels none of the others).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Sequence
from typing import Any

from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.provenance import uris
from trustgraph_base.schema import AgentResponse
from trustgraph_flow.agent.prompt import Call, Step
from trustgraph_flow.agent.react import Act
from trustgraph_flow.agent.session import Session
from trustgraph_flow.agent.tools import ToolCall, ToolFailure, run_tool

log = logging.getLogger(__name__)


async def act(session: Session, name: str, arguments: dict[str, Any], iteration_uri: str) -> str:
    """Run the named tool; any failure becomes an ``Error: …`` observation."""
    # The tool's own trace names this session's entities: the broker has them first (their
    # receipts came while the LLM thought: this waits only when the broker is slow).
    if session.trace is not None:
        await session.trace.delivered()
    tool = next((t for t in session.tools if t.name == name), None)
    if tool is None:
        known = ", ".join(t.name for t in session.tools) or "(none)"
        return f"Error: unknown tool '{name}'; the available tools are: {known}."
    call = ToolCall(
        ctx=session.ctx,
        user=session.req.user,
        collection=session.req.collection,
        parent_uri=iteration_uri if session.explainable else "",  # no trace to hang it on
        timeout=session.ctx.settings.tool_timeout,
        retake=len(session.steps) + 1 == session.retake,
        evidence=session.evidence,
    )
    try:
        observation = await run_tool(tool, arguments, call)
    except ToolFailure as exc:
        log.info("session %s: %s", session.uri, exc)
        if exc.cause is not None and exc.cause.type == ErrorType.NO_DATA:
            # Nothing to search: say so, as GraphRAG and DocRAG do, not an answer made up.
            session.fail(exc.cause.message, ErrorType.NO_DATA)
            raise ServiceError(ErrorType.NO_DATA, exc.cause.message) from None
        return f"Error: {exc}."
    return observation.strip() or f"(tool '{name}' returned nothing)"


async def run_calls(
    session: Session, acts: Sequence[Act], iteration_uri: str
) -> AsyncIterator[tuple[int, Call, list[AgentResponse]]]:
    """Run ``acts`` (call 1, 2, … of one step) concurrently, at most ``tool_concurrency`` at a
    time; as each returns: its number, the call with its observation, and the explain events
    of its trace entities (published first: ``Session.record_call``). A session-ending error
    (nothing to search) cancels the calls still running."""
    bound = asyncio.Semaphore(session.ctx.settings.tool_concurrency)

    async def one(k: int, chosen: Act) -> tuple[int, Call]:
        async with bound:
            call_uri = uris.agent_call_uri(iteration_uri, k)
            seen = await act(session, chosen.tool, chosen.arguments, call_uri)
        return k, Call(chosen.tool, chosen.arguments, seen)

    running = [asyncio.create_task(one(k, chosen)) for k, chosen in enumerate(acts, 1)]
    try:
        for finished in asyncio.as_completed(running):
            k, call = await finished
            yield k, call, session.record_call(k, call)
    finally:
        for task in running:
            task.cancel()
        await asyncio.gather(*running, return_exceptions=True)


def many_step(thought: str, calls: Sequence[Call], uses: Sequence[str]) -> Step:
    """The step that called ``calls`` at once, as SPEC's one analysis keeps it: every tool it
    called (``tg:action`` ``a, b``) and every observation, each after its call's id."""
    seen = "\n".join(f"[c{k}] {c.action}: {c.observation}" for k, c in enumerate(calls, 1))
    action = ", ".join(c.action for c in calls)
    return Step(thought, action, {}, seen, uses=tuple(uses), calls=tuple(calls))
