"""URI builders and parsers of documents and what extraction makes of them: pages, chunks,
their subgraphs and activities, components, and extracted entities and relations (re-exported
by ``uris``, where the trace URIs are)."""

from __future__ import annotations

import uuid
from urllib.parse import quote, unquote

DOC_PREFIX = "urn:trustgraph:doc:"
ENTITY_PREFIX = "urn:trustgraph:entity:"
RELATION_PREFIX = "urn:trustgraph:rel:"
COMPONENT_PREFIX = "https://trustgraph.ai/agent/"  # the reference's (docs/conformance.md)
OLD_COMPONENT_PREFIX = "urn:trustgraph:component:"  # before: migrated at the store's start
ACTIVITY_PREFIX = "https://trustgraph.ai/activity/"  # the reference's (docs/conformance.md)
STAGES = ("decode", "chunk", "extract")  # the extraction activities' stages


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
    """The activity of one pipeline stage (decode, chunk, extract) that read ``entity_uri``
    (and generated what derives from it), in the reference's form
    ``https://trustgraph.ai/activity/{uuid}``. The UUID is derived, not random: the same
    stage on the same entity is the same activity, so a re-extraction writes the same URI."""
    return reference_activity_uri(f"{entity_uri}/activity/{stage}")


def reference_activity_uri(ours: str) -> str:
    """The reference's form of an activity we named ``{entity}/activity/{stage}`` before
    (what ``activity_uri`` derives the UUID from: ``uuid5`` of that name in the URL namespace);
    the migration renames old stores' activities with it."""
    return ACTIVITY_PREFIX + str(uuid.uuid5(uuid.NAMESPACE_URL, ours))


def is_activity_uri(uri: str) -> bool:
    """Whether ``uri`` names an extraction activity: the reference's form
    (``https://trustgraph.ai/activity/{uuid}``) or ours before (``{entity}/activity/{stage}``,
    renamed at the store's start)."""
    owner, found, stage = uri.rpartition("/activity/")
    return uri.startswith(ACTIVITY_PREFIX) or bool(owner and found and stage in STAGES)


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
