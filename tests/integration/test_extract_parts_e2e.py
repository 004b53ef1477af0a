"""Words in the wrong part of speech give no edge, end to end (issue 29, "junk edges no
longer show up as evidence"; ``llm/extract_parts``): a FAQ whose sentences the extractor once
misread (a plural noun as the relation, a verb as the object, a lone adjective as subject) is
loaded with tg-load-document; the graph tg-query-triples shows holds the edges of its other
sentences and none of those, and GraphRAG asked about their words cites no such edge."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.junk_edges import check_never_read_nor_cited
from tests.support.processors import RAG
from tests.support.stack import Stack

FAQ = """Zedit FAQ

Zedit reads its input from files. Zedit was written by Lee Hale in 1974.
In practice, Qedit implementations tend to crash on large files.
Occasionally Zedit stack traces get the wrong function names.
Higher numbers result in more output from Zedit.
Zlink core collaborators maintain the Zlink repository.
"""
# labels those sentences gave on the code before (`Qedit → implementations → tend`, …)
MISREAD = {"tend", "get", "higher", "zlink core", "implementations", "maintain"}
pytestmark = pytest.mark.timeout(300)


async def test_words_in_the_wrong_part_of_speech_give_no_edge_and_are_never_cited(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    async with Stack(pulsar_url, prefix, RAG, data_dir=tmp_path / "data") as stack:
        await check_never_read_nor_cited(
            stack,
            tmp_path / "faq.txt",
            FAQ,
            {"zedit", "input", "lee hale"},  # the rest is read
            MISREAD,
            "What do Qedit implementations tend to do?",
        )
