"""A version is not a time (issue 29): asked *when*, an answer must say a time
(verify/addressing.py), and any number counted, so "This manual page pertains to version
1.4.2 of Zpack." answered "When was the Zpack manual page written?" (bzip2's manual, asked
when bzip2-0.1 was released, answered with its version 1.0.8). A version's number (after
"version", with two dots, or joined to a name: "bzip2-0.1") no longer counts, and the
commands say the documents do not say; a *when* the manual answers is still answered."""

from __future__ import annotations

from pathlib import Path

from tests.support.abstain import ABSTAINED, load_texts
from tests.support.processors import EVERY
from tests.support.stack import Stack

USER = "vera"  # a user of its own: the samples are not loaded
MANUAL = """# Zpack

Zpack compresses files using the block-sorting algorithm. This manual page pertains to
version 1.4.2 of Zpack.

Zpack was first released in August 2001.
"""
COMMANDS = ("tg-invoke-graph-rag", "tg-invoke-document-rag")


async def test_a_version_does_not_answer_when(pulsar_url: str, prefix: str, tmp_path: Path) -> None:
    async with Stack(pulsar_url, prefix, EVERY, data_dir=tmp_path / "data") as stack:
        await load_texts(stack, USER, tmp_path, {"zpack.md": MANUAL})
        for command in COMMANDS:
            outside = await stack.cli(
                command, "-q", "When was the Zpack manual page written?", "-U", USER
            )
            assert outside.code == 0, outside.stderr
            assert ABSTAINED in outside.stdout, (command, outside.stdout)
            inside = await stack.cli(command, "-q", "When was Zpack first released?", "-U", USER)
            assert inside.code == 0, inside.stderr
            assert "August 2001" in inside.stdout, (command, inside.stdout)
