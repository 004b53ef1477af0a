"""DocumentRAG's hybrid retrieval (document_rag/hybrid.py): BM25 over the candidates, fused
with the vector order by reciprocal rank, and what the trace records of it."""

from __future__ import annotations

import math

from trustgraph_base.provenance import docrag_exploration_triples
from trustgraph_base.provenance.namespaces import TG
from trustgraph_base.rdf.terms import LiteralTerm
from trustgraph_flow.document_rag.hybrid import RRF_K, fuse, lexical_scores

LICENCE = "The licence lets you copy and change the software; the licence is free."
NAMED = "Version 3 of the Tarn Licence was published on 29 June 2007."
OTHER = "You may copy the software and give copies of the licence to others."


def test_a_word_few_candidates_hold_outweighs_one_they_all_hold() -> None:
    scores = lexical_scores("When was the Tarn licence published?", [LICENCE, NAMED, OTHER])
    # "licence" is in all three: almost nothing; "tarn" and "published" in one: most
    assert scores[0] > 0 and scores[2] > 0 and scores[1] > 5 * max(scores[0], scores[2])
    only_common = lexical_scores("the licence", [LICENCE, NAMED, OTHER])
    assert scores[0] == only_common[0] and scores[2] == only_common[2]


def test_no_shared_word_scores_nothing() -> None:
    assert lexical_scores("Who is the mayor of Lisbon?", [LICENCE, NAMED]) == [0.0, 0.0]
    assert lexical_scores("Who is it?", [LICENCE]) == [0.0]  # stopwords only
    assert lexical_scores("the licence", []) == []


def test_bm25_by_hand() -> None:
    # one key, held once by the first of two texts of equal length: idf ln(1 + 1.5/1.5),
    # tf 1, length norm 1: idf * 1 * 2.2 / (1 + 1.2)
    (first, second) = lexical_scores("comet", ["comet seen", "star seen"])
    assert math.isclose(first, math.log(2)) and second == 0.0


def test_fusion_lifts_a_chunk_its_words_match_and_keeps_the_vector_order_otherwise() -> None:
    texts = [LICENCE, OTHER, "Nothing shared here at all.", NAMED]
    ranked = fuse("When was the Tarn licence published?", texts)
    # 4th by vector, 1st by words: above the 2nd by vector (3rd by words), below the 1st
    # (2nd by words): 1/64 + 1/61 against 1/62 + 1/63 and 1/61 + 1/62
    assert [r.index for r in ranked] == [0, 3, 1, 2]
    assert {r.index: r.vector_rank for r in ranked} == {0: 1, 1: 2, 2: 3, 3: 4}
    assert math.isclose(ranked[1].fused, 1 / (RRF_K + 4) + 1 / (RRF_K + 1))
    unmatched = next(r for r in ranked if r.index == 2)
    assert unmatched.lexical == 0 and math.isclose(unmatched.fused, 1 / (RRF_K + 3))
    # nothing shared: the vector order stands
    assert [r.index for r in fuse("Who is the mayor of Lisbon?", texts)] == [0, 1, 2, 3]


def test_the_trace_keeps_the_cosine_and_adds_vector_rank_and_lexical_score() -> None:
    explore, question = "urn:trustgraph:docrag:d1/exploration", "urn:trustgraph:docrag:d1"
    chunks = ["urn:trustgraph:doc:a/c3", "urn:trustgraph:doc:a/c0"]
    plain = docrag_exploration_triples(explore, question, chunks, [0.2, 0.5])
    hybrid = docrag_exploration_triples(
        explore, question, chunks, [0.2, 0.5], reranked=[(6, 3.737), (1, 0.0)]
    )
    added = set(hybrid) - set(plain)
    assert {t.p for t in added} == {TG.vectorRank, TG.lexicalScore} and len(added) == 4
    values = {(t.p, t.o.v) for t in added if isinstance(t.o, LiteralTerm)}
    assert values == {
        (TG.vectorRank, "6"),
        (TG.vectorRank, "1"),
        (TG.lexicalScore, "3.737"),
        (TG.lexicalScore, "0"),
    }
    assert not set(plain) - set(hybrid)  # SPEC's triples and the reifiers as before
