"""docs/otel.md's curl example holds: its OTLP/JSON body, posted with a key as the doc shows,
lists and shows as the doc prints it (an agent question, its LLM call's model and tokens);
tg-show-evidence on it says it holds no RAG answer."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.integration.test_otel_import import post
from tests.support.poll import eventually
from tests.support.stack import ADMIN, Stack, create_key
from trustgraph_flow.otel import otlp
from trustgraph_flow.store.processor import proc as store

DOC = Path(__file__).parents[2] / "docs" / "otel.md"
TRACE = "urn:trustgraph:agent:0e39d332-6e11-54e2-9950-b18ea395cc7b"


def doc_block(kind: str) -> str:
    """The first ``kind`` code block (``""``: a bare one) under the doc's 'Try it by hand'."""
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index("### Try it by hand") :]
    for block in section.split("```")[1::2]:  # what lies between an opening and a closing fence
        lang, _, body = block.partition("\n")
        if lang == kind:
            return body
    raise AssertionError(f"no ```{kind} block under 'Try it by hand' in {DOC}")


@pytest.fixture
async def stack(pulsar_url: str, prefix: str, tmp_path: Path) -> AsyncIterator[Stack]:
    async with Stack(pulsar_url, prefix, [store], data_dir=tmp_path, token=ADMIN) as running:
        yield running


async def test_the_docs_curl_example_shows_as_the_doc_says(stack: Stack) -> None:
    key = await create_key(stack, "alice")
    body = doc_block("json").encode()
    assert await post(stack, body, otlp.JSON, key, "?collection=default") == (200, "")
    env = {"TRUSTGRAPH_TOKEN": key}
    listed = await eventually(
        lambda: stack.cli("tg-list-explain-traces", env=env),
        lambda r: TRACE.rsplit(":", 1)[-1] in r.stdout,
    )
    shown = await stack.cli("tg-show-explain-trace", TRACE, env=env)
    assert shown.code == 0, shown.stderr
    printed = doc_block("")
    for line in (*listed.stdout.splitlines(), *shown.stdout.splitlines()):
        assert line.rstrip() in printed, line
    # No RAG answer in it: tg-show-evidence says so (it printed an empty line, found as a
    # new user), and JSON is an empty list.
    evidence = await stack.cli("tg-show-evidence", TRACE, env=env)
    assert (evidence.code, evidence.stdout) == (0, ""), evidence
    assert evidence.stderr.strip() == (
        f"No claims to show: trace {TRACE} holds no GraphRAG or DocumentRAG answer "
        f"(its steps: tg-show-explain-trace {TRACE})."
    )
    as_json = await stack.cli("tg-show-evidence", TRACE, "--format", "json", env=env)
    assert (as_json.code, as_json.stdout.strip()) == (0, "[]"), as_json
