"""DocumentRAG's hybrid retrieval (document_rag/hybrid.py): BM25 over the candidates, fused
with the vector order by reciprocal rank, and what the trace records of it."""

from __future__ import annotations

import math

from trustgraph_base.provenance import docrag_exploration_triples
from trustgraph_base.provenance.namespaces import TG
from trustgraph_base.rdf.terms import LiteralTerm
from trustgraph_base.schema import VectorMatch
from trustgraph_flow.document_rag.hybrid import RRF_K, fuse, joined, lexical_scores

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


def test_the_word_search_finds_join_after_the_vector_ones_and_rank_by_words() -> None:
    vector = [VectorMatch(id=i, score=s) for i, s in (("a", 0.9), ("b", 0.8), ("c", 0.7))]
    worded = [VectorMatch(id=i, score=s) for i, s in (("d", 0.1), ("b", 0.8))]
    candidates, found = joined(vector, worded)
    assert [m.id for m in candidates] == ["a", "b", "c", "d"] and found == {1, 3}
    assert joined(vector, []) == (vector, set())
    texts = [LICENCE, OTHER, "Nothing shared here at all.", NAMED]
    ranked = fuse("When was the Tarn licence published?", texts, 3, found)
    by_index = {r.index: r for r in ranked}
    # d: no vector rank, 1st of the word search's by words (1/61); b: 2nd by vector and
    # 2nd by words (1/62 + 1/62); a and c: outside the word search's, their vector term only
    assert by_index[3].vector_rank is None
    assert math.isclose(by_index[3].fused, 1 / (RRF_K + 1))
    assert math.isclose(by_index[1].fused, 2 / (RRF_K + 2))
    assert math.isclose(by_index[0].fused, 1 / (RRF_K + 1)) and by_index[0].lexical > 0
    assert [r.index for r in ranked] == [1, 0, 3, 2]  # a tie keeps the candidates' order
    # no word search (an index made before it): every text with words takes part, as before
    assert fuse("When was the Tarn licence published?", texts) == fuse(
        "When was the Tarn licence published?", texts, None, set()
    )


def test_a_chunk_the_word_search_alone_found_has_no_vector_rank_in_the_trace() -> None:
    explore, question = "urn:trustgraph:docrag:d1/exploration", "urn:trustgraph:docrag:d1"
    chunks = ["urn:trustgraph:doc:a/c3", "urn:trustgraph:doc:a/c0"]
    triples = docrag_exploration_triples(
        explore, question, chunks, [0.2, 0.5], reranked=[(None, 3.5), (1, 0.0)]
    )
    ranks = [t for t in triples if t.p == TG.vectorRank]
    assert len(ranks) == 1 and isinstance(ranks[0].o, LiteralTerm) and ranks[0].o.v == "1"
    assert len([t for t in triples if t.p == TG.lexicalScore]) == 2
