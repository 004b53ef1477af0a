"""DocumentRAG's hybrid retrieval (issue 29): the hashing embedder ranks a long paragraph
that answers "Who printed Ada Mirren's catalogue?" 6th, below short notes that share only the
question's common words ("Who were the printers' …?"), so the 5 nearest chunks never held the
answer and the answer was that the documents do not say. Hybrid retrieval asks for 20,
re-ranks them by the question's words (rare among the candidates: "Ada", "Mirren") fused with
the vector order, and answers from the 5 first: the paragraph is cited, and the trace records
each chunk's vector rank and lexical score beside its fused rank. ``doc_retrieval: vector``
keeps the vector order alone."""

from __future__ import annotations

from pathlib import Path

import pyoxigraph as ox
import pytest

from tests.support.abstain import ABSTAINED, load_texts, trace_of
from tests.support.processors import EVERY
from tests.support.stack import Stack

USER = "ada"  # a user of its own: the samples are not loaded
QUESTION = "Who printed Ada Mirren's catalogue?"
ANSWERING = (
    "Ada Mirren kept bees on the slope below the dome and sold honey at the Kirkby market "
    "every Saturday from spring to the first frosts. Between seasons she ground lenses for "
    "the county's surveyors, walked the fells above Ravenscar with a brass theodolite, and "
    "kept a ledger of rainfall, barometer readings and lambing dates for thirty years, "
    "mended clocks for the farms along Swaledale, wrote long letters to her brother in Leith "
    "about the weather, the price of oats and the habits of swifts. In the hard winter of "
    "1879 she hauled coal up the track on a sledge, fed the ponies of the quarrymen snowed in "
    "at Gunnerside, and nursed a shepherd's boy through a fever with broth, blankets and a "
    "borrowed stove. Each August she climbed Great Shunner with a flask of cold tea, a "
    "telescope in a canvas bag and a tin of mint cake. Ada Mirren's catalogue of double stars "
    "was printed by Tobias Wren at Carlisle in 1881.\n"
)
PRINTERS = {
    "town": "Who were the printers of the town? The printers who worked in the town were the "
    "ones who set the type for it, and the town was proud of the printers who were there.",
    "apprentices": "Who are the printers' apprentices? The apprentices who came to the "
    "printers were the sons of the ones who were printers before them, and who were at the "
    "works with them.",
    "river": "Who owned the printers' works by the river? The works were owned by the ones "
    "who had owned them before, and who were printers themselves, with the river at their door.",
    "customers": "Who were the printers' customers? The customers who came to the printers "
    "were the ones who had the money, and who were the friends of the printers of the town.",
    "debts": "Who paid the printers' debts? The debts were paid by the ones who were owed the "
    "most, who were the printers' friends, and who were the ones the town trusted.",
    "presses": "Who cleaned the printers' presses? The presses were cleaned by the ones who "
    "were new at the works, who were the apprentices of the printers who owned them.",
    "children": "Who were the printers' children? The children of the printers were the ones "
    "who were at the school by the works, who were there with the ones who were the printers' "
    "friends.",
    "neighbours": "Who were the printers' neighbours? The neighbours of the printers were the "
    "ones who were at the mill, who were the ones who had the land by the river before the "
    "works were there.",
    "clerks": "Who were the printers' clerks? The clerks of the printers were the ones who kept "
    "the books, who were the ones who were paid on the Friday, and who were there the longest.",
    "carters": "Who were the printers' carters? The carters of the printers were the ones who "
    "took the paper to the town, who were the ones with the horses, and who were the first "
    "there.",
    "rivals": "Who were the printers' rivals? The rivals of the printers were the ones who were "
    "printers in the city, who were richer, and who were the ones who won the orders.",
}
TEXTS = {"mirren.txt": ANSWERING} | {f"{k}.txt": v + "\n" for k, v in PRINTERS.items()}


async def ask(stack: Stack) -> tuple[str, str, str]:
    """The answer to QUESTION, its trace as tg-export-explain-trace gives it (TriG) and as
    tg-show-explain-trace shows it."""
    asked = await stack.cli("tg-invoke-document-rag", "--no-streaming", "-q", QUESTION, "-U", USER)
    assert asked.code == 0, asked.stderr
    trace = trace_of(asked.stderr)
    exported = await stack.cli("tg-export-explain-trace", trace, "-U", USER)
    assert exported.code == 0, exported.stderr
    shown = await stack.cli("tg-show-explain-trace", trace, "-U", USER)
    assert shown.code == 0, shown.stderr
    return asked.stdout, exported.stdout, shown.stdout


def selections(trig: str) -> dict[int, dict[str, str]]:
    """Each selected chunk by its ``tg:rank``: the chunk, and the selection's ``vectorRank``,
    ``score`` and ``lexicalScore`` (lexical forms) when recorded."""
    store = ox.Store()
    store.load(trig.encode(), format=ox.RdfFormat.TRIG)
    found = store.query(
        """PREFIX tg: <https://trustgraph.ai/ns/>
        SELECT ?rank ?chunk ?name ?value WHERE { GRAPH ?g {
          ?sel tg:rank ?rank ; tg:document ?chunk ; ?p ?value .
          VALUES (?p ?name) { (tg:vectorRank "vectorRank") (tg:score "score")
                              (tg:lexicalScore "lexicalScore") } } }"""
    )
    assert isinstance(found, ox.QuerySolutions)
    out: dict[int, dict[str, str]] = {}
    for row in found:
        rank, chunk, name, value = (row[v] for v in ("rank", "chunk", "name", "value"))
        assert rank is not None and chunk is not None and name is not None and value is not None
        out.setdefault(int(rank.value), {"chunk": chunk.value})[name.value] = value.value
    return out


def cited(trig: str) -> set[str]:
    """The chunks the trace's synthesis cites."""
    store = ox.Store()
    store.load(trig.encode(), format=ox.RdfFormat.TRIG)
    found = store.query("SELECT ?c WHERE { GRAPH ?g { ?s <https://trustgraph.ai/ns/cites> ?c } }")
    assert isinstance(found, ox.QuerySolutions)
    return {row["c"].value for row in found if row["c"] is not None}


@pytest.mark.timeout(300)  # two stacks, 12 documents each, on a loaded machine
async def test_a_chunk_the_vectors_rank_low_is_found_by_its_words(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    async with Stack(pulsar_url, prefix, EVERY, data_dir=tmp_path / "hybrid") as stack:
        await load_texts(stack, USER, tmp_path, TEXTS)
        answer, nquads, shown = await ask(stack)
    assert "Tobias Wren" in answer, answer
    by_rank = selections(nquads)
    assert sorted(by_rank) == [1, 2, 3, 4, 5], by_rank
    # the answering paragraph, 6th by its vectors, is first: the only candidate holding words
    # of the question ("Ada", "Mirren", "printed", "catalogue"), and the one cited
    first = by_rank[1]
    assert ":mirren-" in first["chunk"] and int(first["vectorRank"]) > 5, first
    assert float(first["lexicalScore"]) > 0, first
    assert all(float(by_rank[r]["lexicalScore"]) == 0 for r in range(2, 6)), by_rank
    assert [int(by_rank[r]["vectorRank"]) for r in range(2, 6)] == [1, 2, 3, 4], by_rank
    assert cited(nquads) == {first["chunk"]}
    chunk1 = shown.split("Chunk 1: ", 1)[1].split("Chunk 2: ", 1)[0]
    assert f"Score: {float(first['score']):.3f}" in chunk1, shown
    assert (
        "Vector rank: 6" in chunk1 and f"Word score: {float(first['lexicalScore']):.3f}" in chunk1
    )

    vector_only = {"document-rag": {"doc_retrieval": "vector"}}
    async with Stack(
        pulsar_url, prefix, EVERY, data_dir=tmp_path / "vector", settings=vector_only
    ) as stack:
        await load_texts(stack, USER, tmp_path, TEXTS)
        answer, nquads, shown = await ask(stack)
    assert ABSTAINED in answer, answer
    by_rank = selections(nquads)
    assert sorted(by_rank) == [1, 2, 3, 4, 5], by_rank
    assert not any(":mirren-" in row["chunk"] for row in by_rank.values()), by_rank
    assert not any("vectorRank" in row for row in by_rank.values()), by_rank
    assert "Score: " in shown and "Vector rank" not in shown and "Word score" not in shown


@pytest.mark.timeout(300)
async def test_a_chunk_beyond_the_vector_candidates_is_found_by_the_word_search(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    """With 5 candidates the vector search never returns the answering paragraph (6th): the
    word search over the whole index (``vectors/words.py``) finds it, it joins the candidates
    with no vector rank, and the answer comes from it; the trace says it had none."""
    narrow = {"document-rag": {"doc_candidates": 5}}
    async with Stack(pulsar_url, prefix, EVERY, data_dir=tmp_path, settings=narrow) as stack:
        await load_texts(stack, USER, tmp_path, TEXTS)
        answer, nquads, shown = await ask(stack)
    assert "Tobias Wren" in answer, answer
    by_rank = selections(nquads)
    assert sorted(by_rank) == [1, 2, 3, 4, 5], by_rank
    found = [row for row in by_rank.values() if ":mirren-" in row["chunk"]]
    assert len(found) == 1 and "vectorRank" not in found[0], by_rank
    assert float(found[0]["lexicalScore"]) > 0 and float(found[0]["score"]) > 0, found
    assert cited(nquads) == {found[0]["chunk"]}
    others = [row for row in by_rank.values() if row is not found[0]]
    assert sorted(int(row["vectorRank"]) for row in others) == [1, 2, 3, 4], by_rank
    rank = next(r for r, row in by_rank.items() if row is found[0])
    block = shown.split(f"Chunk {rank}: ", 1)[1].split("Chunk ", 1)[0]
    assert "Vector rank" not in block and "Word score: " in block, shown
