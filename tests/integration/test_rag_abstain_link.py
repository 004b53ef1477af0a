"""A word that links a sentence to the one before is no name, and an act after "by" is no
agent (issue 29, abstention): on the sed FAQ, "Who moderates the sed-users mailing list?" was
answered by GraphRAG with "Instead of altering a file interactively by moving the cursor on
the screen …, the user sends a script of editing instructions to sed": its capitalised
"Instead" counted as a name, and "moving" after "by" as who did it (verify/addressing.py).
The commands now say the documents do not say; a who the notes do name is still answered."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.abstain import check_abstention, load_texts
from tests.support.processors import EVERY
from tests.support.stack import Stack

USER = "lena"  # a user of its own: the samples are not loaded
NOTES = """# Holm ferry list

Karin Obst publishes timetables. Instead of reading the Holm ferry list by visiting the
harbour, members get it in the post.
"""


@pytest.mark.timeout(300)  # 6 questions asked through the commands, on a loaded machine
async def test_a_linking_word_and_an_act_name_nobody(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    async with Stack(pulsar_url, prefix, EVERY, data_dir=tmp_path / "data") as stack:
        await load_texts(stack, USER, tmp_path, {"ferry.md": NOTES})
        await check_abstention(
            stack,
            USER,
            ["Who moderates the Holm ferry list?"],
            {"Who publishes timetables?": "Karin Obst"},
        )
