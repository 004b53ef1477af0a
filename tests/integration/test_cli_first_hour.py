"""What a new user trips over in the first hour, through the real commands on the real stack:
an empty collection, -x on a terminal, answers with control characters."""

from __future__ import annotations

import asyncio
import json
import os
import pty

import aiohttp

from tests.support.poll import eventually
from tests.support.processors import EVERY, SAMPLES
from tests.support.stack import Stack, command_line, stack_fixture
from tests.support.store import labels, msg
from trustgraph_base.messaging import TRIPLES_STORE

QUESTION = "Who invented the printing press?"


stack = stack_fixture(EVERY)


async def on_terminal(stack: Stack, *argv: str) -> tuple[int, str]:
    """Run a command with stdout and stderr on one pseudo-terminal; its code and screen text."""
    main, child = pty.openpty()
    proc = await asyncio.create_subprocess_exec(
        *command_line(argv[0]),
        *argv[1:],
        stdin=asyncio.subprocess.DEVNULL,
        stdout=child,
        stderr=child,
        env={**os.environ, **stack.env, "NO_COLOR": "1"},
    )
    os.close(child)
    chunks: list[bytes] = []

    def read_all() -> None:
        while True:
            try:
                data = os.read(main, 4096)
            except OSError:  # EIO: the child closed the terminal
                return
            if not data:
                return
            chunks.append(data)

    await asyncio.wait_for(asyncio.gather(asyncio.to_thread(read_all), proc.wait()), 120)
    os.close(main)
    return proc.returncode or 0, b"".join(chunks).decode().replace("\r\n", "\n")


async def test_the_agent_on_an_empty_collection_says_there_is_nothing_to_search(
    stack: Stack,
) -> None:
    empty = await stack.cli("tg-invoke-agent", "-q", QUESTION)  # nothing loaded yet
    assert (empty.code, empty.stdout) == (1, "")
    assert empty.stderr == (
        "Error: collection 'default' of user 'trustgraph' has no documents; "
        "load some with tg-load-document [no-data]\n"
    )
    # Its trace says the run failed, and why: listed failed, its conclusion an error.
    failed = await eventually(
        lambda: stack.cli("tg-list-explain-traces", "--status", "failed", "--format", "json"),
        lambda r: r.code == 0 and len(json.loads(r.stdout)) == 1,
    )
    (trace,) = [t["id"] for t in json.loads(failed.stdout)]
    shown = await stack.cli("tg-show-explain-trace", trace)
    ending = shown.stdout[shown.stdout.index("Conclusion: ") :]
    assert "Termination: error" in ending and "has no documents" in ending, shown.stdout
    assert "[no-data]" not in ending  # the reason as said; its type is a fact of its own
    # A collection that does not exist is refused before any trace: asking leaves none behind.
    for command in ("tg-invoke-graph-rag", "tg-invoke-agent"):
        graph = await stack.cli(command, "-C", "nothing", "-q", QUESTION)
        assert graph.code == 1 and graph.stderr.endswith(
            "has no documents; load some with tg-load-document, or ask in one of the user's "
            "collections: default [no-data]\n"
        ), graph.stderr
    listed = await stack.cli("tg-list-collections", "--format", "json")
    assert [c["collection"] for c in json.loads(listed.stdout)] == ["default"], listed.stdout


async def test_a_collection_deleted_after_a_question_is_not_made_again_by_the_next(
    stack: Stack,
) -> None:
    """GraphRAG keeps the collections it saw exist (one look at the store each); one deleted
    since was still taken as existing, and the next question's trace made it again."""
    for collection in ("gone", "kept"):
        await stack.publish(TRIPLES_STORE, msg(labels(), user="trustgraph", collection=collection))

    async def names() -> list[str]:
        listed = await stack.cli("tg-list-collections", "--format", "json")
        return [c["collection"] for c in json.loads(listed.stdout)]

    await eventually(names, lambda found: {"gone", "kept"} <= set(found))
    seen = await stack.cli("tg-invoke-graph-rag", "-C", "gone", "-q", QUESTION)
    assert "or ask in one of the user's collections" not in seen.stderr, seen  # it exists
    async with aiohttp.ClientSession() as http:
        body = {"operation": "delete-collection", "collection": "gone"}
        async with http.post(f"{stack.url}api/v1/collection-management", json=body) as resp:
            assert resp.status == 200, await resp.text()
    assert "gone" not in await names()
    # Refused before its trace (the refusal names the store's other collections; a question
    # traced into it and finding nothing would not), so nothing makes it again
    again = await stack.cli("tg-invoke-graph-rag", "-C", "gone", "-q", QUESTION)
    assert again.code == 1, again
    assert "has no documents; load some with tg-load-document, or ask in one of the user's " in (
        again.stderr
    ), again
    assert "kept" in again.stderr and "gone" not in await names()


async def test_explain_lines_never_glue_to_the_answer_on_a_terminal(stack: Stack) -> None:
    loaded = await stack.cli("tg-load-document", str(SAMPLES / "capitals.txt"))
    assert loaded.code == 0, loaded.stderr
    for command in ("tg-invoke-graph-rag", "tg-invoke-document-rag", "tg-invoke-agent"):
        code, screen = await on_terminal(
            stack, command, "-x", "-q", "What is the capital of France?"
        )
        assert code == 0, screen
        lines = screen.splitlines()
        assert any(line.startswith("Explain: urn:") for line in lines), screen
        assert all(line.startswith("Explain: ") for line in lines if "Explain:" in line), screen
        assert "Paris" in screen and lines[-1].startswith("trace: urn:"), screen
    piped = await stack.cli("tg-invoke-graph-rag", "-x", "-q", "What is the capital of France?")
    assert piped.stdout.count("\n") == 1  # piped, stdout is the answer alone, one line
    # A mistyped -C: the collection has nothing, and the error names the user's collections.
    for command in ("tg-invoke-document-rag", "tg-invoke-agent"):
        typo = await stack.cli(command, "-C", "defualt", "-q", QUESTION)
        assert (typo.code, typo.stdout) == (1, ""), typo.stderr
        assert typo.stderr == (
            "Error: collection 'defualt' of user 'trustgraph' has no documents; "
            "load some with tg-load-document, or ask in one of the user's collections: "
            "default [no-data]\n"
        ), command
    # An id shown with the wrong -C: the line says which collection holds it, from every
    # command that takes a trace (verify, validate, export and delete said only "List them
    # with tg-list-explain-traces", a new user's two collections holding the same file; diff
    # too, until session 26).
    trace = piped.stderr.splitlines()[-1].removeprefix("trace: ")
    doc = loaded.stdout.splitlines()[-1]
    for argv, what in (
        (("tg-show-explain-trace", trace), f"no trace {trace!r}"),
        (("tg-verify-explain-trace", trace), f"no trace {trace!r}"),
        (("tg-validate-explain-trace", trace), f"no trace {trace!r}"),
        (("tg-export-explain-trace", trace), f"no trace {trace!r}"),
        (("tg-delete-explain-trace", trace), f"no trace {trace!r}"),
        (("tg-diff-explain-traces", trace, trace), f"no trace {trace!r}"),
        (("tg-show-document-hierarchy", doc), f"no document {doc!r}"),
    ):
        shown = await stack.cli(*argv, "-C", "defualt")
        assert (shown.code, shown.stdout) == (1, ""), shown.stderr
        assert shown.stderr == (
            f"Error: {what} in collection 'defualt' of user 'trustgraph'. "
            "It is in collection 'default': pass -C default.\n"
        )
