"""What the commands print cannot drive the terminal, and a closed pipe ends them quietly.

Stored text with C0 and C1 controls (a question holding ESC and CSI, U+009B) comes out
escaped from every command's text output, an exported document and JSON included (those
stay valid: ``\\u009b`` is a JSON and Turtle escape, so they read back the exact text);
``-o FILE`` writes the exact text. ``--format json`` piped into ``head`` ends without an
error message.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pyoxigraph as ox

from bench.long_trace import long_agent_trace
from tests.support.poll import eventually
from tests.support.stack import Stack, command_line, stack_fixture
from tests.support.store import TIME, document, labels, msg
from trustgraph_base.messaging import TRIPLES_STORE
from trustgraph_base.provenance import (
    graph_rag_exploration_triples,
    graph_rag_question_triples,
    synthesis_triples,
    uris,
)
from trustgraph_base.rdf.terms import Triple, iri, lit
from trustgraph_flow.store.processor import proc as store

stack = stack_fixture([store])

EVIL = "fox \x1b[2J\x1b]0;owned\x07 \x9b31m red\x85 \u202eevil? \x1b[1mbold"
RAW = ("\x1b", "\x07", "\x9b", "\x85", "\u202e")
ALICE = ("-U", "alice")


async def evil_trace(stack: Stack) -> str:
    q = uris.graph_rag_question_uri("evil")
    triples = graph_rag_question_triples(q, EVIL, TIME.format(1), None)
    triples += graph_rag_exploration_triples(uris.exploration_uri(q), q, 0)
    triples += synthesis_triples(uris.synthesis_uri(q), uris.exploration_uri(q), f"A: {EVIL}")
    await stack.publish(TRIPLES_STORE, msg([*document(), *labels(), *triples], "evil"))
    await eventually(
        lambda: stack.cli("tg-list-explain-traces", *ALICE, "--format", "json"),
        lambda r: q in r.stdout,
    )
    return q


def clean(text: str) -> bool:
    return not any(ch in text for ch in RAW)


async def test_control_characters_are_escaped_in_every_output(stack: Stack, tmp_path: Path) -> None:
    q = await evil_trace(stack)
    for args in (
        ("tg-list-explain-traces", *ALICE),
        ("tg-list-explain-traces", *ALICE, "--format", "csv"),
        ("tg-show-explain-trace", q, *ALICE),
        ("tg-show-explain-trace", q, *ALICE, "--format", "json"),
        ("tg-export-explain-trace", q, *ALICE, "--format", "provn"),
    ):
        code, out, err = await stack.cli(*args)
        assert code == 0 and clean(out) and "31m red" in out, (args, out, err)
    # A colour code in stored text is shown as text, never passed as the command's own: CSV,
    # PROV-N to stdout and tg-show-evidence passed it (painting a terminal; piped, dropped).
    query = (
        "SELECT ?q WHERE { GRAPH <urn:graph:retrieval> { ?s <https://trustgraph.ai/ns/query> ?q } }"
    )
    for args in (
        ("tg-list-explain-traces", *ALICE),
        ("tg-list-explain-traces", *ALICE, "--format", "csv"),
        ("tg-sparql", query, *ALICE, "--format", "csv"),
        ("tg-export-explain-trace", q, *ALICE, "--format", "provn"),
        ("tg-show-evidence", q, *ALICE),
    ):
        code, out, err = await stack.cli(*args)
        assert code == 0 and "\\x1b[1mbold" in out, (args, out, err)
    code, out, err = await stack.cli("tg-show-source-usage", "urn:x\x9b\x1b[2J", *ALICE)
    assert code == 1 and clean(err), err  # an error naming what was asked: escaped too
    code, out, _ = await stack.cli("tg-list-explain-traces", *ALICE, "--format", "json")
    assert code == 0 and json.loads(out)[0]["question"] == EVIL  # JSON stays exact
    for fmt, rdf in (("trig", ox.RdfFormat.TRIG), ("turtle", ox.RdfFormat.TURTLE)):
        code, out, err = await stack.cli("tg-export-explain-trace", q, *ALICE, "--format", fmt)
        assert code == 0 and clean(out), err
        assert EVIL in {t.object.value for t in ox.parse(out, format=rdf)}  # still valid RDF
    exact = tmp_path / "trace.trig"
    code, _, err = await stack.cli("tg-export-explain-trace", q, *ALICE, "-o", str(exact))
    assert code == 0 and EVIL in {t.object.value for t in ox.parse(path=exact)}, err


async def test_piping_json_into_head_ends_quietly(stack: Stack) -> None:
    s = "urn:test:many"
    many = [Triple(s=iri(s), p=iri(f"urn:test:p{n}"), o=lit("x" * 100)) for n in range(3000)]
    await stack.publish(TRIPLES_STORE, msg(many, "many"))
    for batch in long_agent_trace("long", 2000, sub_every=100, user="alice"):
        await stack.publish(TRIPLES_STORE, batch)
    trace = uris.agent_session_uri("long")
    await eventually(
        lambda: stack.cli("tg-query-triples", "-s", s, *ALICE, "-l", "5000", "--format", "json"),
        lambda r: r.stdout.count('"urn:test:p') == 3000,
    )
    await eventually(
        lambda: stack.cli("tg-show-explain-trace", trace, *ALICE, "--format", "json"),
        lambda r: r.stdout.count('"index"') >= 2000,
    )
    for args in (
        ("tg-show-explain-trace", trace, *ALICE, "--format", "json"),  # printed while it streams
        ("tg-show-explain-trace", trace, *ALICE),
        ("tg-query-triples", "-s", s, *ALICE, "-l", "5000", "--format", "json"),
        ("tg-list-explain-traces", *ALICE, "--format", "csv"),
    ):
        read, write = os.pipe()
        head = await asyncio.create_subprocess_exec(
            "head", "-c", "1", stdin=read, stdout=asyncio.subprocess.PIPE
        )
        os.close(read)
        env = {**os.environ, **stack.env}
        cmd = await asyncio.create_subprocess_exec(
            *command_line(args[0]), *args[1:], stdout=write, stderr=asyncio.subprocess.PIPE, env=env
        )
        os.close(write)
        first, _ = await asyncio.wait_for(head.communicate(), 60)
        _, err = await asyncio.wait_for(cmd.communicate(), 60)
        assert len(first) == 1, first
        assert err.decode() == "", (args, err)  # no "Error: BrokenPipeError", no traceback
