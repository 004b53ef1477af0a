"""An address answers *where* (issue 29, abstention): on ed's README, "Where should bugs in
ed be reported?" was withheld by GraphRAG and DocumentRAG, both with the answering sentence
"Report bugs to bug-ed@gnu.org", because the check that an answer gives what is asked
(verify/addressing.py) knew a place only as a name or a word after "in", "at", …. A mail
address or a web URL now answers a where-question; a question the notes do not answer is
still withheld."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.abstain import check_abstention, load_texts
from tests.support.processors import EVERY
from tests.support.stack import Stack

USER = "abel"  # a user of its own: the samples are not loaded
README = """Zedit README

Zedit is a line-oriented text editor for the Holm terminals.

Report bugs to bug-zedit@holm.example.org

Zedit home page: https://holm.example.org/zedit/
"""


@pytest.mark.timeout(300)  # 6 questions asked through the commands, on a loaded machine
async def test_a_mail_address_or_a_url_answers_where(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    async with Stack(pulsar_url, prefix, EVERY, data_dir=tmp_path / "data") as stack:
        await load_texts(stack, USER, tmp_path, {"README.txt": README})
        await check_abstention(
            stack,
            USER,
            ["Where was the Zedit logo designed?"],
            {"Where should bugs in Zedit be reported?": "bug-zedit@holm.example.org"},
        )
