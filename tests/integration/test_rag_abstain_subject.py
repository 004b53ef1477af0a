"""An out-of-corpus question that shares only a relation word with the documents (issue 29,
abstention): "Who discovered penicillin?" asked of the samples. The evidence says
"discovered" (or "wrote", "invented") but never what the question is about, so
tg-invoke-graph-rag, tg-invoke-document-rag and tg-invoke-agent all answer "The documents
do not say"; the same shape of question about what the samples do hold is still answered."""

from __future__ import annotations

from pathlib import Path

from tests.integration.test_rag_abstain import USER, load_samples
from tests.support.abstain import check_abstention, load_texts
from tests.support.processors import EVERY
from tests.support.stack import Stack

NOTES = """# Orla Quist

Orla Quist was born in Bergen in 1858. In 1886 Orla Quist discovered a pale blue salt in
the brine of the Sorrel springs. The filter she designed in 1895 was copied by water works
across the north. Peter Lusk wrote the standard textbook on filtration.
"""
# A thing the samples never mention, and a relation word they use.
OUTSIDE = [
    "Who discovered penicillin?",
    "Who wrote Dracula?",
    "Who invented the telephone?",
]
# The same shape, about what the samples hold: question -> a word of the answer.
INSIDE = {
    "Who wrote Hamlet?": "Shakespeare",
    "Where was Marie Curie born?": "Warsaw",
    "What did Orla Quist discover?": "salt",
}


async def test_a_relation_word_alone_does_not_make_evidence_relevant(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    async with Stack(pulsar_url, prefix, EVERY, data_dir=tmp_path / "data") as stack:
        await load_samples(stack)
        await load_texts(stack, USER, tmp_path, {"quist.md": NOTES})
        await check_abstention(stack, USER, OUTSIDE, INSIDE)
