"""Assembled traces as the explain service answers them: the trace list's rows and whole traces.

The store assembles these views server-side so that a client needs one round trip
whatever the size of a trace. The CLI renders them as text or dumps them as JSON
(their field names are the stable JSON keys).
"""

from __future__ import annotations

from typing import Literal

from trustgraph_base.rdf.terms import Term
from trustgraph_base.schema.core import Message

TraceType = Literal["agent", "graph-rag", "document-rag"]
TraceStatus = Literal["complete", "in-progress", "failed", "interrupted"]
# The answer's verdict (docs/provenance.md, "Verification"); "unverified": none was recorded.
AnswerVerdict = Literal["supported", "partly-supported", "unsupported", "unverified"]


class TraceSummary(Message):
    """One row of the trace list."""

    id: str
    type: TraceType
    question: str
    time: str  # xsd:dateTime lexical form
    status: TraceStatus = "complete"
    verdict: AnswerVerdict | None = None  # the answer's verdict, when the list was asked by it


class SpanRef(Message):
    """The sentence an edge was extracted from (a ``tg:Span``, docs/provenance.md): its
    quoted text and where it lies in the page (or page-less document) text; ``located``
    false when the quote is not in the chunk (then no offsets)."""

    quote: str
    page_offset: int | None = None
    length: int | None = None
    located: bool = True


class SourceRef(Message):
    """Where a chunk came from: chunk → page (if any) → document; the chunk's place in its
    page (``char_offset``/``char_length``) and, for an edge, the sentences stating it."""

    chunk: str
    chunk_index: int | None = None
    page: str | None = None
    page_number: int | None = None
    document: str
    title: str | None = None
    mime_type: str | None = None
    char_offset: int | None = None
    char_length: int | None = None
    spans: list[SpanRef] = []


class Removal(Message):
    """A source a trace used was removed: the erasure activity (``prov:wasInvalidatedBy``)."""

    erasure: str  # urn:trustgraph:erasure:{uuid}
    time: str  # xsd:dateTime of the removal
    reason: str | None = None
    document: str | None = None  # the document removed


class EdgeView(Message):
    """A knowledge edge ``<< s p o >>``; for a GraphRAG focus edge, with its reasoning."""

    uri: str | None = None
    s: Term
    p: Term
    o: Term
    s_label: str | None = None
    p_label: str | None = None
    o_label: str | None = None
    reasoning: str | None = None
    cited: bool = False  # a focus edge the answer cites (tg:cites on the synthesis)
    sources: list[SourceRef] = []
    removed: list[Removal] = []  # a focus edge whose source document was removed since


class ChunkView(Message):
    """A chunk selected by DocumentRAG, with its source when provenance was asked for."""

    uri: str
    score: float | None = None  # similarity to the question (None in traces from before scores)
    vector_rank: int | None = None  # its place in the vector search (hybrid retrieval only)
    lexical_score: float | None = None  # its score for the question's words (hybrid only)
    cited: bool = False  # a selected chunk the answer cites (tg:cites on the synthesis)
    sources: list[SourceRef] = []
    removed: list[Removal] = []  # the chunk's document was removed since


class StageMetrics(Message):
    """Per-stage figures recorded as extra predicates (tg:llmModel, tg:inToken, …)."""

    model: str | None = None
    in_token: int | None = None
    out_token: int | None = None
    latency_ms: float | None = None


class AgentCallView(Message):
    """One of several tools a step called at once (``…/i{n}/c{k}``) and what it returned."""

    uri: str
    action: str = ""
    arguments: str = ""  # JSON text, as stored
    observation: str | None = None
    subtraces: list[TraceView] = []
    used: bool = True  # False: the answer relies neither on this call's result nor its step


class AgentStepView(Message):
    """One agent iteration: thought, action, arguments, observation, and any sub-traces it ran;
    what it derives from (``uses``: the question, earlier steps' analyses, observations or
    calls), its calls when it called several tools at once, and whether the answer depends on
    it (``used``: False for a dead end the conclusion does not rely on)."""

    uri: str
    index: int
    thought: str = ""
    action: str = ""
    arguments: str = ""  # JSON text, as stored
    observation: str | None = None  # None: not yet known (trace in progress)
    subtraces: list[TraceView] = []
    uses: list[str] = []
    calls: list[AgentCallView] = []
    used: bool = True


class ClaimView(Message):
    """A sentence of a RAG answer (``tg:Claim``) and the evidence it cites: focus edge URIs
    (GraphRAG) or chunk URIs (DocumentRAG), as in ``edges[].uri`` / ``chunks[].uri``."""

    uri: str
    text: str
    offset: int | None = None  # in the answer
    length: int | None = None
    cited: list[str] = []
    # its assessment (docs/provenance.md, "Verification"); None: not verified (older traces)
    verdict: str | None = None  # supported | not-supported | contradicted | unverified
    score: float | None = None
    reason: str | None = None


class VerificationView(Message):
    """The verification of a RAG answer: how, by what, the answer's verdict and why, and the
    answer given instead when it was withheld (``abstention``)."""

    uri: str
    method: str = ""
    model: str = ""
    verdict: str = ""  # supported | partly-supported | unsupported
    reason: str = ""
    relevance: float | None = None
    abstention: str | None = None


class TraceView(Message):
    """A whole trace, assembled from ``urn:graph:retrieval`` (and ``urn:graph:source``)."""

    id: str
    type: TraceType
    question: str
    time: str
    status: TraceStatus
    error: str | None = None
    parent: str | None = None  # the analysis this sub-trace was called from
    # agent
    steps: list[AgentStepView] = []
    answer: str | None = None  # agent conclusion (tg:answer) or RAG synthesis (tg:content)
    uses: list[str] = []  # what an agent conclusion derives from
    # GraphRAG / DocumentRAG
    exploration: str | None = None
    edge_count: int | None = None
    chunk_count: int | None = None
    chunks: list[ChunkView] = []
    focus: str | None = None
    edges: list[EdgeView] = []
    synthesis: str | None = None
    claims: list[ClaimView] = []  # the answer's sentences, each with what it cites
    verification: VerificationView | None = None  # None: not verified (older traces)
    metrics: dict[str, StageMetrics] = {}  # stage name → figures


AgentStepView.model_rebuild()
