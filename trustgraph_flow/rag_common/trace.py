"""The trace of one RAG request: its stages, each published on ``triples-store`` the
moment it completes (never batched at the end) by the trace writer the agent uses too
(``trace_writer``) and answered to the client as an ``explain`` event once it is safe.
A failure marks the question failed and answers a clear error; stages that did not
complete are never written, so the stored trace is always well formed.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any, Generic, TypeVar

from trustgraph_base.errors import ErrorType, RequestTimeout, ServiceError
from trustgraph_base.messaging import Context
from trustgraph_base.provenance import (
    GRAPH_RETRIEVAL,
    TG,
    citation_triples,
    grounding_triples,
    synthesis_triples,
)
from trustgraph_base.provenance.evidence import claim_span_triples, claim_triples
from trustgraph_base.provenance.uris import grounding_uri, synthesis_uri
from trustgraph_base.rdf.terms import LiteralTerm, Triple, check_iri
from trustgraph_base.schema import TextCompletionRequest
from trustgraph_base.schema.rag import RagRequest, RagResponse
from trustgraph_flow.rag_common.calls import Completion, Cost, add_cost
from trustgraph_flow.rag_common.citations import (
    CITE_SYSTEM,
    CitedAnswer,
    ClaimCites,
    cited_schema,
)
from trustgraph_flow.rag_common.claims import answer_claims, claim_spans
from trustgraph_flow.run_journal import Journaled
from trustgraph_flow.structured import BadReply, ask
from trustgraph_flow.trace_writer import TraceWriter, identity, open_trace

R = TypeVar("R", bound=RagResponse)


def trace_identity(req: RagRequest, uri_of: Callable[[str], str]) -> tuple[str, str]:
    """The question URI and start time (the caller's ``session_id``/``started_at`` when given).

    Everything the caller names is checked before anything is written: the session id and
    the parent here, ``started_at`` when the request was read (``StartedAt``).
    """
    found = identity(req.session_id, req.started_at, uri_of)
    if req.parent_uri:
        try:
            check_iri(req.parent_uri)
        except ValueError as exc:
            raise ServiceError(ErrorType.BAD_REQUEST, str(exc)) from None
    return found


class Trace(Generic[R]):
    """One trace being written for one request."""

    def __init__(self, writer: TraceWriter, req: RagRequest, response: type[R]) -> None:
        self.writer = writer
        self.ctx = writer.ctx
        self.req = req
        self.question_uri = writer.question_uri
        self.response = response

    async def stage(self, uri: str, triples: Sequence[Triple], cost: Cost | None = None) -> R:
        """Publish one completed stage (with its cost) and return its explain event."""
        body = [*triples, *(cost.triples(uri) if cost else [])]
        await self.writer.publish(uri, body)
        return self.response(
            message_type="explain",
            explain_id=uri,
            explain_graph=GRAPH_RETRIEVAL,
            explain_triples=body,
            end_of_stream=False,
        )

    async def ground(self) -> tuple[str, R]:
        """Publish the Grounding TrustGraph's tools look for: what the retrieval searched with
        (the question text: both flows embed it whole). Its URI and explain event."""
        uri = grounding_uri(self.question_uri)
        return uri, await self.stage(
            uri, grounding_triples(uri, self.question_uri, [self.req.query])
        )

    def final(self, answer: str, model: str = "") -> R:
        """The last response: the answer (empty when it was streamed), the trace id and the
        model that wrote the answer."""
        return self.response(
            response=answer,
            explain_id=self.question_uri,
            explain_graph=GRAPH_RETRIEVAL,
            model=model or None,
            end_of_session=True,
        )

    def piece(self, text: str) -> R:
        return self.response(response=text, end_of_stream=False)

    async def fail(self, message: str) -> None:
        """Mark the question failed, with the reason."""
        self.writer.fail(message)
        await self.writer.settle()

    async def guard(self, run: AsyncIterator[R]) -> AsyncIterator[R]:
        """Pass ``run``'s responses on; on any failure mark the trace failed and answer an error."""
        try:
            async for resp in run:
                yield resp
        except ServiceError as exc:
            await self.fail(f"{exc.type}: {exc.message}")
            raise
        except RequestTimeout as exc:
            await self.fail(f"timeout: {exc}")
            raise ServiceError(ErrorType.TIMEOUT, str(exc)) from None
        except Exception as exc:
            await self.fail(f"internal-error: {type(exc).__name__}: {exc}")
            raise

    async def synthesize(
        self,
        request: TextCompletionRequest,
        parent_uri: str,
        evidence: Sequence[str] = (),
        what: str = "facts",
        texts: Sequence[str] = (),
    ) -> AsyncIterator[R]:
        """Ask the LLM for the answer, publish the synthesis stage derived from ``parent_uri``
        (with ``tg:cites`` for the evidence it cites) and end with the final response.

        ``evidence`` are the URIs of the numbered evidence of the prompt (focus edges or
        chunks, in order). Under structured output the answer and its citations come in one
        non-streamed JSON reply (a streaming client gets the answer as one piece); a reply
        that is not that JSON is taken as a plain answer citing nothing. With
        ``llm_structured=none`` the answer streams as plain text and cites nothing.
        ``texts`` (the chunks' texts, DocumentRAG) place each claim's sentence in the
        chunks it cites (``tg:ClaimSpan``).
        """
        synth = synthesis_uri(self.question_uri)
        kept = self.writer.recorded.get(synth)
        if kept is not None:  # a rerun of a run cut short after its synthesis: that answer
            answer = next(  # the synthesis's own content, not one of its claims'
                (
                    t.o.v
                    for t in kept
                    if t.p == TG.content and isinstance(t.o, LiteralTerm) and t.s.i == synth  # type: ignore[union-attr]
                ),
                "",
            )
            if request.streaming and answer:
                yield self.piece(answer)
            yield await self.stage(synth, kept)
            yield self.final("" if request.streaming else answer)
            return
        said: list[ClaimCites] = []
        if evidence and getattr(self.ctx.settings, "llm_structured", "none") != "none":
            answer, cited, said, cost = await self._cited(request, evidence, what)
            if request.streaming and answer.strip():
                yield self.piece(answer)
        else:
            call = Completion(self.ctx, request)
            async for piece in call.pieces():
                if request.streaming:
                    yield self.piece(piece)
            answer, cited, cost = call.text, [], call.cost
        if not answer.strip():
            raise ServiceError(ErrorType.LLM_ERROR, "the LLM returned an empty answer")
        claims = answer_claims(answer, said, evidence)
        triples = [
            *synthesis_triples(synth, parent_uri, answer),
            *citation_triples(synth, cited),
            *claim_triples(synth, claims),
            *claim_span_triples(synth, claim_spans(claims, evidence, texts) if texts else []),
        ]
        yield await self.stage(synth, triples, cost)
        yield self.final("" if request.streaming else answer, cost.model)

    async def _cited(
        self, request: TextCompletionRequest, evidence: Sequence[str], what: str
    ) -> tuple[str, list[str], list[ClaimCites], Cost]:
        """One structured call: the answer, the URIs of the evidence it cites, its sentences
        with the evidence numbers of each, its cost."""
        asked = request.model_copy(
            update={"system": request.system + CITE_SYSTEM.replace("{what}", what)}
        )
        cost = Cost()
        try:
            reply = await ask(self.ctx, asked, CitedAnswer, schema=cited_schema(len(evidence)))
        except BadReply as exc:  # not the JSON asked for: a plain answer that cites nothing
            if exc.response is not None:
                add_cost(cost, exc.response, exc.latency_ms)
            return exc.text, [], [], cost
        add_cost(cost, reply.response, reply.latency_ms)
        cited = [evidence[n - 1] for n in reply.value.cited if 1 <= n <= len(evidence)]
        return reply.value.answer, cited, reply.value.claims, cost


QuestionTriples = Callable[[str, str, str, str | None], list[Triple]]


async def traced(
    req: RagRequest,
    ctx: Context[Any, Journaled],
    response: type[R],
    uri_of: Callable[[str], str],
    question_triples: QuestionTriples,
    run: Callable[[Any, Context[Any], Trace[R]], AsyncIterator[R]],
) -> AsyncIterator[R]:
    """Open a trace with its question stage, then pass on ``run``'s stages under the guard."""
    question, started = trace_identity(req, uri_of)
    with open_trace(ctx, question, req, started) as writer:
        question, started = writer.question_uri, writer.started_at  # a rerun's: its run's
        trace = Trace(writer, req, response)
        yield await trace.stage(
            question, question_triples(question, req.query, started, req.parent_uri or None)
        )
        async for resp in trace.guard(run(req, ctx, trace)):
            yield resp
