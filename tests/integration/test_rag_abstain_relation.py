"""Out-of-corpus questions that share what they ask about, or what they ask for, with a new
user's own documents (issue 29, abstention): "What is the capital of Peru?" asked of notes
that hold other capitals (and name Peru once, for something else), and "Who designed the
Eiffel Tower?" asked of notes that name the tower but not who designed it; "Who founded Orrin
Labs?" asked of a README that says its program is used within Orrin Labs, and "Who founded the
Tarn Foundation?" of one the foundation wrote (session 21: a who question about making or
founding needs a sentence that says who did, by that act or an agentive form).
tg-invoke-graph-rag, tg-invoke-document-rag and tg-invoke-agent all answer "The documents do
not say"; the same shapes of question the notes do answer are still answered."""

from __future__ import annotations

from pathlib import Path

from tests.support.abstain import check_abstention, check_answers, load_texts
from tests.support.processors import EVERY
from tests.support.stack import Stack

USER = "ines"  # a user of its own: the samples are not loaded
CAPITALS = """# Capitals of southern Europe

Paris is the capital of France. Rome is the capital of Italy. Madrid is the capital of Spain.
Lisbon is the capital of Portugal. Spanish is spoken in Spain and in much of South America,
Peru included.
"""
TOWERS = """# Towers

The Eiffel Tower stands on the Champ de Mars in Paris. It was finished in 1889 and is 330
metres tall.

The Blackpool Tower was designed by Maxwell and Tuke. It opened to the public in 1894.
"""
README = """Quell is a fast compression program, deployed within Orrin Labs and many other
companies. We, the Tarn Foundation, use the Tarn Licence for most of our programs.

The Qbench suite, an open-source benchmark by @marek, compares Quell with other programs.
For a description of the block format, see Ada Byrne and Tom Kell's book "Tools in Ruby",
Hollin Press, 1998. Quell is copyright by the Tarn Foundation.


-------------------------------------------------------------------------------
Copyright (C) 1998-2020 Tarn Foundation, Inc.
This file is part of Quell.
"""
OUTSIDE = [
    "What is the capital of Peru?",
    "Who designed the Eiffel Tower?",
    "Who founded Orrin Labs?",
    "Who founded the Tarn Foundation?",
]
# The same shapes, answered by the notes: question -> a word of the answer.
INSIDE = {
    "What is the capital of Spain?": "Madrid",
    "Who designed the Blackpool Tower?": "Tuke",
    "When was the Eiffel Tower finished?": "1889",
}
# Said by an agentive form, not the question's verb: answered (DocumentRAG; the README gives
# the graph no edge to reach these sentences by).
AGENTIVE = {
    "Who wrote Qbench?": "marek",  # 'a benchmark by @marek'
    "Who wrote Tools in Ruby?": "Tom Kell",  # the book is theirs: a possessive
}


async def test_what_the_question_asks_of_its_subject_must_be_said(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    async with Stack(pulsar_url, prefix, EVERY, data_dir=tmp_path / "data") as stack:
        await load_texts(
            stack,
            USER,
            tmp_path,
            {"capitals.md": CAPITALS, "towers.md": TOWERS, "quell.md": README},
        )
        await check_abstention(stack, USER, OUTSIDE, INSIDE)
        await check_answers(stack, USER, "tg-invoke-document-rag", AGENTIVE)
        # a README's closing rule and notice are no part of an answer (GNU Make's README)
        for command in ("tg-invoke-graph-rag", "tg-invoke-document-rag"):
            out = await stack.cli(command, "-q", "Who holds the copyright of Quell?", "-U", USER)
            assert "Tarn Foundation" in out.stdout and "---" not in out.stdout, out.stdout
