"""GraphRAG reaches a passage whose edges name nothing the question names (issue 29): "When
did the ferry to Holm start running?" asked of notes where the sentence that answers gave no
edge and the edges of its chunk are about who founded the shipping line. The walk finds those
edges, but the selection, reading labels, picks others and the answer had nothing to say;
the chunk nearest the question now brings one of its edges to the focus (with that reason in
the trace), and the answer is that chunk's sentence, cited as that edge. A question the notes
do not answer still gets "The documents do not say". A nearest passage that gave no edge at all
is read as text, and the answer cites its chunk.

The passages are DocumentRAG's nearest chunks in its order (hybrid retrieval: the vector
order fused with the question's words): notes made of the question's common words ("When did
the ones who were there go to it?") come before the crossings by their vectors, and the two
nearest by vector gave no edge, so GraphRAG had nothing to answer from; fused, the crossings
(the only candidate holding "ferry" and "Holm") come first."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.abstain import ABSTAINED, load_texts
from tests.support.processors import EVERY
from tests.support.stack import Stack

USER = "oona"  # a user of its own: the samples are not loaded
NOTES = {
    "crossings.md": """# Crossings

Karin Obst founded Obst Shipping in Leith. Obst Shipping owns three boats. The ferry to Holm
first ran in 1931, every morning from the harbour.
""",
    "fares.md": """# Fares

Fares to Holm: 40 pence each way, paid on board.
""",
    "tarn.md": """# Tarn Hall

Tarn Hall was built by Osric Pell. Osric Pell was born in Derby. Tarn Hall overlooks Lake
Ellery.
""",
}


def _trace(stderr: str) -> str:
    return next(
        line.removeprefix("trace: ") for line in stderr.splitlines() if line.startswith("trace: ")
    )


async def test_the_nearest_passage_answers_through_its_edge(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    async with Stack(pulsar_url, prefix, EVERY, data_dir=tmp_path / "data") as stack:
        await load_texts(stack, USER, tmp_path, NOTES)
        asked = await stack.cli(
            "tg-invoke-graph-rag", "-q", "When did the ferry to Holm start running?", "-U", USER
        )
        assert asked.code == 0, asked.stderr
        assert "1931" in asked.stdout and ABSTAINED not in asked.stdout, asked.stdout
        shown = await stack.cli("tg-show-explain-trace", _trace(asked.stderr), "-U", USER)
        assert shown.code == 0, shown.stderr
        # the passage's edge is in the focus with why it is there, and the answer cites it
        edge = shown.stdout.split("Obst Shipping → owns → three boats", 1)[1].split("Edge ", 1)[0]
        assert "Reasoning: read from passage 1 of the 2 nearest the question" in edge, shown.stdout
        assert "cited by the answer" in edge, shown.stdout
        outside = await stack.cli(
            "tg-invoke-graph-rag", "-q", "Who designed the Eiffel Tower?", "-U", USER
        )
        assert outside.code == 0 and ABSTAINED in outside.stdout, outside.stdout
        # The nearest passage gave no edge (no relation read in 'Fares to Holm: …'): it is
        # read as text, and the answer cites its chunk, which the exploration names.
        fare = await stack.cli(
            "tg-invoke-graph-rag", "-q", "How much is the fare to Holm?", "-U", USER
        )
        assert fare.code == 0 and "40 pence" in fare.stdout, fare.stdout
        shown = await stack.cli("tg-show-explain-trace", _trace(fare.stderr), "-U", USER)
        assert shown.code == 0, shown.stderr
        chunk = shown.stdout.split("Chunk 1", 1)[1].split("Focus", 1)[0]
        assert "fares" in chunk and "cited by the answer" in chunk, shown.stdout


WORDY = {  # the question's common words, and none of its rare ones: near it by vector
    "went.md": "When did the ones who were there go to it? When did they come to the ones who "
    "went before them, and did they go to the town with them?",
    "works.md": "When did the men who were at the works go to the town? They did go to it "
    "when the ones who were there did, and they were there with them.",
    "mill.md": "When did they go to the ones who were at the mill? They did, when the ones who "
    "had been there went to it before them.",
}


@pytest.mark.timeout(300)
async def test_the_passages_are_the_nearest_by_the_questions_words_too(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    notes = NOTES | {k: f"# Note\n\n{v}\n" for k, v in WORDY.items()}
    async with Stack(pulsar_url, prefix, EVERY, data_dir=tmp_path / "data") as stack:
        await load_texts(stack, USER, tmp_path, notes)
        asked = await stack.cli(
            "tg-invoke-graph-rag", "-q", "When did the ferry to Holm start running?", "-U", USER
        )
    assert asked.code == 0, asked.stderr
    assert "1931" in asked.stdout and ABSTAINED not in asked.stdout, asked.stdout
