"""The ReAct agent service: think, act, observe — each step published to the trace at once.

A session is the question ``urn:trustgraph:agent:{id}`` (published as the first LLM call
goes out), one analysis ``…/i{n}`` per iteration (published as soon as its observation is
known) and a conclusion ``…/final``. Unparseable replies, unknown tools and failing tools
become observations the LLM can react to; the iteration limit ends the session with a
conclusion that says so.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import Field

from trustgraph_base.errors import ErrorType, RequestTimeout, ServiceError, TrustGraphError
from trustgraph_base.messaging import AGENT, TEXT_COMPLETION, Context, Processor
from trustgraph_base.provenance import (
    GRAPH_RETRIEVAL,
    agent_final_triples,
    agent_iteration_triples,
    agent_observation_triples,
    agent_session_triples,
    arguments_json,
    metrics_triples,
    uris,
)
from trustgraph_base.rdf.terms import Triple
from trustgraph_base.schema import AgentRequest, AgentResponse, TextCompletionResponse
from trustgraph_base.settings import ProcessorSettings
from trustgraph_flow.agent.prompt import Step, react_request
from trustgraph_flow.agent.react import Act, Finish, ParseError, StepReply, parse_reply, step_schema
from trustgraph_flow.agent.tools import (
    ToolCall,
    ToolConfig,
    ToolFailure,
    load_tools,
    run_tool,
    select_tools,
)
from trustgraph_flow.run_journal import RunJournal, open_journal
from trustgraph_flow.structured import BadReply, ask
from trustgraph_flow.trace_writer import TraceWriter, identity, open_trace

log = logging.getLogger(__name__)

MAX_RAW_THOUGHT = 2000
PARSE_HINT = "reply with Thought/Action/Args or Thought/Final Answer"
JSON_HINT = 'reply with one JSON object {"thought": ..., "next": {...}} as described'
LAST_STEP_ERROR = "the last step must be the final answer, not another tool call"


class Settings(ProcessorSettings):
    """Loop limit, tool set and tool timeout (``request_timeout`` bounds each LLM call)."""

    max_iterations: int = Field(default=10, ge=1, le=1000)
    """Most tool steps before the agent stops without an answer."""
    tools: str = ""
    """JSON list of tool objects (docs/agent.md); empty: the three default tools."""
    tool_timeout: float = Field(default=120.0, gt=0)
    """Seconds a tool may take before its step records a timeout."""
    explainable: bool = True
    """Publish a trace and explain events (off: answers only)."""
    # The same setting as text-completion's (env TG_LLM_STRUCTURED): "none" asks for ReAct
    # text; otherwise each step is a JSON object whose schema goes with the request.
    llm_structured: Literal["json_schema", "json_object", "none"] = "json_schema"
    """How each step's JSON schema is enforced: json_schema, json_object or none."""


@dataclass(frozen=True)
class State:
    """The agent's configured tools, and its run journal."""

    tools: tuple[ToolConfig, ...]
    journal: RunJournal


Ctx = Context[Settings, State]
proc: Processor[Settings, State] = Processor("agent", Settings)


@proc.lifespan
async def open_state(ctx: Context[Settings]) -> AsyncIterator[State]:
    """Load the tool configuration (a bad one stops the agent at start) and the run journal
    (traces a killed predecessor left open end as interrupted)."""
    try:
        tools = load_tools(ctx.settings.tools)
    except ValueError as exc:
        raise TrustGraphError(str(exc)) from None
    state = State(tools, await open_journal(ctx))
    # What is loaded by now (modules, pydantic schemas) is never garbage: out of the cyclic
    # collector, whose full collections walked it all again every few hundred sessions
    # (~90 µs of CPU per explainable session, the trace's models setting them off).
    gc.freeze()
    try:
        yield state
    finally:
        gc.unfreeze()  # a test may run the agent in its own process


def stopped_answer(iterations: int) -> str:
    """The conclusion of a session that hit its iteration limit."""
    noun = "iteration" if iterations == 1 else "iterations"
    return f"Stopped after {iterations} {noun} without a final answer."


EventKind = Literal["thought", "action", "observation", "explain"]


def _event(
    kind: EventKind,
    content: str = "",
    explain_id: str | None = None,
    triples: list[Triple] | None = None,
) -> AgentResponse:
    graph = GRAPH_RETRIEVAL if explain_id else None
    return AgentResponse(
        message_type=kind,
        content=content,
        explain_id=explain_id,
        explain_graph=graph,
        explain_triples=triples or [],
        end_of_stream=False,
    )


@dataclass
class Session:
    """One run of the loop for one request."""

    ctx: Context[Settings]
    req: AgentRequest
    uri: str
    tools: list[ToolConfig]
    max_iterations: int
    prior: list[Step]
    # The trace (None: not explainable). ``stream`` passes no event on before the trace
    # messages sent before it are safe (journaled: ``TraceWriter.settle``).
    trace: TraceWriter | None
    steps: list[Step] = field(default_factory=list)
    structured: bool = True
    model: str = ""  # the model that wrote the last reply
    last_call: tuple[str, int, int, float] | None = None  # its model, tokens in/out, latency

    @property
    def explainable(self) -> bool:
        return self.trace is not None

    @property
    def last_uri(self) -> str:
        return uris.agent_iteration_uri(self.uri, len(self.steps)) if self.steps else self.uri

    def publish(self, *entities: tuple[str, Callable[[], list[Triple]]]) -> list[AgentResponse]:
        """Send the entities of one step now, together as one trace message (metadata id: the
        first's URI); the explain event naming each, in order (none: not explainable).

        The step does not wait for the broker's receipt: ``stream`` passes no later event
        to the caller before it (and every earlier trace message) is safe."""
        if self.trace is None:
            return []  # the triples are not even built: off costs nothing
        built = [(uri, build()) for uri, build in entities]
        self.trace.send(built[0][0], [t for _, triples in built for t in triples])
        return [_event("explain", explain_id=uri, triples=triples) for uri, triples in built]

    def sent(self) -> int:
        """How many trace messages have been sent so far."""
        return 0 if self.trace is None else self.trace.count

    async def settle(self, upto: int | None = None) -> None:
        """Make the first ``upto`` trace messages (default: all) safe (``TraceWriter.settle``)."""
        if self.trace is not None:
            await self.trace.settle(upto)

    async def stream(self) -> AsyncIterator[AgentResponse]:
        """``run``'s events in order, each passed on only once every trace message sent
        before it is safe (journaled), so nothing the caller saw can be lost. The session
        goes on meanwhile: its next LLM call goes out in the same pass as the trace message
        that went before it."""
        queue: asyncio.Queue[tuple[AgentResponse | Exception | None, int]] = asyncio.Queue()

        async def drive() -> None:
            end: Exception | None = None
            try:
                async for event in self.run():
                    queue.put_nowait((event, self.sent()))
            except Exception as exc:  # passed on after the events before it
                end = exc
            finally:
                queue.put_nowait((end, self.sent()))

        driving = asyncio.create_task(drive())
        # The question's explain event waits for the event after it (the first step's thought,
        # or an error) and goes with it in one reply message: on its own it would cost the
        # caller, the broker and this process one more message per session.
        question: AgentResponse | None = None
        try:
            while True:
                known = [await queue.get()]
                while not queue.empty():
                    known.append(queue.get_nowait())
                # Events known together go on together, after the latest's trace messages are
                # safe: one reply message (the final thought, the conclusion's explain and the
                # answer).
                await self.settle(known[-1][1])
                for item, _ in known:
                    if question is not None:
                        yield question
                        question = None
                    if item is None:
                        return
                    if isinstance(item, Exception):
                        raise item
                    if item.message_type == "explain" and item.explain_id == self.uri:
                        question = item
                        continue
                    yield item
        finally:
            driving.cancel()  # still running only if the caller or a send gave up
            await asyncio.gather(driving, return_exceptions=True)

    async def run(self) -> AsyncIterator[AgentResponse]:
        """Every event of the session, the last one the final answer."""
        for opened in self.publish(
            (
                self.uri,
                lambda: agent_session_triples(
                    self.uri, self.req.question, self.trace.started_at if self.trace else ""
                ),
            )
        ):
            yield opened
        for n in range(1, self.max_iterations + 1):
            # Structured, the last step may only answer: its schema offers no tool.
            last = self.structured and n == self.max_iterations
            reply = await self.think(last)
            iteration_uri = uris.agent_iteration_uri(self.uri, n)
            try:
                parsed = self.read(reply, last)
            except ParseError as exc:
                if exc.thought:
                    yield _event("thought", exc.thought)
                thought = exc.thought or _raw(reply)[:MAX_RAW_THOUGHT]
                hint = JSON_HINT if self.structured else PARSE_HINT
                step = Step(thought, "", {}, f"Error: could not parse your reply: {exc}; {hint}.")
            else:
                if parsed.thought:
                    yield _event("thought", parsed.thought)
                if isinstance(parsed, Finish):
                    async for event in self.conclude(parsed.answer):
                        yield event
                    return
                yield _event("action", f"{parsed.tool} {arguments_json(parsed.arguments)}")
                observation = await self.act(parsed.tool, parsed.arguments, iteration_uri)
                step = Step(parsed.thought, parsed.tool, parsed.arguments, observation)
            explains = self.record(step)
            yield _event("observation", step.observation)
            for explain in explains:
                yield explain
        async for event in self.conclude(stopped_answer(self.max_iterations), "iteration-limit"):
            yield event

    def read(self, reply: str | StepReply | BadReply, last: bool = False) -> Act | Finish:
        """The LLM's decision; ``ParseError`` for a reply that is neither form (or, on the
        last structured step, not the final answer its schema asked for)."""
        if isinstance(reply, BadReply):
            raise ParseError(str(reply))
        if isinstance(reply, StepReply):
            decision = reply.decision()
            if last and isinstance(decision, Act):
                raise ParseError(LAST_STEP_ERROR, decision.thought)
            return decision
        return parse_reply(reply)

    def record(self, step: Step) -> list[AgentResponse]:
        """Publish the next analysis and TrustGraph's Observation entity of it, as one trace
        message (the trace first, before the client hears of either); their explain events
        (none: not explainable)."""
        uri = uris.agent_iteration_uri(self.uri, len(self.steps) + 1)
        previous = self.last_uri
        observation_uri = uris.agent_observation_uri(uri)
        explains = self.publish(
            (
                uri,
                lambda: (
                    agent_iteration_triples(
                        uri, previous, step.thought, step.action, step.arguments, step.observation
                    )
                    + self.cost_of(uri)
                ),
            ),
            (observation_uri, lambda: agent_observation_triples(observation_uri, uri)),
        )
        self.steps.append(step)
        return explains

    async def think(self, last: bool = False) -> str | StepReply | BadReply:
        """Ask the LLM for the next step: the validated JSON step (or why it is not one) when
        structured, else the reply text. ``last``: the step must be the final answer.
        A failing LLM ends the session, marked on the trace."""
        history = [*self.prior, *self.steps]
        request = react_request(self.req.question, self.tools, history, self.structured, last)
        offered = [] if last else self.tools
        timeout = self.ctx.settings.request_timeout
        started = time.monotonic()
        try:
            if self.structured:
                try:
                    step = await ask(
                        self.ctx, request, StepReply, schema=step_schema(offered), timeout=timeout
                    )
                except BadReply as bad:
                    if bad.response is not None:
                        self.note_call(bad.response, bad.latency_ms)
                    return bad
                self.note_call(step.response, step.latency_ms)
                return step.value
            reply = await self.ctx.client(TEXT_COMPLETION).request(request, timeout=timeout)
        except ServiceError as exc:
            self.fail(f"the LLM failed: {exc.message} [{exc.type}]")
            raise ServiceError(exc.type, f"the LLM failed: {exc.message}") from None
        except RequestTimeout:
            self.fail(f"the LLM did not answer within {timeout:g}s")
            raise ServiceError(
                ErrorType.TIMEOUT, f"the LLM did not answer within {timeout:g}s"
            ) from None
        self.note_call(reply, (time.monotonic() - started) * 1000.0)
        return reply.response

    def note_call(self, response: TextCompletionResponse, latency_ms: float) -> None:
        """Remember who answered the last LLM call and what it cost (for its trace stage)."""
        self.model = response.model
        self.last_call = (response.model, response.in_token, response.out_token, latency_ms)

    def cost_of(self, stage_uri: str) -> list[Triple]:
        """The last LLM call's model, tokens and latency, as figures on ``stage_uri``."""
        if self.last_call is None:
            return []
        model, in_token, out_token, latency = self.last_call
        return metrics_triples(
            stage_uri,
            GRAPH_RETRIEVAL,
            model=model or None,
            in_token=in_token,
            out_token=out_token,
            latency_ms=latency,
        )

    def fail(self, message: str) -> None:
        """Mark the question failed, with the reason."""
        if self.trace is not None:
            self.trace.fail(message)

    async def act(self, name: str, arguments: dict[str, Any], iteration_uri: str) -> str:
        """Run the named tool; any failure becomes an ``Error: …`` observation."""
        # The tool's own trace names this session's entities: the broker has them first (their
        # receipts came while the LLM thought: this waits only when the broker is slow).
        if self.trace is not None:
            await self.trace.delivered()
        tool = next((t for t in self.tools if t.name == name), None)
        if tool is None:
            known = ", ".join(t.name for t in self.tools) or "(none)"
            return f"Error: unknown tool '{name}'; the available tools are: {known}."
        call = ToolCall(
            ctx=self.ctx,
            user=self.req.user,
            collection=self.req.collection,
            parent_uri=iteration_uri if self.explainable else "",  # no trace to hang it on
            timeout=self.ctx.settings.tool_timeout,
        )
        try:
            observation = await run_tool(tool, arguments, call)
        except ToolFailure as exc:
            log.info("session %s: %s", self.uri, exc)
            if exc.cause is not None and exc.cause.type == ErrorType.NO_DATA:
                # Nothing to search: say so, as GraphRAG and DocRAG do, not an answer made up.
                self.fail(exc.cause.message)
                raise ServiceError(ErrorType.NO_DATA, exc.cause.message) from None
            return f"Error: {exc}."
        return observation.strip() or f"(tool '{name}' returned nothing)"

    async def conclude(
        self, answer: str, reason: Literal["answer", "iteration-limit"] = "answer"
    ) -> AsyncIterator[AgentResponse]:
        final_uri = uris.agent_final_uri(self.uri)
        last = self.last_uri
        for explain in self.publish(
            (
                final_uri,
                # An answer the LLM gave carries that call's figures; the iteration limit's does
                # not (its last call is on the last analysis).
                lambda: (
                    agent_final_triples(final_uri, last, answer)
                    + (self.cost_of(final_uri) if reason == "answer" else [])
                ),
            )
        ):
            yield explain
        yield AgentResponse(
            message_type="answer",
            content=answer,
            explain_id=self.uri if self.explainable else None,
            explain_graph=GRAPH_RETRIEVAL if self.explainable else None,
            model=self.model or None,
            finish_reason=reason,
            end_of_stream=True,
        )


def _raw(reply: str | StepReply | BadReply) -> str:
    """The reply as text, for the trace when it could not be read."""
    if isinstance(reply, BadReply):
        return reply.text.strip()
    return reply.strip() if isinstance(reply, str) else reply.model_dump_json()


def open_session(req: AgentRequest, ctx: Ctx, uri: str, trace: TraceWriter | None) -> Session:
    """Check the request and set up its session; ``ServiceError`` ("bad-request") if it is wrong."""
    configured = ctx.state.tools
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


@proc.service(AGENT)
async def agent(req: AgentRequest, ctx: Ctx) -> AsyncIterator[AgentResponse]:
    """Run the ReAct loop; stream every event, or only the final answer when not streaming."""
    uri, started = identity(req.session_id, req.started_at, uris.agent_session_uri)
    explainable = ctx.settings.explainable
    with open_trace(ctx, uri, req, started, journaled=explainable) as trace:
        session = open_session(req, ctx, uri, trace if explainable else None)
        async for event in session.stream():
            if req.streaming or event.end_of_stream:
                yield event


main = proc.main

if __name__ == "__main__":
    main()
