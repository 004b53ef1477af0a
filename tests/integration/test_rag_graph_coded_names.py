"""A program's name written in lower case with a digit opens a sentence GraphRAG can answer
from (issue 29): manuals write "bzip2 will read arguments from the environment variables
BZIP2 and BZIP", and the offline extractor, which reads a subject only from a capitalised
word, gave no edge from such sentences (27 more edges from the bzip2 manual now, none from
its other pages' headings); a chunk that gave no edge is never reached by GraphRAG, so "Which
environment variables does bzip2 read arguments from?" got "The documents do not say"."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.abstain import ABSTAINED, load_texts
from tests.support.processors import EVERY
from tests.support.stack import Stack

USER = "zora"  # a user of its own: the samples are not loaded
NOTES = {
    "zpack.md": """# Setting defaults

zpack2 reads its defaults from the environment variable ZPACKRC. Options given on the
command line come after them.
""",
    "tarn.md": """# Tarn Hall

Tarn Hall was built by Osric Pell. Osric Pell was born in Derby.
""",
}


@pytest.mark.timeout(300)
async def test_a_lower_case_program_name_is_a_subject(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    async with Stack(pulsar_url, prefix, EVERY, data_dir=tmp_path / "data") as stack:
        await load_texts(stack, USER, tmp_path, NOTES)
        asked = await stack.cli(
            "tg-invoke-graph-rag",
            "-q",
            "Which environment variable does zpack2 read its defaults from?",
            "-U",
            USER,
        )
    assert asked.code == 0, asked.stderr
    assert "ZPACKRC" in asked.stdout and ABSTAINED not in asked.stdout, asked.stdout
