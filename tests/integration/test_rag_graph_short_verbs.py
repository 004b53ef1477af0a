"""GraphRAG reads a short verb's past tense as the verb (issue 29): "When did Ada Voss die?"
asked of notes that give her twenty edges, among them "Ada Voss died in Whitby in 1911". The
offline selection and answer compare the question's words with the edges' by stem; 'died'
did not meet 'die', so every edge of hers tied and the selection kept the first ten in the
order the store returned them: bench_answers' "When did Orla Quist die?" lost its gold edge
in the stack and kept it in process (extraction order). The store's order happens to put
her death early here; tests/unit/test_offline_answers.py puts it last. This is the user's
path, end to end."""

from __future__ import annotations

from pathlib import Path

from tests.support.abstain import ABSTAINED, load_texts
from tests.support.processors import EVERY
from tests.support.stack import Stack

USER = "vera"  # a user of its own: the samples are not loaded
NOTES = {
    "voss.md": """# Ada Voss

Ada Voss was born in Hull in 1840. Ada Voss moved to Leeds in 1860. Ada Voss married Tom
Hale in 1862. Ada Voss opened the Kirk School in 1865. Ada Voss visited Bergen in 1870. Ada
Voss founded the Voss Trust in 1875. Ada Voss sold the Kirk School in 1885. Ada Voss
retired to Whitby in 1890. Ada Voss met Clara Went in 1895. Ada Voss died in Whitby in 1911.
""",
}


async def test_died_answers_when_she_died(pulsar_url: str, prefix: str, tmp_path: Path) -> None:
    async with Stack(pulsar_url, prefix, EVERY, data_dir=tmp_path / "data") as stack:
        await load_texts(stack, USER, tmp_path, NOTES)
        asked = await stack.cli("tg-invoke-graph-rag", "-q", "When did Ada Voss die?", "-U", USER)
        assert asked.code == 0, asked.stderr
        assert "1911" in asked.stdout and ABSTAINED not in asked.stdout, asked.stdout
        assert "1840" not in asked.stdout, asked.stdout  # her birth answers another question
