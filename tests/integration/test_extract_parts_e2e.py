"""Words in the wrong part of speech give no edge, end to end (issue 29, "junk edges no
longer show up as evidence"; ``llm/extract_parts``): a FAQ whose sentences the extractor once
misread (a plural noun as the relation, a verb as the object, a lone adjective as subject) is
loaded with tg-load-document; the graph tg-query-triples shows holds the edges of its other
sentences and none of those, and GraphRAG asked about their words cites no such edge."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.processors import RAG
from tests.support.stack import Stack
from trustgraph_base.provenance import RDFS

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
    faq = tmp_path / "faq.txt"
    faq.write_text(FAQ)
    async with Stack(pulsar_url, prefix, RAG, data_dir=tmp_path / "data") as stack:
        loaded = await stack.cli("tg-load-document", str(faq))
        assert loaded.code == 0, loaded.stderr

        shown = await stack.cli(
            "tg-query-triples", "-p", RDFS.label.i, "-g", "", "--format", "json"
        )
        assert shown.code == 0, shown.stderr
        labels = {str(t["o"].get("v", "")).lower() for t in json.loads(shown.stdout)}
        assert {"zedit", "input", "lee hale"} <= labels, labels  # the rest is read
        assert not labels & MISREAD, labels & MISREAD

        done = await stack.cli(
            "tg-invoke-graph-rag",
            "--no-streaming",
            "-q",
            "What do Qedit implementations tend to do?",
        )
        assert done.code == 0, done.stderr
        trace = done.stderr.strip().splitlines()[-1].removeprefix("trace: ")
        shown = await stack.cli("tg-show-explain-trace", trace, "--format", "json")
        assert shown.code == 0, shown.stderr
        edges = json.loads(shown.stdout)["edges"]
        named = {str(e[f"{k}_label"] or "").lower() for e in edges for k in "so"}
        assert not named & MISREAD, edges
