"""Ctrl-C during a question: one line saying what goes on on the server, exit 130 (as a
shell reports SIGINT), not click's bare 'Aborted!' with exit 1. Found as a new user."""

from __future__ import annotations

import pytest

from tests.support.interrupt import interrupted_when
from tests.support.stack import Stack, stack_fixture
from trustgraph_cli.rag_output import ANSWER_INTERRUPTED
from trustgraph_flow.librarian import processor as librarian

# No agent and no RAG service: a question waits until the user gives up.
stack = stack_fixture([librarian.proc])


@pytest.mark.parametrize("command", ["tg-invoke-agent", "tg-invoke-graph-rag"])
async def test_ctrl_c_during_a_question_says_what_goes_on(stack: Stack, command: str) -> None:
    code, out, err = await interrupted_when(
        stack,
        command,
        "-vv",
        "-q",
        "What is the capital of France?",
        ready=lambda line: ": request 1: " in line,  # the question was sent
    )
    assert code == 130, err
    assert out == b""
    assert err.decode().strip() == ANSWER_INTERRUPTED
