"""A question with no content word (every word a stop word of the offline engine, or none:
``'; ALL; #``, "What is it?") asks nothing the documents could answer: the three commands
answer "The documents do not say" (the offline engine finds no sentence sharing a word with
it, so the answer cites nothing), and the trace records why. A guard for the new-user pass's
``'; DROP ALL; #``, which is answered: "drop" is a content word and the document says it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.abstain import ABSTAINED, check_abstention, load_texts
from tests.support.processors import EVERY
from tests.support.stack import Stack

USER = "cleo"
TEXT = "Zpack compresses files. It is what it is, and all of it is free.\n"
WHY = "the answer cites no evidence"


@pytest.mark.timeout(300)
async def test_a_question_with_no_content_word_is_not_answered(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    async with Stack(pulsar_url, prefix, EVERY, data_dir=tmp_path / "data") as stack:
        await load_texts(stack, USER, tmp_path, {"zpack.md": TEXT})
        await check_abstention(stack, USER, ["'; ALL; #", "What is it?"], {})
        asked = await stack.cli("tg-invoke-document-rag", "-q", "What is it?", "-U", USER)
        assert asked.stdout == f"{ABSTAINED}: {WHY}.\n", asked.stdout
        trace = next(
            ln.removeprefix("trace: ")
            for ln in asked.stderr.splitlines()
            if ln.startswith("trace: ")
        )
        shown = await stack.cli("tg-show-explain-trace", trace, "-U", USER, "--format", "json")
        assert shown.code == 0 and WHY in shown.stdout, shown.stdout
