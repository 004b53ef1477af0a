"""A sentence that speaks of "such a" thing leans on the one before it (issue 29): on the
GFDL, "What is an example of a Massive Multiauthor Collaboration Site?" is answered by "A
public wiki that anybody can edit is an example of such a server.", the server the sentence
before defines. Read alone it holds none of the name, so GraphRAG and DocumentRAG said the
documents do not say; read with the sentence before (as a sentence opening with "It" is),
it answers, and GraphRAG cites the edge read from that definition."""

from __future__ import annotations

from pathlib import Path

from tests.support.abstain import ABSTAINED, load_texts, trace_of
from tests.support.processors import EVERY
from tests.support.stack import Stack

USER = "sian"  # a user of its own: the samples are not loaded
NOTES = {
    "harbours.md": """# Holm harbours

A "Drift Harbour" means any sheltered bay that keeps boats through the winter and also
offers moorings to anybody. A tidal creek that anybody can reach is an example of such a
harbour. Osric Pell built the quay at Holm in 1931.
""",
}


async def test_such_a_thing_is_read_with_the_sentence_that_says_what_it_is(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    async with Stack(pulsar_url, prefix, EVERY, data_dir=tmp_path / "data") as stack:
        await load_texts(stack, USER, tmp_path, NOTES)
        question = "What is an example of a Drift Harbour?"
        answers = {}
        for command in ("tg-invoke-graph-rag", "tg-invoke-document-rag"):
            asked = await stack.cli(command, "-q", question, "-U", USER)
            assert asked.code == 0, asked.stderr
            answers[command] = asked
        graph = answers["tg-invoke-graph-rag"]
        for asked in answers.values():
            assert "tidal creek" in asked.stdout and ABSTAINED not in asked.stdout, asked.stdout
        shown = await stack.cli("tg-show-explain-trace", trace_of(graph.stderr), "-U", USER)
        assert shown.code == 0, shown.stderr
        edge = shown.stdout.split("Drift Harbour → means → sheltered bay", 1)[1].split("Edge ", 1)[
            0
        ]
        assert "cited by the answer" in edge, shown.stdout
        outside = await stack.cli(
            "tg-invoke-graph-rag", "-q", "What is an example of a Salt Market?", "-U", USER
        )
        assert outside.code == 0 and ABSTAINED in outside.stdout, outside.stdout
