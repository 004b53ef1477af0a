"""What GraphRAG and DocumentRAG share: their trace's stages, LLM calls with their cost, failures.

Each stage of a trace is published on ``triples-store`` the moment it completes (never
batched at the end), by the trace writer the agent uses too (``trace_writer``), and
answered to the client as an ``explain`` event once it is persisted.
A failure marks the question failed and answers a clear error; stages that did not
complete are never written, so the stored trace is always well formed.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, field_validator

from trustgraph_base.errors import ErrorType, RequestTimeout, ServiceError
from trustgraph_base.messaging import EMBEDDINGS, LIBRARIAN, TEXT_COMPLETION, VECTORS, Context
from trustgraph_base.provenance import (
    GRAPH_RETRIEVAL,
    citation_triples,
    grounding_triples,
    metrics_triples,
    synthesis_triples,
)
from trustgraph_base.provenance.uris import grounding_uri, synthesis_uri
from trustgraph_base.rdf.terms import Triple, check_iri
from trustgraph_base.schema import (
    EmbeddingsRequest,
    LibrarianRequest,
    TextCompletionRequest,
    TextCompletionResponse,
    VectorMatch,
    VectorRequest,
)
from trustgraph_base.schema.llm import VectorKind
from trustgraph_base.schema.rag import RagRequest, RagResponse
from trustgraph_base.settings import ProcessorSettings
from trustgraph_flow.run_journal import Journaled, RunJournal, open_journal
from trustgraph_flow.structured import BadReply, ask, schema_of
from trustgraph_flow.trace_writer import TraceWriter, identity, open_trace

R = TypeVar("R", bound=RagResponse)


class RagSettings(ProcessorSettings):
    """Settings of both RAG processors."""

    llm_temperature: float | None = None
    """Sampling temperature for answers (empty: the model's default)."""

    llm_structured: Literal["json_schema", "json_object", "none"] = "json_schema"
    """As text-completion's: json_schema/json_object ask the answer with the evidence it cites
    (one non-streamed reply); none streams plain text that cites nothing (docs/rag.md)."""


@dataclass(frozen=True)
class RagState:
    """A RAG processor's state: its run journal."""

    journal: RunJournal


RagContext = Context[RagSettings, RagState]


async def open_rag_state(ctx: Context[RagSettings]) -> AsyncIterator[RagState]:
    """Lifespan of both RAG processors: traces a killed predecessor left open end as interrupted."""
    yield RagState(await open_journal(ctx))


CITE_SYSTEM = (
    ' Reply with only JSON like {"answer": "the answer", "cited": [1, 3]}, where "cited" '
    "lists the numbers of the {what} the answer rests on (none if it rests on none)."
)


class CitedAnswer(BaseModel):
    """A synthesis reply under structured output: the answer and the numbers (1-based) of
    the evidence it cites; "e2", "[2]" and "2" are all read as 2."""

    model_config = ConfigDict(extra="ignore", frozen=True)
    answer: str
    cited: list[int] = []

    @field_validator("cited", mode="before")
    @classmethod
    def _numbers(cls, value: Any) -> Any:
        if not isinstance(value, list):
            return value
        out: list[Any] = []
        for item in value:
            if isinstance(item, str):
                digits = item.strip().strip("[]").lstrip("eEcC#")
                out.append(int(digits) if digits.isdigit() else 0)
            else:
                out.append(item)
        return out


def cited_schema(count: int) -> dict[str, Any]:
    """The synthesis reply schema for ``count`` numbered pieces of evidence."""
    schema = schema_of(CitedAnswer)
    items: dict[str, Any] = {"type": "integer", "enum": list(range(1, count + 1))}
    schema["properties"]["cited"] = {"type": "array", "items": items, "maxItems": count}
    return schema


LOOKUP_TIMEOUT = 5.0  # seconds to wait for the librarian when explaining an empty result


def no_data_error(req: RagRequest) -> ServiceError:
    """The error for a collection with nothing to retrieve from."""
    return ServiceError(
        ErrorType.NO_DATA,
        f"collection {req.collection!r} of user {req.user!r} has no documents; "
        "load some with tg-load-document",
    )


async def nothing_found_error(
    ctx: Context[Any], req: RagRequest, missing: Literal["edges", "chunks"]
) -> ServiceError:
    """The error when retrieval finds nothing, saying why: no documents, documents still
    being processed, or documents from which nothing was extracted (asked of the librarian;
    if it does not answer, the plain ``no_data_error``)."""
    listing = LibrarianRequest(operation="list-documents", user=req.user, collection=req.collection)
    try:
        found = await ctx.client(LIBRARIAN).request(
            listing, timeout=min(LOOKUP_TIMEOUT, ctx.settings.request_timeout)
        )
    except (ServiceError, RequestTimeout):
        return no_data_error(req)
    docs = found.documents
    if not docs:
        return no_data_error(req)
    noun = "document" if len(docs) == 1 else "documents"
    what = "knowledge edges were extracted" if missing == "edges" else "text chunks were indexed"
    where = f"collection {req.collection!r} of user {req.user!r}"
    busy = sum(d.status in ("uploading", "processing") for d in docs)
    if busy:
        hint = f"{busy} of them still being processed: ask again when tg-list-documents shows them complete"
    elif missing == "edges":
        hint = (
            "the LLM found no facts in them (tg-list-documents shows each document's edges "
            "and errors); tg-invoke-document-rag answers from their text"
        )
    else:
        hint = "tg-list-documents shows each document's status and errors"
    return ServiceError(
        ErrorType.NO_DATA, f"no {what} from the {len(docs)} {noun} in {where} ({hint})"
    )


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


@dataclass
class Cost:
    """What one stage cost: the model, tokens and wall time (summed over its calls)."""

    model: str = ""
    in_token: int | None = None
    out_token: int | None = None
    latency_ms: float = 0.0

    def add(self, model: str, in_token: int, out_token: int, latency_ms: float) -> None:
        self.model = self.model or model
        self.in_token = (self.in_token or 0) + in_token
        self.out_token = (self.out_token or 0) + out_token
        self.latency_ms += latency_ms

    def triples(self, stage_uri: str) -> list[Triple]:
        return metrics_triples(
            stage_uri,
            GRAPH_RETRIEVAL,
            model=self.model or None,
            in_token=self.in_token,
            out_token=self.out_token,
            latency_ms=self.latency_ms,
        )


class Timer:
    """Milliseconds since creation (monotonic)."""

    def __init__(self) -> None:
        self.start = time.monotonic()

    def ms(self) -> float:
        return (time.monotonic() - self.start) * 1000.0


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
    ) -> AsyncIterator[R]:
        """Ask the LLM for the answer, publish the synthesis stage derived from ``parent_uri``
        (with ``tg:cites`` for the evidence it cites) and end with the final response.

        ``evidence`` are the URIs of the numbered evidence of the prompt (focus edges or
        chunks, in order). Under structured output the answer and its citations come in one
        non-streamed JSON reply (a streaming client gets the answer as one piece); a reply
        that is not that JSON is taken as a plain answer citing nothing. With
        ``llm_structured=none`` the answer streams as plain text and cites nothing.
        """
        if evidence and getattr(self.ctx.settings, "llm_structured", "none") != "none":
            answer, cited, cost = await self._cited(request, evidence, what)
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
        synth = synthesis_uri(self.question_uri)
        triples = [*synthesis_triples(synth, parent_uri, answer), *citation_triples(synth, cited)]
        yield await self.stage(synth, triples, cost)
        yield self.final("" if request.streaming else answer, cost.model)

    async def _cited(
        self, request: TextCompletionRequest, evidence: Sequence[str], what: str
    ) -> tuple[str, list[str], Cost]:
        """One structured call: the answer, the URIs of the evidence it cites, its cost."""
        asked = request.model_copy(
            update={"system": request.system + CITE_SYSTEM.replace("{what}", what)}
        )
        cost = Cost()
        try:
            reply = await ask(self.ctx, asked, CitedAnswer, schema=cited_schema(len(evidence)))
        except BadReply as exc:  # not the JSON asked for: a plain answer that cites nothing
            if exc.response is not None:
                add_cost(cost, exc.response, exc.latency_ms)
            return exc.text, [], cost
        add_cost(cost, reply.response, reply.latency_ms)
        cited = [evidence[n - 1] for n in reply.value.cited if 1 <= n <= len(evidence)]
        return reply.value.answer, cited, cost


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
        trace = Trace(writer, req, response)
        yield await trace.stage(
            question, question_triples(question, req.query, started, req.parent_uri or None)
        )
        async for resp in trace.guard(run(req, ctx, trace)):
            yield resp


@dataclass
class Completion:
    """One LLM call: iterate ``pieces()`` (streamed or not), then read ``text`` and ``cost``."""

    ctx: Context[Any]
    request: TextCompletionRequest
    text: str = ""
    cost: Cost = field(default_factory=Cost)

    async def pieces(self) -> AsyncIterator[str]:
        """Yield the answer as it arrives; a non-streaming call yields it once."""
        timer = Timer()
        client = self.ctx.client(TEXT_COMPLETION)
        parts: list[str] = []
        model, in_token, out_token = "", 0, 0
        timeout = self.ctx.settings.request_timeout
        async for resp in client.stream(self.request, timeout=timeout):
            model = resp.model or model
            in_token = max(in_token, resp.in_token)
            out_token = max(out_token, resp.out_token)
            if resp.response:
                parts.append(resp.response)
                yield resp.response
        self.text = "".join(parts)
        self.cost.add(model, in_token, out_token, timer.ms())


def add_cost(cost: Cost, response: TextCompletionResponse, latency_ms: float) -> None:
    """Add one finished LLM call (its response and wall time) to a stage's cost."""
    cost.add(response.model, response.in_token, response.out_token, latency_ms)


async def nearest(
    ctx: Context[Any], req: RagRequest, kind: VectorKind, limit: int, cost: Cost
) -> list[VectorMatch]:
    """Embed the question and return the ``limit`` nearest items of one kind in the collection."""
    timer = Timer()
    timeout = ctx.settings.request_timeout
    emb = await ctx.client(EMBEDDINGS).request(
        EmbeddingsRequest(texts=[req.query]), timeout=timeout
    )
    if not emb.vectors:
        raise ServiceError(ErrorType.EMBEDDINGS_ERROR, "the embeddings service returned no vector")
    found = await ctx.client(VECTORS).request(
        VectorRequest(
            operation="query",
            kind=kind,
            vector=emb.vectors[0],
            limit=limit,
            user=req.user,
            collection=req.collection,
        ),
        timeout=timeout,
    )
    cost.model = cost.model or emb.model
    cost.latency_ms += timer.ms()
    return list(found.matches)
