"""DocumentRAG's hybrid retrieval: a vector search wider than the answer needs, joined by
the chunks a full-text search of the whole index finds for the question's words
(``vectors/words.py``), each candidate scored by the question's words it holds (BM25 over
the candidates), and the two orders fused.

An embedding ranks a chunk by everything it says; a long chunk that shares only common words
with the question can come before the short one that answers it (issue 29: the hashing
embedder put licence boilerplate above "Version 3, 29 June 2007"). A word of the question
few candidates hold says most about which one answers it, so each question word is weighed by
its rarity among the candidates themselves: no scan of the collection, and the same for any
embedding model. The final order is reciprocal rank fusion (Cormack et al., 2009) of the
vector order and the lexical one, so a chunk high in either stays high, and a chunk holding
none of the question's words keeps only its vector term.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from functools import lru_cache

from trustgraph_base.schema import VectorMatch
from trustgraph_flow.llm.text import STOPWORDS, stem, words

K1 = 1.2  # BM25's term-frequency saturation
B = 0.75  # BM25's length normalisation
RRF_K = 60  # reciprocal rank fusion's constant, as its authors give it


@dataclass(frozen=True)
class Ranked:
    """One candidate in the fused order: its place in the vector search (1-based), its
    lexical score (0: it holds none of the question's words) and its fused score."""

    index: int  # into the candidates as the searches returned them
    vector_rank: int | None  # None: found by the word search alone
    lexical: float
    fused: float


def stems(text: str) -> list[str]:
    """The stems of ``text``'s content words, repeats kept (they are a chunk's term counts)."""
    return [stem(w) for w in (w.lower() for w in words(text)) if w not in STOPWORDS]


@lru_cache(maxsize=4096)
def term_counts(text: str) -> Counter[str]:
    """How often each stem occurs in ``text``: kept per text, as the same chunks are the
    candidates of many questions (20 candidates of ~1,000 characters: 1.3 ms of CPU a question
    counted afresh, 0.08 ms when counted before; in process).
    Shared: never changed by its callers."""
    return Counter(stems(text))


def lexical_scores(question: str, texts: Sequence[str]) -> list[float]:
    """BM25 score of each text for the question's content words, the document frequencies
    and the mean length taken over ``texts`` (the candidates)."""
    keys = set(stems(question))
    counts = [term_counts(t) for t in texts]
    if not keys or not counts:
        return [0.0] * len(texts)
    n = len(counts)
    mean = sum(sum(c.values()) for c in counts) / n or 1.0
    idf = {k: math.log(1 + (n - df + 0.5) / (df + 0.5)) for k in keys if (df := _df(k, counts))}
    out = []
    for c in counts:
        norm = K1 * (1 - B + B * sum(c.values()) / mean)
        out.append(sum(w * c[k] * (K1 + 1) / (c[k] + norm) for k, w in idf.items() if c[k]))
    return out


def _df(key: str, counts: list[Counter[str]]) -> int:
    return sum(1 for c in counts if c[key])


def joined(
    vector: list[VectorMatch], worded: list[VectorMatch]
) -> tuple[list[VectorMatch], set[int]]:
    """The candidates: the vector search's matches, then those of the word search that the
    vector search did not return; and where the word search's matches are among them (for
    ``fuse``: ``in_vector`` is ``len(vector)``, ``worded`` these places)."""
    seen = {m.id for m in vector}
    candidates = [*vector, *(m for m in worded if m.id not in seen)]
    found = {m.id for m in worded}
    return candidates, {i for i, m in enumerate(candidates) if m.id in found}


def fuse(
    question: str,
    texts: Sequence[str],
    in_vector: int | None = None,
    worded: Collection[int] | None = None,
) -> list[Ranked]:
    """``texts`` (the vector search's in its order, then ``texts[in_vector:]`` those the
    word search alone found) in the fused order: reciprocal rank fusion of the vector rank
    and the lexical rank, ties kept in the candidates' order. The lexical rank orders by
    their lexical score the texts the word search returned (``worded``, their places; when
    it returned none, or there was none, every text with a lexical score): a text outside
    it gets no lexical term, one the vector search did not return no vector term."""
    lexical = lexical_scores(question, texts)
    ranked_by_words = set(worded) if worded else set(range(len(texts)))
    by_words = sorted(
        (i for i, s in enumerate(lexical) if s > 0 and i in ranked_by_words),
        key=lambda i: -lexical[i],
    )
    word_rank = {i: r for r, i in enumerate(by_words, start=1)}
    vector = len(texts) if in_vector is None else in_vector
    ranked = [
        Ranked(
            index=i,
            vector_rank=i + 1 if i < vector else None,
            lexical=score,
            fused=(1 / (RRF_K + i + 1) if i < vector else 0.0)
            + (1 / (RRF_K + word_rank[i]) if i in word_rank else 0.0),
        )
        for i, score in enumerate(lexical)
    ]
    return sorted(ranked, key=lambda r: (-r.fused, r.index))
