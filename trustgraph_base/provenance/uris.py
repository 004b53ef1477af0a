"""URI builders and parsers for traces, documents and extracted entities."""

from __future__ import annotations

import re
import uuid
from typing import Literal

# The document URIs' builders, re-exported for the callers of ``uris``.
from trustgraph_base.provenance.document_uris import (
    ACTIVITY_PREFIX as ACTIVITY_PREFIX,
)
from trustgraph_base.provenance.document_uris import (
    COMPONENT_PREFIX as COMPONENT_PREFIX,
)
from trustgraph_base.provenance.document_uris import (
    DOC_PREFIX as DOC_PREFIX,
)
from trustgraph_base.provenance.document_uris import (
    ENTITY_PREFIX as ENTITY_PREFIX,
)
from trustgraph_base.provenance.document_uris import (
    RELATION_PREFIX as RELATION_PREFIX,
)
from trustgraph_base.provenance.document_uris import (
    activity_uri as activity_uri,
)
from trustgraph_base.provenance.document_uris import (
    chunk_uri as chunk_uri,
)
from trustgraph_base.provenance.document_uris import (
    component_uri as component_uri,
)
from trustgraph_base.provenance.document_uris import (
    doc_of as doc_of,
)
from trustgraph_base.provenance.document_uris import (
    document_uri as document_uri,
)
from trustgraph_base.provenance.document_uris import (
    entity_uri as entity_uri,
)
from trustgraph_base.provenance.document_uris import (
    is_activity_uri as is_activity_uri,
)
from trustgraph_base.provenance.document_uris import (
    minted_label as minted_label,
)
from trustgraph_base.provenance.document_uris import (
    page_uri as page_uri,
)
from trustgraph_base.provenance.document_uris import (
    relation_uri as relation_uri,
)
from trustgraph_base.provenance.document_uris import (
    source_uri as source_uri,
)
from trustgraph_base.provenance.document_uris import (
    subgraph_uri as subgraph_uri,
)

TraceKind = Literal["agent", "graph-rag", "document-rag"]

AGENT_PREFIX = "urn:trustgraph:agent:"
GRAPH_RAG_PREFIX = "urn:trustgraph:question:"
DOCRAG_PREFIX = "urn:trustgraph:docrag:"

_PREFIX_KIND: dict[str, TraceKind] = {
    AGENT_PREFIX: "agent",
    GRAPH_RAG_PREFIX: "graph-rag",
    DOCRAG_PREFIX: "document-rag",
}
TRACE_PREFIXES = tuple(_PREFIX_KIND)
_SESSION_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._\-]{0,127}$")
_STEP_INDEX = re.compile(r"/i(\d+)$")
_STAGE_SUFFIX = re.compile(
    r"/(i\d+(/c\d+)?(/observation)?|final(/claim\d+(/assessment)?|/verification|/abstention)?"
    r"|grounding|exploration(/c\d+)?|focus(/e\d+)?"
    r"|synthesis(/claim\d+(/assessment|/in\d+)?|/verification|/abstention)?"
    r"|prompt/[A-Za-z0-9._-]+/[0-9a-f]+)$"  # the prompt a step was made from (prompts.py)
)


def new_session_id() -> str:
    return str(uuid.uuid4())


def tool_session_id(caller_uri: str) -> str:
    """The session id of the traced tool run an agent step (or call) ``caller_uri`` asks
    for: the same each time the step is taken, so a rerun after a kill names the sub-trace
    the killed run's request began (the RAG service answers it from its record)."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, caller_uri))


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


GROUNDING_PREFIX = "urn:trustgraph:prov:grounding:"  # the reference's, for GraphRAG's
SELECTION_PREFIX = "urn:trustgraph:prov:chunk:"  # the reference's DocumentRAG chunk selections


def grounding_uri(question_uri: str) -> str:
    """A question's grounding as the reference names it (docs/conformance.md): GraphRAG's
    ``urn:trustgraph:prov:grounding:{id}``, DocumentRAG's ``{question}/grounding``."""
    if question_uri.startswith(GRAPH_RAG_PREFIX):
        return GROUNDING_PREFIX + question_uri[len(GRAPH_RAG_PREFIX) :]
    return f"{question_uri}/grounding"


def answer_document_uri(entity_uri: str) -> str:
    """The librarian document holding an answer's or observation's text (see tg:document)."""
    return f"{entity_uri}/document"


def exploration_chunk_uri(exploration: str, rank: int) -> str:
    """The reifier of a DocumentRAG exploration's ``tg:selectedChunk`` triple ranked ``rank``
    (from 1): the reference's chunk selection ``urn:trustgraph:prov:chunk:{id}:{rank - 1}``."""
    return f"{_selections_of(exploration)}{rank - 1}"


def is_exploration_chunk_uri(exploration: str, uri: str) -> bool:
    """Whether ``uri`` is one of ``exploration``'s chunk reifiers (``exploration_chunk_uri``,
    or ``{exploration}/c{rank}`` as written before: renamed at the store's start)."""
    prefix = _selections_of(exploration)
    return uri.startswith((prefix, exploration + "/c"))


def _selections_of(exploration: str) -> str:
    return f"{SELECTION_PREFIX}{session_id_of(exploration.removesuffix('/exploration'))}:"


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


def trace_root(uri: str) -> str | None:
    """The question URI of the trace an entity URI belongs to (by its prefix; a GraphRAG
    grounding's and a DocumentRAG chunk selection's by their session id), or None."""
    if uri.startswith(GROUNDING_PREFIX) and len(uri) > len(GROUNDING_PREFIX):
        return GRAPH_RAG_PREFIX + uri[len(GROUNDING_PREFIX) :]
    session, _, rank = uri.removeprefix(SELECTION_PREFIX).rpartition(":")
    if uri.startswith(SELECTION_PREFIX) and session and rank.isdigit():
        return DOCRAG_PREFIX + session
    if trace_kind(uri) is None:
        return None
    return _STAGE_SUFFIX.sub("", uri)
