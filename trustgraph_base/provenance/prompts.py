"""Which prompt an LLM step was made from, beside SPEC's triples (docs/provenance.md,
"Which prompt"): ``<stage> tg:prompt <P>``, ``P`` a ``tg:Prompt`` with its id, digest,
system text and template.

In a query-time trace ``P`` is ``{question}/prompt/{id}/{hex16}``: part of the trace (kept,
exported, signed and deleted with it), one node per prompt version however many steps
used it. Elsewhere (an extraction activity) it is ``urn:trustgraph:prompt:{id}:{hex}``,
one node per prompt version in the collection."""

from __future__ import annotations

from urllib.parse import quote

from trustgraph_base.provenance.common import type_rows
from trustgraph_base.provenance.namespaces import TG
from trustgraph_base.provenance.uris import trace_root
from trustgraph_base.rdf.assembled import iri_term
from trustgraph_base.rdf.rows import Row, as_triples, row


def prompt_uri(stage_uri: str, prompt_id: str, digest: str) -> str:
    name, hexdigest = quote(prompt_id, safe="-._"), digest.removeprefix("sha256:")
    root = trace_root(stage_uri)
    if root is not None:
        return f"{root}/prompt/{name}/{hexdigest[:16]}"
    return f"urn:trustgraph:prompt:{name}:{hexdigest}"


def prompt_rows(
    stage_uri: str,
    graph: str,
    prompt_id: str,
    digest: str,
    system: str,
    template: str,
    *,
    sent: set[str] | None = None,
) -> list[Row]:
    """``stage_uri`` was made from the prompt (``tg:prompt``), and the prompt node itself
    unless ``sent`` (the prompt nodes a trace has published so far, added to) has it: every
    stage made from the same prompt names the same node, whose triples go once a trace."""
    uri = prompt_uri(stage_uri, prompt_id, digest)
    link = row(stage_uri, TG.prompt, iri_term(uri), graph)
    if sent is not None:
        if uri in sent:
            return [link]
        sent.add(uri)
    return [
        link,
        *type_rows(uri, graph, TG.Prompt),
        row(uri, TG.promptId, prompt_id, graph),
        row(uri, TG.promptDigest, digest, graph),
        row(uri, TG.promptSystem, system, graph),
        row(uri, TG.promptTemplate, template, graph),
    ]


prompt_triples = as_triples(prompt_rows)
