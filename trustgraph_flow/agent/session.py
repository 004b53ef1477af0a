"""One agent session and its trace: the entities each step publishes, the events the
caller gets, and the order between them (no event before the trace messages it follows
are safe). The loop that drives a session is ``loop.py``; the wiring ``processor.py``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import partial

from trustgraph_base.errors import ErrorType
from trustgraph_base.messaging import Context
from trustgraph_base.provenance import GRAPH_RETRIEVAL, uris
from trustgraph_base.provenance.agent import (
    agent_call_rows,
    agent_error_rows,
    agent_final_rows,
    agent_iteration_rows,
    agent_observation_rows,
)
from trustgraph_base.provenance.common import metrics_rows
from trustgraph_base.rdf.rows import Stated
from trustgraph_base.rdf.terms import Triple
from trustgraph_base.schema import AgentRequest, AgentResponse, TextCompletionResponse
from trustgraph_flow.agent.conclusion import checked_conclusion, ending
from trustgraph_flow.agent.events import TERMINATION, FinishReason, explain
from trustgraph_flow.agent.evidence import ToolEvidence
from trustgraph_flow.agent.prompt import Call, Step
from trustgraph_flow.agent.settings import Settings
from trustgraph_flow.agent.tools import ToolConfig
from trustgraph_flow.agent.uses import entity_id
from trustgraph_flow.prompts.book import PromptUse
from trustgraph_flow.rag_common.calls import Spent
from trustgraph_flow.trace_writer import TraceWriter


@dataclass
class Session:
    """One run of the loop for one request."""

    ctx: Context[Settings]
    req: AgentRequest
    uri: str
    tools: list[ToolConfig]
    max_iterations: int
    prior: list[Step]
    trace: TraceWriter | None  # None: not explainable (``stream``: no event before it is safe)
    steps: list[Step] = field(default_factory=list)
    structured: bool = True
    model: str = ""  # the model that wrote the last reply
    last_call: tuple[str, int, int, float] | None = None  # its model, tokens in/out, latency
    spent: Spent = field(default_factory=Spent)  # tokens of all its LLM calls (the final's)
    prompt: PromptUse | None = None  # the prompt of the last LLM call (``tg:prompt``)
    evidence: ToolEvidence = field(default_factory=ToolEvidence)  # its tools' supported claims
    prompts: set[str] = field(default_factory=set)  # the prompt nodes its trace has (once each)
    retake: int = 0  # the step a rerun takes again (its tools may have been asked): 0 none

    @property
    def explainable(self) -> bool:
        return self.trace is not None

    @property
    def last_uri(self) -> str:
        return uris.agent_iteration_uri(self.uri, len(self.steps)) if self.steps else self.uri

    def publish(self, *entities: tuple[str, Callable[[], Sequence[Stated]]]) -> list[AgentResponse]:
        """Send the entities of one step now, together as one trace message (metadata id: the
        first's URI); the explain event naming each, in order (none: not explainable). The step
        does not wait for the broker's receipt: ``stream`` passes no later event to the caller
        before it (and every earlier trace message) is safe."""
        if self.trace is None:
            return []  # the triples are not even built: off costs nothing
        built = [(uri, build()) for uri, build in entities]
        self.trace.send(built[0][0], [t for _, triples in built for t in triples])
        return [explain(uri, triples) for uri, triples in built]

    def sent(self) -> int:
        """How many trace messages have been sent so far."""
        return 0 if self.trace is None else self.trace.count

    async def settle(self, upto: int | None = None) -> None:
        """Make the first ``upto`` trace messages (default: all) safe (``TraceWriter.settle``)."""
        if self.trace is not None:
            await self.trace.settle(upto)

    async def stream(self, events: AsyncIterator[AgentResponse]) -> AsyncIterator[AgentResponse]:
        """``events`` (the loop's, ``loop.run``) in order, each passed on only once every trace message sent
        before it is safe (journaled), so nothing the caller saw can be lost. The session
        goes on meanwhile: its next LLM call goes out in the same pass as the trace message
        that went before it."""
        queue: asyncio.Queue[tuple[AgentResponse | Exception | None, int]] = asyncio.Queue()

        async def drive() -> None:
            end: Exception | None = None
            try:
                async for event in events:
                    queue.put_nowait((event, self.sent()))
            except Exception as exc:  # passed on after the events before it
                end = exc
            finally:
                queue.put_nowait((end, self.sent()))

        driving = asyncio.create_task(drive())
        # The question's explain event waits for the event after it (the first thought, or an
        # error) to go in its reply message: alone it would cost one more message a session.
        question: AgentResponse | None = None
        try:
            while True:
                known = [await queue.get()]
                while not queue.empty():
                    known.append(queue.get_nowait())
                # Events known together go on together once the latest's trace messages are safe:
                # one reply message (the final thought, the conclusion's explain and the answer).
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

    def record(self, step: Step, offered: Sequence[str] = ()) -> list[AgentResponse]:
        """Publish the next analysis and TrustGraph's Observation entity of it, as one trace
        message (the trace first, before the client hears of either); their explain events
        (none: not explainable). The analysis derives from what the step named as used, else
        from the step before (the first from the question); ``offered``: the tools it had.
        A step that called several tools at once has their calls and observations published
        already (``record_call``): its analysis keeps them all, as SPEC's one analysis."""
        n = len(self.steps) + 1
        uri = uris.agent_iteration_uri(self.uri, n)
        parents = list(step.uses) or self.last_uri
        arguments: dict[str, object] | str = step.arguments
        if step.calls:
            arguments = json.dumps(
                [{"action": c.action, "arguments": c.arguments} for c in step.calls]
            )
        entities: list[tuple[str, Callable[[], Sequence[Stated]]]] = [
            (
                uri,
                lambda: (
                    agent_iteration_rows(
                        uri,
                        parents,
                        step.thought,
                        step.action,
                        arguments,
                        step.observation,
                        step=n,
                        candidates=offered,
                    )
                    + self.cost_of(uri)
                ),
            )
        ]
        if not step.calls:
            seen = uris.agent_observation_uri(uri)
            entities.append((seen, lambda: agent_observation_rows(seen, uri)))
        explains = self.publish(*entities)
        self.steps.append(replace(step, ref=entity_id(self.uri, uri)))
        return explains

    def record_call(self, k: int, call: Call) -> list[AgentResponse]:
        """Publish call ``k`` of the step under way (one of several tools it called at once)
        and its Observation, as one trace message, as soon as the call has returned."""
        step = uris.agent_iteration_uri(self.uri, len(self.steps) + 1)
        uri = uris.agent_call_uri(step, k)
        built = partial(agent_call_rows, uri, step, call.action, call.arguments, call.observation)
        return self.publish((uri, built))

    def note_call(self, response: TextCompletionResponse, latency_ms: float) -> None:
        """Remember who answered the last LLM call and what it cost (for its trace stage)."""
        self.model = response.model
        self.last_call = (response.model, response.in_token, response.out_token, latency_ms)
        self.spent.add(response.in_token, response.out_token)

    def cost_of(self, stage_uri: str) -> list[Stated]:
        """The last LLM call's model, tokens and latency, as figures on ``stage_uri``."""
        if self.last_call is None:
            return []
        model, in_token, out_token, latency = self.last_call
        used = self.prompt.rows(stage_uri, GRAPH_RETRIEVAL, self.prompts) if self.prompt else []
        figures = metrics_rows(
            stage_uri,
            GRAPH_RETRIEVAL,
            model=model or None,
            in_token=in_token,
            out_token=out_token,
            latency_ms=latency,
        )
        return [*figures, *used]

    def fail(self, message: str, error_type: ErrorType) -> None:
        """End the run as failed: its conclusion says so (``tg:terminationReason`` "error", the
        reason and its ``tg:errorType``, no answer; derived from the last step, or the question),
        and the question is marked failed with the reason (SPEC's failure form, readers' too)."""
        if self.trace is not None:
            final = uris.agent_final_uri(self.uri)
            ending = agent_error_rows(final, self.last_uri, message, error_type)
            self.trace.fail(message, ending)

    async def conclude(
        self, answer: str, reason: FinishReason = "answer", uses: Sequence[str] = ()
    ) -> AsyncIterator[AgentResponse]:
        """Publish the conclusion — derived from what the answering step named as used, else
        from the last step — and give the answer. ``reason`` is the final response's
        ``finish_reason``; the trace keeps it as ``tg:terminationReason`` (``TERMINATION``)."""
        final_uri = uris.agent_final_uri(self.uri)
        last = list(uses) or self.last_uri
        given, checked = answer, list[Triple]()
        if reason == "answer":  # its claims against its tools' supported claims
            kept = self.trace.recorded.get(final_uri) if self.trace is not None else None
            given, checked = await checked_conclusion(
                self.ctx, self.req.user, self.req.question, final_uri, answer, self.evidence, kept
            )
        for told in self.publish(
            (
                final_uri,
                # An answer the LLM gave carries that call's figures; the iteration limit's does
                # not (its last call is on the last analysis).
                lambda: (
                    agent_final_rows(final_uri, last, answer, TERMINATION[ending(reason, given)])
                    + (self.cost_of(final_uri) if reason != "iteration-limit" else [])
                    + checked
                ),
            )
        ):
            yield told
        yield AgentResponse(
            message_type="answer",
            content=given,
            explain_id=self.uri if self.explainable else None,
            explain_graph=GRAPH_RETRIEVAL if self.explainable else None,
            model=self.model or None,
            in_token=self.spent.in_token,
            out_token=self.spent.out_token,
            finish_reason=reason,
            end_of_stream=True,
        )
