"""A README's plain prose gives its edges, end to end (issue 29, session 20: GNU gettext's
README gave none, so GraphRAG could not say which program prepares a message catalog). A
README written as such ones are (a fronted phrase with no comma, a lower-case program name
after 'the', a quoted term with a relative clause after it, sentences opening with
lower-case names, 'is able to', 'does not', 'NOT') is loaded with tg-load-document; the graph
tg-query-triples shows holds each sentence's edge, and tg-invoke-graph-rag answers from one.
On the code before, none of these edges was read."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.junk_edges import loaded_edges
from tests.support.processors import RAG
from tests.support.stack import Stack

README = """This is the GNU qtext package.

For this task GNU qtext provides the needed tools and library functions.
It is also interesting for translators, because GNU qtext provides the 'qmerge' program,
which prepares a message catalog before a translation update.

The qconfig script provides a non-standard option.

qzip and qunzip are not associated with the GNU project. qunzip checks the uncompressed
length. qunzip is sometimes able to detect a bad .Q file.
Zedit does not support older compression methods.
The "byte code" is NOT the qc language.
"""
# (subject, predicate, object) each rule reads, lower case
EDGES = {
    ("gnu qtext", "provides", "needed tools"),  # a fronted phrase with no comma
    ("gnu qtext", "provides", "qmerge program"),  # after 'because'; a quoted term
    ("qmerge program", "prepares", "message catalog"),  # a relative clause
    ("qconfig script", "provides", "non-standard option"),  # 'The X script'
    ("qunzip", "are not associated with", "gnu"),  # lower-case names
    ("qunzip", "checks", "uncompressed length"),  # a verb the lexicon knows
    ("qunzip", "is able to detect", "bad .q file"),  # 'is able to', a file's extension
    ("zedit", "does not support", "older compression methods"),
    ("byte code", "is not the", "qc language"),
}
pytestmark = pytest.mark.timeout(300)


async def test_readme_prose_gives_its_edges_and_graph_rag_answers_from_them(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    text = tmp_path / "README"  # no extension, as a README is: its type is said
    text.write_text(README)
    async with Stack(pulsar_url, prefix, RAG, data_dir=tmp_path / "data") as stack:
        edges = await loaded_edges(stack, text, "--mime-type", "text/plain")
        assert EDGES <= edges, EDGES - edges

        asked = await stack.cli(
            "tg-invoke-graph-rag",
            "--no-streaming",
            "-q",
            "Which program prepares a message catalog before a translation update?",
        )
        assert asked.code == 0, asked.stderr
        assert "qmerge" in asked.stdout, asked.stdout
