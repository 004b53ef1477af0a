"""The ReAct loop of one session: think (ask the LLM for a step), act (run the tool),
observe — until the final answer or the iteration limit. Unparseable replies, unknown tools
and failing tools become observations the LLM can react to.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator

from trustgraph_base.errors import ErrorType, RequestTimeout, ServiceError
from trustgraph_base.messaging import TEXT_COMPLETION
from trustgraph_base.provenance import arguments_json, uris
from trustgraph_base.provenance.agent import agent_session_rows
from trustgraph_base.schema import AgentResponse
from trustgraph_flow.agent.calls import act, many_step, run_calls
from trustgraph_flow.agent.events import event, stopped_answer
from trustgraph_flow.agent.prompt import Call, Step, react_request
from trustgraph_flow.agent.react import (
    Act,
    ActMany,
    Finish,
    ParseError,
    StepReply,
    parse_reply,
    step_schema,
)
from trustgraph_flow.agent.resume import recorded_answer, recorded_failure, recorded_steps
from trustgraph_flow.agent.session import Session
from trustgraph_flow.agent.uses import entity_id, resolve_uses, usable
from trustgraph_flow.prompts.book import prompted
from trustgraph_flow.structured import BadReply, ask

log = logging.getLogger(__name__)

MAX_RAW_THOUGHT = 2000
PARSE_HINT = "reply with Thought/Action/Args or Thought/Final Answer"
JSON_HINT = 'reply with one JSON object {"thought": ..., "next": {...}} as described'
LAST_STEP_ERROR = "the last step must be the final answer, not another tool call"


async def run(session: Session) -> AsyncIterator[AgentResponse]:
    """Every event of the session, the last one the final answer."""
    for opened in session.publish(
        (
            session.uri,
            lambda: agent_session_rows(
                session.uri, session.req.question, session.trace.started_at if session.trace else ""
            ),
        )
    ):
        yield opened
    if session.trace is not None and session.trace.recorded:  # a rerun of a session cut short
        session.steps = recorded_steps(session.trace.recorded, session.uri)
        session.retake = len(session.steps) + 1
        failed = recorded_failure(session.trace.recorded, session.uri)
        if failed is not None:  # it had failed: that error again, never an answer
            reason, error_type = failed
            raise ServiceError(error_type, f"this run had failed: {reason}")
        answer = recorded_answer(session.trace.recorded, session.uri)
        if answer is not None:  # it had concluded: the same answer, nothing asked again
            limit = answer == stopped_answer(session.max_iterations)
            async for ending in session.conclude(answer, "iteration-limit" if limit else "answer"):
                yield ending
            return
    for n in range(len(session.steps) + 1, session.max_iterations + 1):
        # Structured, the last step may only answer: its schema offers no tool.
        last = session.structured and n == session.max_iterations
        offered = [] if last else [t.name for t in session.tools]
        reply = await think(session, last)
        iteration_uri = uris.agent_iteration_uri(session.uri, n)
        try:
            parsed = read(reply, last)
            uses = resolve_uses(
                parsed.uses, session.uri, usable(session.uri, session.steps), n, parsed.thought
            )
        except ParseError as exc:
            if exc.thought:
                yield event("thought", exc.thought)
            thought = exc.thought or _raw(reply)[:MAX_RAW_THOUGHT]
            hint = JSON_HINT if session.structured else PARSE_HINT
            step = Step(thought, "", {}, f"Error: could not parse your reply: {exc}; {hint}.")
        else:
            if parsed.thought:
                yield event("thought", parsed.thought)
            if isinstance(parsed, Finish):
                async for ending in session.conclude(parsed.answer, uses=uses):
                    yield ending
                return
            if isinstance(parsed, ActMany):  # several tools at once, each shown as it returns
                for one in parsed.calls:
                    yield event("action", f"{one.tool} {arguments_json(one.arguments)}")
                calls: dict[int, Call] = {}
                async for k, call, explains in run_calls(session, parsed.calls, iteration_uri):
                    calls[k] = call
                    yield event("observation", call.observation)
                    for explain in explains:
                        yield explain
                step = many_step(parsed.thought, [calls[k] for k in sorted(calls)], uses)
                for explain in session.record(step, offered):
                    yield explain
                continue
            yield event("action", f"{parsed.tool} {arguments_json(parsed.arguments)}")
            observation = await act(session, parsed.tool, parsed.arguments, iteration_uri)
            step = Step(
                parsed.thought, parsed.tool, parsed.arguments, observation, uses=tuple(uses)
            )
        explains = session.record(step, offered)
        yield event("observation", step.observation)
        for explain in explains:
            yield explain
    async for ending in session.conclude(stopped_answer(session.max_iterations), "iteration-limit"):
        yield ending


def read(reply: str | StepReply | BadReply, last: bool = False) -> Act | ActMany | Finish:
    """The LLM's decision; ``ParseError`` for a reply that is neither form (or, on the
    last structured step, not the final answer its schema asked for)."""
    if isinstance(reply, BadReply):
        raise ParseError(str(reply))
    if isinstance(reply, StepReply):
        decision = reply.decision()
        if last and isinstance(decision, Act | ActMany):
            raise ParseError(LAST_STEP_ERROR, decision.thought)
        return decision
    return parse_reply(reply)


async def think(session: Session, last: bool = False) -> str | StepReply | BadReply:
    """Ask the LLM for the next step: the validated JSON step (or why it is not one) when
    structured, else the reply text. ``last``: the step must be the final answer.
    A failing LLM ends the session, marked on the trace."""
    history = [*session.prior, *session.steps]
    request = react_request(session.req.question, session.tools, history, session.structured, last)
    request, session.prompt = await prompted(session.ctx, session.req.user, request)
    offered = [] if last else session.tools
    timeout = session.ctx.settings.request_timeout
    started = time.monotonic()
    try:
        if session.structured:
            try:
                step = await ask(
                    session.ctx,
                    request,
                    StepReply,
                    schema=step_schema(
                        offered,
                        [entity_id(session.uri, u) for u in usable(session.uri, session.steps)],
                    ),
                    timeout=timeout,
                )
            except BadReply as bad:
                if bad.response is not None:
                    session.note_call(bad.response, bad.latency_ms)
                return bad
            session.note_call(step.response, step.latency_ms)
            return step.value
        reply = await session.ctx.client(TEXT_COMPLETION).request(request, timeout=timeout)
    except ServiceError as exc:
        session.fail(f"the LLM failed: {exc.message}", exc.type)
        raise ServiceError(exc.type, f"the LLM failed: {exc.message}") from None
    except RequestTimeout:
        session.fail(f"the LLM did not answer within {timeout:g}s", ErrorType.TIMEOUT)
        raise ServiceError(
            ErrorType.TIMEOUT, f"the LLM did not answer within {timeout:g}s"
        ) from None
    session.note_call(reply, (time.monotonic() - started) * 1000.0)
    return reply.response


def _raw(reply: str | StepReply | BadReply) -> str:
    """The reply as text, for the trace when it could not be read."""
    if isinstance(reply, BadReply):
        return reply.text.strip()
    return reply.strip() if isinstance(reply, str) else reply.model_dump_json()
