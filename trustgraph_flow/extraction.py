"""The ``extract-edges`` exchange with the LLM: the prompt, the request, the reply's schema
and its validation.

The reply is structured output: the edge-list schema (``EDGES_SCHEMA``) is sent with the
request and every reply is validated against it (``parse_edges``, ``check_edges``).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from trustgraph_base.schema import TextCompletionRequest, TextCompletionResponse
from trustgraph_flow.partial_json import complete_items, unclosed
from trustgraph_flow.structured import BadReply, EdgeList, schema_of, validate

SYSTEM = (
    "You extract knowledge graph edges from text. Answer with JSON only: an object "
    '{"edges": [...]} whose items are {"s": subject, "p": predicate, "o": object, '
    '"o_literal": bool, "quote": the sentence of the text that states it, copied exactly}.'
)
PROMPT = """Extract the factual relationships stated in the text below.
Use short entity names as they appear in the text and a short lowercase predicate
(for example "capital of", "born in", "wrote"). Set "o_literal" to true when the object
is a value (a number, date or quantity) rather than a named entity.
Set "quote" to the sentence of the text that states the relationship, copied exactly
character for character (do not reword or shorten it).
Answer with JSON only, no prose: an object whose "edges" list has one item per
relationship, each with "s" (subject), "p" (predicate), "o" (object), "o_literal" and
"quote".

Text:
{text}
"""
MAX_REPLY_EDGES = 50  # the schema's maxItems: a small model may otherwise repeat itself
MAX_REPLY_TOKENS = 2048
# A chunk's edges restate its text: each item's labels and quote come from it, plus ~20
# tokens of JSON. One edge a sentence comes to ~1.3 tokens a character of text (the offline
# engine's reply for samples/capitals.txt: 490 SmolLM2 tokens for 383 characters, 101 tokens
# of text); 1.5 a character, after a base for a short chunk's few items, leaves room.
REPLY_BASE_TOKENS = 128
REPLY_TOKENS_PER_CHAR = 1.5
MAX_LABEL = 80  # the schema's maxLength for a label
MAX_QUOTE = 600  # the schema's maxLength for the quoted sentence


class ExtractedEdge(BaseModel):
    """One edge as the LLM states it (labels, not URIs)."""

    model_config = ConfigDict(extra="ignore", frozen=True)
    s: str = Field(min_length=1)
    p: str = Field(min_length=1)
    o: str = Field(min_length=1)
    o_literal: bool = False
    quote: str = ""  # the sentence stating it, as the LLM copied it (located by the extractor)

    @field_validator("s", "p", "o")
    @classmethod
    def _label(cls, value: str) -> str:
        label = " ".join(value.split())
        if not label:
            raise ValueError("empty label")
        return label


class ExtractedEdges(EdgeList):
    """An ``extract-edges`` reply: ``{"edges": [...]}`` (a bare list is accepted too)."""

    edges: list[ExtractedEdge]


EDGES_SCHEMA = schema_of(ExtractedEdges, max_length=MAX_LABEL)
EDGES_SCHEMA["properties"]["edges"]["maxItems"] = MAX_REPLY_EDGES
EDGES_SCHEMA["properties"]["edges"]["items"]["properties"]["quote"]["maxLength"] = MAX_QUOTE


class BadOutput(ValueError):
    """The LLM's answer is not a valid edge list."""


def _key(edge: ExtractedEdge) -> tuple[str, str, str, bool]:
    return (edge.s.casefold(), edge.p.casefold(), edge.o.casefold(), edge.o_literal)


def check_edges(reply: ExtractedEdges, max_edges: int = 200) -> list[ExtractedEdge]:
    """The edges of a validated reply, the first of repeats only (labels compared without
    case: a small model's degenerate reply repeats itself); too many is a runaway answer."""
    unique: dict[tuple[str, str, str, bool], ExtractedEdge] = {}
    for edge in reply.edges:
        unique.setdefault(_key(edge), edge)
    if len(unique) > max_edges:
        raise BadOutput(f"{len(unique)} edges in one chunk (limit {max_edges})")
    return list(unique.values())


def cut_off(answer: str, response: TextCompletionResponse | None, max_tokens: int) -> bool:
    """Whether a reply that did not validate was cut off by its length limit: it used all
    its tokens, or its JSON ends unclosed (a server may not count tokens)."""
    used = response is not None and response.out_token >= max_tokens
    return used or unclosed(answer)


def salvage(answer: str) -> ExtractedEdges:
    """The whole edges of a reply cut off before its end (an item that does not validate
    is dropped): what the reply said before the cut, instead of asking again."""
    edges: list[ExtractedEdge] = []
    for item in complete_items(answer, "edges"):
        try:
            edges.append(ExtractedEdge.model_validate(item))
        except ValidationError:
            continue
    return ExtractedEdges(edges=edges)


def parse_edges(answer: str, max_edges: int = 200) -> list[ExtractedEdge]:
    """Validate an ``extract-edges`` answer: ``{"edges": [{s, p, o, o_literal}]}`` or a list."""
    try:
        reply = validate(answer, ExtractedEdges)
    except BadReply as exc:
        raise BadOutput(f"not an edge list: {exc}") from None
    return check_edges(reply, max_edges)


def extraction_request(text: str) -> TextCompletionRequest:
    """The ``extract-edges`` request for one chunk's text."""
    return TextCompletionRequest(
        system=SYSTEM,
        prompt=PROMPT.format(text=text),
        prompt_type="extract-edges",
        variables={"text": text},
        temperature=0.0,
        max_tokens=reply_tokens(text),
    )


def reply_tokens(text: str) -> int:
    """The ``max_tokens`` of the reply for a chunk: bounded by what its text can hold, so a
    small model that runs away stops early (``MAX_REPLY_TOKENS`` at most)."""
    return min(MAX_REPLY_TOKENS, REPLY_BASE_TOKENS + int(len(text) * REPLY_TOKENS_PER_CHAR))
