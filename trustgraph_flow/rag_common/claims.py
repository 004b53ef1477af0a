"""An answer's claims: its sentences, each with the evidence it cites.

The claims are the answer's own sentences (``prose.answer_spans``), so each claim is exactly a
piece of the answer with its place in it. The LLM's structured reply names, per sentence
it wrote, the evidence that sentence rests on; each of those sentences is located in the
answer (``spans.locate``, layout read loosely; a sentence the answer repeats is taken
at its next place) and the claims it falls on cite that evidence. A sentence of the reply that is not in the answer cites nothing; a claim that
no sentence of the reply falls on cites nothing (it is recorded, uncited).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from trustgraph_base.provenance.evidence import ClaimSpan, ClaimSpec
from trustgraph_base.spans import locate
from trustgraph_flow.llm.prose import answer_spans
from trustgraph_flow.rag_common.citations import ClaimCites


def answer_claims(
    answer: str, said: Sequence[ClaimCites], evidence: Sequence[str]
) -> list[ClaimSpec]:
    """The answer's sentences, each citing the evidence URIs the reply gave it."""
    spans = answer_spans(answer)
    cites: list[dict[str, None]] = [{} for _ in spans]
    after = 0  # the reply's sentences come in order: a repeated sentence is the next one
    for claim in said:
        found = locate(claim.text, answer[after:])
        base = after
        if found is None:
            found, base = locate(claim.text, answer), 0
        if found is None:
            continue
        start, end = base + found[0], base + found[0] + found[1]
        after = end
        uris = [evidence[n - 1] for n in claim.cited if 1 <= n <= len(evidence)]
        for i, (a, b) in enumerate(spans):
            if a < end and start < b:  # the reply's sentence falls on this claim
                cites[i].update(dict.fromkeys(uris))
    return [
        ClaimSpec(text=answer[a:b], offset=a, length=b - a, cited=tuple(c))
        for (a, b), c in zip(spans, cites, strict=True)
    ]


def places(
    evidence: Sequence[str], texts: Sequence[str], chunks: Sequence[Mapping[str, str]] = ()
) -> dict[str, Mapping[str, str]]:
    """Per evidence URI, the chunks (URI -> text) its claims' sentences may be found in: the
    ones given (``chunks``, parallel to ``evidence``: GraphRAG's edges, each with the chunks
    it was read from), else the evidence itself with its text (DocumentRAG's chunks)."""
    if chunks:
        return dict(zip(evidence, chunks, strict=False))
    return {uri: {uri: text} for uri, text in zip(evidence, texts, strict=False)}


def claim_spans(
    claims: Sequence[ClaimSpec], chunks: Mapping[str, Mapping[str, str]]
) -> list[ClaimSpan]:
    """Where each claim's sentence is in the chunks of the evidence it cites (``chunks``, by
    evidence URI: ``places``), found as the extractor finds quotes (layout read loosely,
    words never); a claim none of them holds verbatim has no span, and a chunk is named
    once a claim."""
    found: list[ClaimSpan] = []
    for n, claim in enumerate(claims, start=1):
        text = claim.text.strip()
        seen: set[str] = set()
        for uri in claim.cited:
            for chunk, body in chunks.get(uri, {}).items():
                at = locate(text, body) if text and body and chunk not in seen else None
                if at is not None:
                    seen.add(chunk)
                    offset, length = at
                    found.append(
                        ClaimSpan(n, chunk, offset, length, body[offset : offset + length])
                    )
    return found
