"""Labels that name nothing (``llm/hollow_labels``): the offline extractor keeps no edge
with one, and GraphRAG's focus cites none (tests/integration/test_rag_graph_hollow.py)."""

from __future__ import annotations

from trustgraph_flow.llm.extract import extract_edges
from trustgraph_flow.llm.hollow_labels import hollow, loose

TEXT = (
    "As I said above, the parser stops at the first error. I’ve run two benchmarks on it. "
    "You’ll have to restart the daemon. Both M and N may equal 0. "
    "If Zedit is called twice, the buffer is lost. Zedit cannot open binary files, but it "
    "can print them. The buffer grows, and against all advice it is never freed."
)


def test_no_edge_has_a_pronoun_a_clause_word_or_a_function_word_as_a_label() -> None:
    edges = extract_edges(TEXT)
    labels = {e.s for e in edges} | {e.o for e in edges if not e.o_literal}
    assert [x for x in labels if loose(x)] == []
    assert not labels & {"As I", "I’ve", "You’ll", "Both M", "If Zedit", "Zedit cannot"}


def test_a_name_with_its_verb_still_gives_its_edge() -> None:
    text = "Zedit prints binary files as hex. The US Navy built the harbour in 1911."
    triples = {(e.s, e.p, e.o) for e in extract_edges(text)}
    assert ("Zedit", "prints", "binary files") in triples
    assert ("US Navy", "built the harbour in", "1911") in triples


def test_hollow_labels() -> None:
    assert all(hollow(x) for x in ("it", "I’ve", "As I", "against", "Doesn't", "there"))
    assert hollow("1998", subject=True) and not hollow("1998")
    assert not any(hollow(x) for x in ("US", "IT", "AT&T", "Zedit", "the Who album", "&"))
    assert loose("If Zedit") and loose("Zedit cannot") and loose("BZ2_bzRead When")
    assert not loose("This License") and not loose("Many people")
