"""Answers that do not answer (issue 29, abstention): a new user's manual, worded like
Debian's bzip2 manual, asked "Who wrote zpack?" — it does not say — got the sentence "Zpack
will decline to write compressed output to a terminal" from tg-invoke-graph-rag,
tg-invoke-document-rag and tg-invoke-agent, marked supported: every word of it in its evidence, and the evidence about
Zpack, but no one named. The answer must give what the question asks for (a name, a time, a
number; verify/addressing.py), or the three commands answer "The documents do not say", and
the trace says why (tg:addressesQuestion false). Questions the manual does answer, of the
same shapes, are still answered."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.abstain import ABSTAINED, check_abstention, load_texts
from tests.support.processors import EVERY
from tests.support.stack import Stack

USER = "uma"  # a user of its own: the samples are not loaded
MANUAL = """# Zpack manual

Zpack compresses files using the block-sorting algorithm and Huffman coding. In this case,
Zpack will decline to write compressed output to a terminal, as this would be unreadable.
Each file is replaced by a compressed version of itself, with the name original_name.zp.

The memory needed to decompress a stream cannot be known until the stream header has been
read, so a later call could fail with ZP_MEM_ERROR.

Version 2.0 of Zpack was released in March 2019.
"""
OUTSIDE = ["Who wrote zpack?", "How much memory does zpack need to decompress a stream?"]
INSIDE = {
    "When was version 2.0 of zpack released?": "2019",
    "What does zpack use to compress files?": "Huffman",
}


@pytest.mark.timeout(300)  # 15 questions asked through the commands, on a loaded machine
async def test_an_answer_must_give_what_the_question_asks_for(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    async with Stack(pulsar_url, prefix, EVERY, data_dir=tmp_path / "data") as stack:
        await load_texts(stack, USER, tmp_path, {"zpack.md": MANUAL})
        await check_abstention(stack, USER, OUTSIDE, INSIDE)
        asked = await stack.cli("tg-invoke-document-rag", "-q", OUTSIDE[0], "-U", USER)
        assert ABSTAINED in asked.stdout, asked.stdout
        trace = next(
            line.removeprefix("trace: ")
            for line in asked.stderr.splitlines()
            if line.startswith("trace: ")
        )
        shown = await stack.cli(
            "tg-show-explain-trace", trace, "-U", USER, "--show-provenance", "--format", "json"
        )
        assert shown.code == 0, shown.stderr
        # the draft kept, and why it was withheld
        assert "decline to write" in shown.stdout, shown.stdout
        assert "the question asks who or where" in shown.stdout, shown.stdout
        exported = await stack.cli("tg-export-explain-trace", trace, "-U", USER)
        assert exported.code == 0, exported.stderr
        said = [line for line in exported.stdout.splitlines() if "addressesQuestion" in line]
        assert said and all("false" in line for line in said), exported.stdout


# A licence's head, written like the GPL's: its notice names the body holding the copyright,
# and the sentence after it opens with "Everyone". Asked who founded that body (session 15's
# trap, "Who founded the Free Software Foundation?"), the three commands answered with the
# notice: its first word "Copyright", the "(C)", "Inc." and "Everyone" counted as names.
LICENCE = """# Frobnicator Public Licence

Version 2, 4 May 2019

Copyright (C) 2019 Open Tools Foundation, Inc. <https://example.org/>
Everyone is permitted to copy and distribute verbatim copies of this license document, but changing it is not allowed.

Preamble

Lind wrote the Frobnicator Public Licence. It is a free, copyleft license for software. Developers that use it protect your rights: they assert copyright on the software, and offer you this licence.
"""


@pytest.mark.timeout(300)  # 9 questions asked through the commands, on a loaded machine
async def test_a_sentence_opening_word_is_no_name(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    async with Stack(pulsar_url, prefix, EVERY, data_dir=tmp_path / "data") as stack:
        await load_texts(stack, USER, tmp_path, {"frobnicator.md": LICENCE})
        await check_abstention(
            stack,
            USER,
            ["Who founded the Open Tools Foundation?"],
            # a name opening its sentence, never written in lower case, is still one
            {"Who wrote the Frobnicator Public Licence?": "Lind"},
        )
