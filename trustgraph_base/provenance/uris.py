"""URI builders and parsers for traces, documents and extracted entities."""

from __future__ import annotations

import re
import uuid
from typing import Literal
from urllib.parse import quote, unquote

TraceKind = Literal["agent", "graph-rag", "document-rag"]

AGENT_PREFIX = "urn:trustgraph:agent:"
GRAPH_RAG_PREFIX = "urn:trustgraph:question:"
DOCRAG_PREFIX = "urn:trustgraph:docrag:"
DOC_PREFIX = "urn:trustgraph:doc:"
ENTITY_PREFIX = "urn:trustgraph:entity:"
RELATION_PREFIX = "urn:trustgraph:rel:"
COMPONENT_PREFIX = "urn:trustgraph:component:"

_PREFIX_KIND: dict[str, TraceKind] = {
    AGENT_PREFIX: "agent",
    GRAPH_RAG_PREFIX: "graph-rag",
    DOCRAG_PREFIX: "document-rag",
}
TRACE_PREFIXES = tuple(_PREFIX_KIND)
_SESSION_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._\-]{0,127}$")
_STEP_INDEX = re.compile(r"/i(\d+)$")
_STAGE_SUFFIX = re.compile(
    r"/(i\d+(/c\d+)?(/observation)?|final|exploration(/c\d+)?|focus(/e\d+)?|synthesis(/claim\d+(/assessment)?|/verification|/abstention)?)$"
)


def new_session_id() -> str:
    return str(uuid.uuid4())


def is_session_id(text: str) -> bool:
    """Whether ``text`` is a session id: a short URI-safe token (letters, digits, ``._-``)."""
    return _SESSION_ID.match(text) is not None


def check_session_id(session_id: str) -> str:
    """A caller-chosen session id must be a short URI-safe token."""
    if not is_session_id(session_id):
        raise ValueError(f"bad session id {session_id!r}: use letters, digits, '.', '_' or '-'")
    return session_id


def agent_session_uri(session_id: str) -> str:
    return AGENT_PREFIX + check_session_id(session_id)


def agent_iteration_uri(session_uri: str, n: int) -> str:
    return f"{session_uri}/i{n}"


def agent_step_index(session_uri: str, uri: str) -> int | None:
    """``n`` when ``uri`` is the session's iteration ``{session_uri}/i{n}``, else None."""
    if not uri.startswith(session_uri):
        return None
    match = _STEP_INDEX.fullmatch(uri, len(session_uri))
    return int(match.group(1)) if match else None


_STEP_PART = re.compile(r"/i(\d+)(?:/c\d+(?:/observation)?)?$")


def agent_step_of(session_uri: str, uri: str) -> int | None:
    """``n`` when ``uri`` is the session's step ``…/i{n}`` or one of its calls ``…/i{n}/c{k}``
    (or a call's observation): the entities whose facts a step's view shows."""
    if not uri.startswith(session_uri):
        return None
    match = _STEP_PART.fullmatch(uri, len(session_uri))
    return int(match.group(1)) if match else None


def agent_observation_uri(iteration_uri: str) -> str:
    """The Observation entity of an analysis (TrustGraph's ``…/i{n}/observation``)."""
    return f"{iteration_uri}/observation"


def agent_call_uri(iteration_uri: str, k: int) -> str:
    """Call ``k`` of a step that called several tools at once (``…/i{n}/c{k}``)."""
    return f"{iteration_uri}/c{k}"


def agent_final_uri(session_uri: str) -> str:
    return f"{session_uri}/final"


def graph_rag_question_uri(session_id: str) -> str:
    return GRAPH_RAG_PREFIX + check_session_id(session_id)


def docrag_question_uri(session_id: str) -> str:
    return DOCRAG_PREFIX + check_session_id(session_id)


def exploration_uri(question_uri: str) -> str:
    return f"{question_uri}/exploration"


def focus_uri(question_uri: str) -> str:
    return f"{question_uri}/focus"


def focus_edge_uri(question_uri: str, n: int) -> str:
    return f"{question_uri}/focus/e{n}"


def grounding_uri(question_uri: str) -> str:
    return f"{question_uri}/grounding"


def answer_document_uri(entity_uri: str) -> str:
    """The librarian document holding an answer's or observation's text (see tg:document)."""
    return f"{entity_uri}/document"


def exploration_chunk_uri(exploration: str, rank: int) -> str:
    """The reifier of a selected chunk's ``tg:selectedChunk`` triple (``…/exploration/c{rank}``)."""
    return f"{exploration}/c{rank}"


def is_exploration_chunk_uri(exploration: str, uri: str) -> bool:
    """Whether ``uri`` is one of ``exploration``'s chunk reifiers (``exploration_chunk_uri``)."""
    return uri.startswith(exploration + "/c")


def synthesis_uri(question_uri: str) -> str:
    return f"{question_uri}/synthesis"


def trace_kind(uri: str) -> TraceKind | None:
    """The trace type a URI's pattern implies (the fallback when no rdf:type is stored)."""
    for prefix, kind in _PREFIX_KIND.items():
        if uri.startswith(prefix) and len(uri) > len(prefix):
            return kind
    return None


def session_id_of(uri: str) -> str | None:
    """The session id of a trace URI (``urn:trustgraph:agent:ID`` → ``ID``), or None if not one."""
    for prefix in TRACE_PREFIXES:
        if uri.startswith(prefix) and len(uri) > len(prefix):
            return uri[len(prefix) :]
    return None


def session_trace_uris(session_id: str) -> list[str]:
    """The trace URIs a bare session id may name: one under each trace kind's prefix."""
    return [prefix + check_session_id(session_id) for prefix in TRACE_PREFIXES]


def is_conclusion_uri(root: str, uri: str) -> bool:
    """Whether ``uri`` is the last stage of trace ``root``: ``agent_final_uri`` or ``synthesis_uri``."""
    return uri in (f"{root}/final", f"{root}/synthesis")


_AGENT_PLACE = re.compile(r"/i([0-9]+)(?:/c([0-9]+))?(/observation)?$")


def agent_trace_order(uri: str) -> tuple[int, ...]:
    """Where ``uri`` comes in the run of an agent trace, as a sort key: anything not of an
    agent trace (a tool's sub-trace question) first, as it ran inside the step; then the
    question, each step ``…/i{n}`` followed by its tool calls ``…/i{n}/c{k}`` (each with its
    observation) and its observation, steps by number; the conclusion last."""
    if trace_kind(uri) != "agent":
        return (0,)
    if uri.endswith("/final"):
        return (2,)
    place = _AGENT_PLACE.search(uri)
    if place is None:
        return (1,)
    step, call, observation = int(place.group(1)), place.group(2), place.group(3) is not None
    if call is not None:
        return (1, step, 1, int(call), int(observation))
    return (1, step, 2 if observation else 0)


def trace_root(uri: str) -> str | None:
    """The question URI of the trace an entity URI belongs to, or None if it is not one."""
    if trace_kind(uri) is None:
        return None
    return _STAGE_SUFFIX.sub("", uri)


def document_uri(doc_id: str) -> str:
    """A document URI: ``doc_id`` itself if it is already a URI, else ``urn:trustgraph:doc:{id}``."""
    if ":" in doc_id:
        return doc_id
    return DOC_PREFIX + quote(doc_id, safe="-._~")


def doc_of(uri: str) -> str | None:
    """The document an extraction entity belongs to, by its URI (``{doc}/p{n}/c{m}``, …)."""
    if not uri.startswith(DOC_PREFIX):
        return None
    return DOC_PREFIX + uri[len(DOC_PREFIX) :].split("/", 1)[0]


def source_uri(ref: str) -> str:
    """A document, page or chunk URI from what a user writes: a URI as it is, a bare document
    id (``document_uri``), or a bare id with its page and chunk after it, as the URIs put them
    (``DOC/p2``, ``DOC/p2/c0``, ``DOC/c3``): only the id is encoded, not those slashes."""
    if ":" in ref:
        return ref
    parts = ref.split("/")
    tail: list[str] = []
    for letter in ("c", "p"):  # from the end: a chunk, then the page it is in
        last = parts[-1]
        if len(parts) > 1 and last[:1] == letter and last[1:].isascii() and last[1:].isdigit():
            tail.insert(0, parts.pop())
    return "/".join([document_uri("/".join(parts)), *tail])


def page_uri(doc_uri: str, n: int) -> str:
    return f"{doc_uri}/p{n}"


def chunk_uri(parent_uri: str, m: int) -> str:
    """A chunk under a page (``{doc}/p{n}/c{m}``) or directly under a document (``{doc}/c{m}``)."""
    return f"{parent_uri}/c{m}"


def subgraph_uri(chunk: str) -> str:
    return f"{chunk}/subgraph"


def activity_uri(entity_uri: str, stage: str) -> str:
    """The activity that generated an entity in one pipeline stage (decode, chunk, extract)."""
    return f"{entity_uri}/activity/{stage}"


def component_uri(name: str) -> str:
    """The software agent (a processor) that carried out an activity."""
    return COMPONENT_PREFIX + quote(name, safe="-._~")


def _slug(label: str) -> str:
    text = " ".join(label.split()).lower()
    return quote(text.replace(" ", "_"), safe="-._~")


def entity_uri(label: str) -> str:
    """The IRI of an extracted entity, from its label (same label, same entity)."""
    return ENTITY_PREFIX + _slug(label)


def relation_uri(label: str) -> str:
    """The IRI of an extracted relationship, from its label."""
    return RELATION_PREFIX + _slug(label)


def minted_label(uri: str) -> str | None:
    """The (lowercased) label an entity or relation URI was minted from (``entity_uri``,
    ``relation_uri``): what to show of an edge whose labels went with its document; None for
    any other URI."""
    for prefix in (ENTITY_PREFIX, RELATION_PREFIX):
        if uri.startswith(prefix) and len(uri) > len(prefix):
            return unquote(uri[len(prefix) :]).replace("_", " ")
    return None
