"""Issue 29: a manual's synopsis line and the sentence saying what the command does both hold
the question's one word; the answer is the sentence, not the usage line (``support.ranked``
breaks ties for a piece that reads as a sentence)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.abstain import load_texts
from tests.support.processors import EVERY
from tests.support.stack import Stack

USER = "cleo"
MANUAL = (
    "# zpack manual\n\n"
    "zpack, zunpack - a block-sorting file compressor\n\n"
    "• zpack [ -cdfkqv ] [ filenames ...\n"
    "• zcat [ -s ] [ filenames ...\n\n"
    "zcat (or zpack -dc) decompresses all specified files to the standard output.\n"
)
SENTENCE = "zcat (or zpack -dc) decompresses all specified files to the standard output."


@pytest.mark.timeout(300)
async def test_what_a_command_does_is_answered_by_its_sentence_not_its_synopsis(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    async with Stack(pulsar_url, prefix, EVERY, data_dir=tmp_path / "data") as stack:
        await load_texts(stack, USER, tmp_path, {"zpack.md": MANUAL})
        asked = await stack.cli("tg-invoke-document-rag", "-q", "What does zcat do?", "-U", USER)
        assert asked.code == 0, asked.stderr
        assert asked.stdout.startswith(SENTENCE), asked.stdout
        assert "[ -s ]" not in asked.stdout, asked.stdout
