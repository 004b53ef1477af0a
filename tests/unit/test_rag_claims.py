"""An answer's claims: its sentences, each citing the evidence the LLM's reply gave it."""

from __future__ import annotations

import json

from trustgraph_base.provenance import GRAPH_RETRIEVAL, PROV, TG
from trustgraph_base.provenance.evidence import ClaimSpec, claim_span_triples, claim_triples
from trustgraph_base.rdf.terms import IriTerm, term_key
from trustgraph_flow.llm import offline
from trustgraph_flow.rag_common.citations import CitedAnswer, ClaimCites, cited_schema
from trustgraph_flow.rag_common.claims import answer_claims, claim_spans, places

EVIDENCE = ["urn:q/focus/e1", "urn:q/focus/e2", "urn:q/focus/e3"]
ANSWER = "Paris is the capital of France.  Rome is the capital of Italy.\nBoth are old."


def test_each_sentence_of_the_answer_is_a_claim_citing_what_the_reply_gave_it() -> None:
    said = [
        ClaimCites(text="Paris is the capital of France.", cited=[1]),
        ClaimCites(text="Rome is the  capital of Italy.", cited=[2, 9]),  # 9: no such evidence
        ClaimCites(text="Berlin is the capital of Germany.", cited=[3]),  # not in the answer
    ]
    claims = answer_claims(ANSWER, said, EVIDENCE)
    assert [c.text for c in claims] == [
        "Paris is the capital of France.",
        "Rome is the capital of Italy.",
        "Both are old.",
    ]
    assert [ANSWER[c.offset : c.offset + c.length] for c in claims] == [c.text for c in claims]
    assert [c.cited for c in claims] == [(EVIDENCE[0],), (EVIDENCE[1],), ()]  # the last: uncited


def test_no_claims_in_the_reply_leaves_every_sentence_uncited() -> None:
    claims = answer_claims(ANSWER, [], EVIDENCE)
    assert len(claims) == 3 and all(c.cited == () for c in claims)
    assert answer_claims("", [], EVIDENCE) == []


def test_an_abbreviation_ends_no_claim() -> None:
    # A new user's answer from a spec (session 24): the sentence the edge was read from,
    # cut at "e.g." into two claims, "This is so that e.g." verified on its own.
    said = "This is so that e.g. main.C will be seen as a C++ file, but IMAGE.GIF will still use the *.gif pattern."
    answer = f"{said} Dr. Leonard wrote it.\nSee the spec etc.\nIt is old."
    claims = answer_claims(answer, [ClaimCites(text=said, cited=[1])], EVIDENCE)
    assert [c.text for c in claims] == [
        said,
        "Dr. Leonard wrote it.",
        "See the spec etc.",
        "It is old.",
    ]
    assert [c.cited for c in claims] == [(EVIDENCE[0],), (), (), ()]
    assert [answer[c.offset : c.offset + c.length] for c in claims] == [c.text for c in claims]


def test_claim_triples_derive_from_the_synthesis_and_cite_their_evidence() -> None:
    synth = "urn:trustgraph:question:q/synthesis"
    triples = claim_triples(synth, [ClaimSpec("Paris is big.", 0, 13, (EVIDENCE[0],))])
    keys = {(t.s.i, t.p.i, term_key(t.o)) for t in triples if isinstance(t.s, IriTerm)}
    claim = synth + "/claim1"
    assert (claim, PROV.wasDerivedFrom.i, f"<{synth}>") in keys
    assert (claim, TG.cites.i, f"<{EVIDENCE[0]}>") in keys
    assert (claim, TG.content.i, '"Paris is big."') in keys
    assert all(t.g == GRAPH_RETRIEVAL for t in triples)


def test_the_reply_schema_limits_each_claims_numbers_to_the_evidence() -> None:
    schema = cited_schema(2)
    claim = schema["properties"]["claims"]["items"]
    assert claim["required"] == ["text", "cited"]
    assert claim["properties"]["cited"]["items"]["enum"] == [1, 2]
    reply = CitedAnswer.model_validate(
        {"answer": "A.", "claims": [{"text": "A.", "cited": ["e2"]}]}
    )
    assert reply.claims[0].cited == [2]


def test_the_offline_engine_gives_each_sentence_the_evidence_it_was_written_from() -> None:
    edges = [
        {"id": "e1", "s": "Paris", "p": "is the capital of", "o": "France"},
        {"id": "e2", "s": "Rome", "p": "is the capital of", "o": "Italy"},
    ]
    reply = json.loads(offline.graph_answer({"question": "capital", "edges": edges}, True))
    assert reply["claims"] == [
        {"text": "Paris is the capital of France.", "cited": [1]},
        {"text": "Rome is the capital of Italy.", "cited": [2]},
    ]
    assert reply["answer"] == " ".join(c["text"] for c in reply["claims"])


def test_a_repeated_sentence_is_cited_at_each_of_its_places() -> None:
    answer = "Hugo was born in Besançon. Hugo wrote a novel. Hugo was born in Besançon."
    said = [
        ClaimCites(text="Hugo was born in Besançon.", cited=[1]),
        ClaimCites(text="Hugo wrote a novel.", cited=[1]),
        ClaimCites(text="Hugo was born in Besançon.", cited=[2]),
    ]
    claims = answer_claims(answer, said, EVIDENCE)
    assert [c.cited for c in claims] == [(EVIDENCE[0],), (EVIDENCE[0],), (EVIDENCE[1],)]


def test_a_claim_found_in_a_chunk_it_cites_is_placed_there_and_a_reworded_one_is_not() -> None:
    chunks = ["urn:d/p1/c0", "urn:d/p1/c1"]
    texts = ["Intro.\nParis is the capital\nof France. More.", "Rome is old."]
    claims = [
        ClaimSpec("Paris is the capital of France.", 0, 31, (chunks[0],)),
        ClaimSpec("Rome is ancient.", 32, 16, (chunks[1],)),  # reworded: not in its chunk
        ClaimSpec("Rome is old.", 49, 12, ()),  # cites nothing: placed nowhere
    ]
    (span,) = claim_spans(claims, places(chunks, texts))
    assert (span.claim, span.chunk) == (1, chunks[0])
    assert texts[0][span.offset : span.offset + span.length] == span.quote
    assert span.quote == "Paris is the capital\nof France."
    triples = claim_span_triples("urn:q/synthesis", [span])
    uri = IriTerm(i="urn:q/synthesis/claim1/in1")
    assert all(t.s == uri and t.g == GRAPH_RETRIEVAL for t in triples)
    assert {(term_key(t.p), term_key(t.o)) for t in triples} >= {
        (term_key(PROV.wasDerivedFrom), term_key(IriTerm(i="urn:q/synthesis/claim1"))),
        (term_key(TG.inChunk), term_key(IriTerm(i=chunks[0]))),
    }
