"""The trace of one RAG request: each stage published when it completes (never batched) by
the agent's trace writer too, told as an ``explain`` event once safe (journaled); the
question, GraphRAG's exploration and the synthesis go to the broker with the stage after
them (``hold``). A failure marks the question failed and answers a clear error; stages
that did not complete are never written: the stored trace is well formed."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, Generic, TypeVar

from trustgraph_base.errors import ErrorType, RequestTimeout, ServiceError
from trustgraph_base.messaging import Context
from trustgraph_base.provenance import (
    GRAPH_RETRIEVAL,
    citation_triples,
    grounding_triples,
    synthesis_triples,
)
from trustgraph_base.provenance.evidence import ClaimSpec, claim_span_triples, claim_triples
from trustgraph_base.provenance.reading import kept_reading
from trustgraph_base.provenance.uris import grounding_uri, synthesis_uri
from trustgraph_base.provenance.verification import verification_uri
from trustgraph_base.rdf.terms import Triple
from trustgraph_base.schema import TextCompletionRequest
from trustgraph_base.schema.rag import RagRequest, RagResponse
from trustgraph_flow.prompts.book import prompted
from trustgraph_flow.rag_common.calls import Completion, Cost, Spent
from trustgraph_flow.rag_common.citations import ClaimCites, cited_answer
from trustgraph_flow.rag_common.claims import answer_claims, claim_spans, places
from trustgraph_flow.rag_common.repeat import repeat_of, trace_identity
from trustgraph_flow.rag_common.verification import (
    kept_answer,
    kept_claims,
    kept_text,
    verification,
)
from trustgraph_flow.run_journal import Journaled
from trustgraph_flow.trace_writer import TraceWriter, open_trace

R = TypeVar("R", bound=RagResponse)


class Trace(Generic[R]):
    """One trace being written for one request."""

    def __init__(self, writer: TraceWriter, req: RagRequest, response: type[R]) -> None:
        self.writer, self.ctx, self.req, self.response = writer, writer.ctx, req, response
        self.question_uri = writer.question_uri
        self.read = None if req.explain_read is None else frozenset(req.explain_read)
        self.spent = Spent()  # the tokens of the run's LLM calls, for its final response

    async def stage(
        self, uri: str, triples: Sequence[Triple], cost: Cost | None = None, hold: bool = False
    ) -> R:
        """Publish a completed stage (with its cost; ``hold``: see above); its explain event."""
        body = [*triples, *(cost.triples(uri) if cost else [])]
        if cost is not None:
            self.spent.add(cost.in_token, cost.out_token)
        await self.writer.publish(uri, body, hold=hold)
        return self._event(uri, body)

    def _event(self, uri: str, body: list[Triple]) -> R:  # a stage's explain event
        read = body if self.read is None else kept_reading(body, self.read)
        return self.response(message_type="explain", explain_id=uri,
                             explain_graph=GRAPH_RETRIEVAL, explain_triples=read,
                             end_of_stream=False)  # fmt: skip

    async def ground(
        self, uri: str, triples: Sequence[Triple], cost: Cost, hold: bool
    ) -> tuple[R, R]:
        """Publish the Grounding TrustGraph's tools look for (the question text the retrieval
        embedded) with the exploration ``uri`` naming it, completed together: one trace
        message (headed by the Grounding, as a rerun's journal has it), an event each."""
        grounding = grounding_uri(self.question_uri)
        first = grounding_triples(grounding, self.question_uri, [self.req.query])
        body = [*triples, *cost.triples(uri)]
        await self.writer.publish(grounding, [*first, *body], hold=hold)
        return self._event(grounding, first), self._event(uri, body)

    def final(self, answer: str, model: str = "") -> R:
        """The last response: the answer (empty if streamed), the trace id, the model and the
        tokens the run's LLM calls took (a rerun's: those it made itself)."""
        return self.response(response=answer, explain_id=self.question_uri,
                             explain_graph=GRAPH_RETRIEVAL, model=model or None,
                             in_token=self.spent.in_token, out_token=self.spent.out_token,
                             end_of_session=True)  # fmt: skip

    def piece(self, text: str) -> R:  # a piece of the answer
        return self.response(response=text, end_of_stream=False)

    async def fail(self, message: str) -> None:
        """Mark the question failed, with the reason."""
        self.writer.fail(message)
        await self.writer.settle()

    async def guard(self, run: AsyncIterator[R]) -> AsyncIterator[R]:
        """Pass ``run``'s responses on (not an explain event its caller heard before: a run a
        kill cut short told it); on any failure mark the trace failed and answer an error."""
        try:
            async for resp in run:
                if not self.writer.heard(resp):
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
        checked_against: Sequence[str] | None = None,
        chunks: Sequence[Mapping[str, str]] = (),
    ) -> AsyncIterator[R]:
        """Ask the LLM for the answer, publish the synthesis stage derived from ``parent_uri``
        (with ``tg:cites`` for the evidence it cites), verify its claims against the texts of
        that evidence (``checked_against``, parallel to ``evidence``; default ``texts``; the
        verification stage) and end with the final response: the answer, or the abstention
        when nothing supports it. Each claim's sentence is placed (``tg:ClaimSpan``) in the
        chunks it cites (``texts``, DocumentRAG) or its evidence was read from (``chunks``).

        ``evidence``: the URIs of the prompt's numbered evidence (focus edges or chunks, in
        order). Structured, the answer and its citations come in one JSON reply (not JSON: a
        plain answer citing nothing); ``llm_structured=none``: it cites nothing. A streaming
        client gets the answer verified, as one piece (pieces as they come only with
        ``llm_structured=none`` and ``unsupported_answers=keep``: nothing is withheld).
        """
        synth = synthesis_uri(self.question_uri)
        kept = self.writer.recorded.get(synth)
        if kept is not None:  # a rerun of a run cut short after its synthesis
            against = texts if checked_against is None else checked_against
            async for resp in self._resume(request, synth, kept, evidence, against):
                yield resp
            return
        said: list[ClaimCites] = []
        live = getattr(self.ctx.settings, "unsupported_answers", "abstain") == "keep"
        request, prompt = await prompted(self.ctx, self.req.user, request)
        if evidence and getattr(self.ctx.settings, "llm_structured", "none") != "none":
            answer, cited, said, cost = await cited_answer(self.ctx, request, evidence, what)
            live = False  # one reply: given once verified
        else:
            call = Completion(self.ctx, request)
            async for piece in call.pieces():
                if request.streaming and live:
                    yield self.piece(piece)
            answer, cited, cost = call.text, [], call.cost
            live = live and request.streaming
        cost.prompt = prompt
        if not answer.strip():
            raise ServiceError(ErrorType.LLM_ERROR, "the LLM returned an empty answer")
        claims = answer_claims(answer, said, evidence)
        triples = [
            *synthesis_triples(synth, parent_uri, answer),
            *citation_triples(synth, cited),
            *claim_triples(synth, claims),
            *claim_span_triples(synth, claim_spans(claims, places(evidence, texts, chunks))),
        ]
        yield await self.stage(synth, triples, cost, hold=True)  # with its verification
        if cited and not any(c.cited for c in claims):  # cited for the whole answer only
            claims = [replace(c, cited=tuple(cited)) for c in claims]
        against = texts if checked_against is None else checked_against
        given, checked = await self._verify(synth, answer, claims, evidence, against)
        yield checked
        if request.streaming and not live:
            yield self.piece(given)
        yield self.final("" if request.streaming else given, cost.model)

    async def _verify(
        self, synth: str, answer: str, claims: Sequence[ClaimSpec], *evidence: Sequence[str]
    ) -> tuple[str, R]:
        """Verify the claims and publish the verification stage: the answer to give, the event."""
        outcome, triples = await verification(
            self.ctx,
            user=self.req.user,
            question=self.req.query,
            synthesis=synth,
            answer=answer,
            claims=claims,
            evidence=evidence[0],
            texts=evidence[1],
        )
        self.spent.add(outcome.cost.in_token, outcome.cost.out_token)  # the judge's calls
        return outcome.answer, await self.stage(verification_uri(synth), triples)

    async def _resume(
        self,
        request: TextCompletionRequest,
        synth: str,
        kept: list[Triple],
        evidence: Sequence[str],
        texts: Sequence[str],
    ) -> AsyncIterator[R]:
        """A rerun after its synthesis: that answer, verified as it was (or now, if the run
        was cut short before its verification)."""
        draft = kept_text(kept, synth)  # the synthesis's own content, not one of its claims'
        yield await self.stage(synth, kept)
        checked = self.writer.recorded.get(verification_uri(synth))
        if checked is not None:
            given = kept_answer(checked, synth, draft)
            yield await self.stage(verification_uri(synth), checked)
        else:
            claims = kept_claims(kept, synth)
            given, event = await self._verify(synth, draft, claims, evidence, texts)
            yield event
        if request.streaming and given:
            yield self.piece(given)
        yield self.final("" if request.streaming else given)


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
    question, repeat = await repeat_of(ctx, req, question, uri_of)
    with open_trace(ctx, question, req, started, repeat=repeat) as writer:
        question, started = writer.question_uri, writer.started_at  # a rerun's: its run's
        trace = Trace(writer, req, response)
        asked = question_triples(question, req.query, started, req.parent_uri or None)
        first = await trace.stage(question, asked, hold=True)  # with the exploration
        if not writer.heard(first):
            yield first
        async for resp in trace.guard(run(req, ctx, trace)):
            yield resp
