"""Asking each answering command as a user does, for the abstention tests (issue 29):
questions the documents do not answer must get "The documents do not say" from
tg-invoke-graph-rag, tg-invoke-document-rag and tg-invoke-agent; those they do answer must
be answered."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from tests.support.stack import Stack

ABSTAINED = "The documents do not say"
COMMANDS = ("tg-invoke-graph-rag", "tg-invoke-document-rag", "tg-invoke-agent")


async def load_texts(stack: Stack, user: str, folder: Path, texts: Mapping[str, str]) -> None:
    """Each text written to ``folder`` under its name and loaded for ``user``."""
    for name, text in texts.items():
        path = folder / name
        path.write_text(text)
        loaded = await stack.cli("tg-load-document", str(path), "-U", user)
        assert loaded.code == 0, loaded.stderr


async def check_abstention(
    stack: Stack, user: str, outside: Iterable[str], inside: Mapping[str, str]
) -> None:
    """Every command abstains on each question ``outside`` (all asked before any failure is
    reported), and answers each question ``inside`` with its word (question -> a word of the
    answer)."""
    answered: dict[str, str] = {}
    for question in outside:
        for command in COMMANDS:
            out = await stack.cli(command, "-q", question, "-U", user)
            assert out.code == 0, out.stderr
            answered[f"{command}: {question}"] = out.stdout.strip()
    wrong = {k: v for k, v in answered.items() if ABSTAINED not in v}
    assert not wrong, "\n".join(f"{k} -> {v}" for k, v in wrong.items())
    for question, word in inside.items():
        for command in COMMANDS:
            out = await stack.cli(command, "-q", question, "-U", user)
            assert out.code == 0, out.stderr
            assert word in out.stdout and ABSTAINED not in out.stdout, (command, out.stdout)


async def check_answers(stack: Stack, user: str, command: str, asked: Mapping[str, str]) -> None:
    """``command`` answers each question (question -> a word of the answer), none by
    abstaining and none with a question."""
    for question, word in asked.items():
        out = await stack.cli(command, "-q", question, "-U", user)
        assert out.code == 0, out.stderr
        assert word in out.stdout and ABSTAINED not in out.stdout, (question, out.stdout)
        assert not out.stdout.strip().endswith("?"), (question, out.stdout)


def trace_of(stderr: str) -> str:
    """The trace id an answering command printed (its ``trace: …`` line on stderr)."""
    return next(
        line.removeprefix("trace: ") for line in stderr.splitlines() if line.startswith("trace: ")
    )
