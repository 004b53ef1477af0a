"""DocumentRAG (and GraphRAG's sentences) on the shapes of documents a new user brings (issue
29, session 19's development set: a FAQ, a paper, a README). The offline answer is the
sentence that best supports an answer, and three of its readings failed on them:
- a FAQ's question was chosen as the answer to a question worded like it, not the answer
  below it: a question now answers nothing, and the sentences below a question standing as
  a paragraph of its own are read with it;
- "Woven Parity Codes (WPCs) were proposed by…" did not name Woven Parity Codes (the short
  form in brackets made the name longer), so the sentence after it, which leans on it, won;
- "Quillo's format" did not name Quillo.
This is the user's path, end to end."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.abstain import check_answers, load_texts
from tests.support.processors import EVERY
from tests.support.stack import Stack

USER = "otto"  # a user of its own: the samples are not loaded
FAQ = """Frequently Asked Questions about quillo

11. Can quillo read tar files?

    No, sorry. You have to unpack them first.

12. Is there a smaller, easier to read version of the decoder I can look at?

    First off, you should read the format notes. Second, yes. Look in the
    contrib/tiny directory.
"""
PAPER = """Woven Parity Codes (WPCs) were proposed by Ilsa Marrin in 1961. The "classic" table
method described in section 4 was published by Odo Brandt in 1988.
"""
README = """Quillo's format is stable and documented in [RFC9999](https://example.org/rfc9999).
Several other implementations are available.
"""


@pytest.mark.timeout(300)
async def test_a_faq_a_short_form_and_a_possessive(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    async with Stack(pulsar_url, prefix, EVERY, data_dir=tmp_path / "data") as stack:
        texts = {"faq.txt": FAQ, "paper.txt": PAPER, "readme.md": README}
        await load_texts(stack, USER, tmp_path, texts)
        asked = {
            "Which directory holds a smaller version of the decoder?": "contrib/tiny",
            "Who proposed Woven Parity Codes?": "Ilsa Marrin",
            "Which RFC documents the Quillo format?": "RFC9999",
        }
        await check_answers(stack, USER, "tg-invoke-document-rag", asked)
