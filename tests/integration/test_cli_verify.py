"""tg-verify-explain-trace and tg-verify-log end to end: answers from the real pipeline, the
store on an Oxigraph server edited directly (past the gateway), each change named; erasure
still verifies; a key file others may read stops the store."""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator
from pathlib import Path

import pyoxigraph as ox
import pytest

from tests.support.poll import eventually
from tests.support.processors import EVERY
from tests.support.sparql_server import oxigraph_server
from tests.support.stack import Stack, run_cli
from tests.support.store import graph_rag, msg
from tests.support.traces import AGENT, GRAPH_RAG, loaded_and_answered
from trustgraph_base.integrity.keys import KeyFileError, make_private
from trustgraph_base.messaging import TRIPLES_STORE
from trustgraph_base.provenance import uris
from trustgraph_flow.store.processor import proc as store
from trustgraph_flow.store.sparql.client import SparqlServer, term


@pytest.fixture
async def served(pulsar_url: str, prefix: str, tmp_path: Path) -> AsyncIterator[tuple[Stack, str]]:
    with oxigraph_server() as url:
        settings = {"store": {"store_uri": url}}
        async with Stack(pulsar_url, prefix, EVERY, data_dir=tmp_path, settings=settings) as stack:
            yield stack, url


async def test_a_hand_edit_is_named_and_an_erasure_still_verifies(
    served: tuple[Stack, str], tmp_path: Path
) -> None:
    stack, url = served
    facts, capitals = await loaded_and_answered(stack.url)
    ok = await eventually(
        lambda: stack.cli("tg-verify-explain-trace", AGENT), lambda r: r.code == 0, timeout=30
    )
    assert ok.stdout.startswith("VERIFIED") and f"verified    {AGENT}" in ok.stdout
    whole = await stack.cli("tg-verify-log", "--format", "json")
    assert whole.code == 0 and json.loads(whole.stdout)["entries"] >= 3
    # In pages of two entries: the same verdict, progress shown between pages (a document
    # may be signed meanwhile: at least as many entries).
    paged = await stack.cli("tg-verify-log", "--format", "json", "--page-size", "2")
    found = json.loads(paged.stdout)
    assert paged.code == 0 and found["entries"] >= json.loads(whole.stdout)["entries"]
    assert "checked 2 of " in paged.stderr, paged.stderr

    # The documents' extraction provenance was signed when the librarian saw them complete.
    doc = uris.document_uri(facts)
    signed = await eventually(
        lambda: stack.cli("tg-verify-explain-trace", doc), lambda r: r.code == 0, timeout=30
    )
    assert f"verified    {doc}" in signed.stdout
    both = await eventually(
        lambda: stack.cli("tg-verify-explain-trace", uris.document_uri(capitals)),
        lambda r: r.code == 0,
        timeout=30,
    )
    assert both.code == 0, both.stdout

    # An audit bundle of the window, verified with no gateway (nor server, nor broker): the
    # traces, the signed provenance of the two documents they used, the manifest sealed.
    folder = str(tmp_path / "audit")
    made = await stack.cli("tg-export-audit", folder, "--since", "2026-03-01T00:00:00Z")
    assert made.code == 0 and made.stdout.startswith("wrote 3 traces, 2 documents, "), made
    offline = await run_cli(
        "tg-verify-audit", folder, "--format", "json", env={"TRUSTGRAPH_URL": "http://127.0.0.1:9/"}
    )
    report = json.loads(offline.stdout)
    assert offline.code == 0 and report["verified"], offline.stdout
    assert (report["traces"], report["documents"]) == (3, 2) and report["sealed"]
    # The export's seal is an entry of the log, which still verifies.
    after = await stack.cli("tg-verify-log", "--format", "json")
    assert after.code == 0 and json.loads(after.stdout)["verified"], after.stdout
    # A window of one trace is counted in words a reader expects: "1 trace", not "1 traces".
    one = str(tmp_path / "one")
    window = ("--since", "2026-03-01T00:00:00Z", "--until", "2026-03-01T00:00:01Z")
    made = await stack.cli("tg-export-audit", one, *window)
    assert made.code == 0 and made.stdout.startswith("wrote 1 trace, "), made
    checked = await run_cli("tg-verify-audit", one, env={"TRUSTGRAPH_URL": "http://127.0.0.1:9/"})
    assert checked.code == 0, checked
    assert checked.stdout.startswith("VERIFIED: 1 trace (1 counting sub-traces), 2 documents, "), (
        checked.stdout
    )
    assert " in 1 chain, " in checked.stdout, checked.stdout

    # Past the gateway: one literal of the agent's conclusion rewritten on the SPARQL server.
    final = ox.NamedNode(uris.agent_final_uri(AGENT))
    server = SparqlServer(url)
    try:
        [row] = server.rows(
            f"SELECT ?g ?p ?o WHERE {{ GRAPH ?g {{ {term(final)} ?p ?o FILTER(isLiteral(?o)) }} }} LIMIT 1"
        )
        g, p, o = (row[k] for k in ("g", "p", "o"))
        server.update(
            f"DELETE DATA {{ GRAPH {term(g)} {{ {term(final)} {term(p)} {term(o)} }} }};"
            f'INSERT DATA {{ GRAPH {term(g)} {{ {term(final)} {term(p)} "edited by hand" }} }}'
        )
    finally:
        server.close()
    bad = await stack.cli("tg-verify-explain-trace", AGENT)
    assert bad.code == 1 and bad.stdout.startswith("NOT VERIFIED: 1 problem\n")
    assert f"! changed: {AGENT}: <{final.value}> was changed since it was signed" in bad.stdout

    # Erasing a document marks the traces that used it: signed again, the log verifies.
    removed = await stack.cli("tg-remove-document", facts)
    assert removed.code == 0, removed.stderr
    gone_doc = await stack.cli("tg-verify-explain-trace", doc)
    assert gone_doc.code == 0
    assert gone_doc.stdout.startswith("ERASED (the log verifies): document removed")
    after = await stack.cli("tg-verify-log")
    assert after.code == 0 and after.stdout.startswith("VERIFIED"), after.stdout
    assert "erased entr" in after.stdout and "(1 document);" in after.stdout, after.stdout
    gone = await stack.cli("tg-delete-explain-trace", GRAPH_RAG)
    assert gone.code == 0, gone.stderr
    erased = await stack.cli("tg-verify-explain-trace", GRAPH_RAG)
    assert erased.code == 0 and erased.stdout.startswith(
        "ERASED (the log verifies): delete-trace request"
    )
    shown = await stack.cli("tg-verify-log", "--format", "json")
    report = json.loads(shown.stdout)
    # The trace's two entries (signed when it ended, again with the erasure's marks) and the
    # removed document's: one per time it was signed (again for each batch of its provenance
    # that came after the librarian's request to sign it: 1-3 here, by timing).
    assert shown.code == 0 and report["verified"] and report["erased"] >= 3, report
    assert report["erased_kinds"]["document"] == 1 and report["erased_kinds"]["trace"] >= 1
    # An audit bundle of it says the same, in the same words ('5 erased' before: entries)
    erasures = str(tmp_path / "erasures")
    made = await stack.cli("tg-export-audit", erasures, "--since", "2026-03-01T00:00:00Z")
    assert made.code == 0, made
    nowhere = {"TRUSTGRAPH_URL": "http://127.0.0.1:9/"}
    checked = await run_cli("tg-verify-audit", erasures, "--format", "json", env=nowhere)
    bundled = json.loads(checked.stdout)
    assert (bundled["erased"], bundled["erased_kinds"]) == (
        report["erased"],
        report["erased_kinds"],
    ), bundled
    text = await run_cli("tg-verify-audit", erasures, env=nowhere)
    entries = f"{report['erased']} erased entries"
    kinds = f"({report['erased_kinds']['document']} document, "
    assert f"{entries} {kinds}" in text.stdout, text.stdout
    assert capitals


async def test_an_empty_log_says_so_not_only_verified(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    """A collection with nothing signed (a mistyped -C, say) is named as empty: a bare
    'VERIFIED: 0 entries' reads as if the user's traces had been checked."""
    async with Stack(pulsar_url, prefix, [store], data_dir=tmp_path) as stack:
        shown = await stack.cli("tg-verify-log", "-C", "nothing-here")
        exported = await stack.cli("tg-export-audit", str(tmp_path / "audit"), "-C", "nothing-here")
    assert (exported.code, exported.stdout, exported.stderr) == (
        1,
        "",
        "Error: nothing to export: there is no collection 'nothing-here' of user 'trustgraph' "
        "(tg-list-collections lists them).\n",
    )
    assert not (tmp_path / "audit").exists()
    assert shown.code == 0, shown.stderr
    assert shown.stdout.startswith("VERIFIED: 0 entries in 0 chains"), shown.stdout
    empty = "nothing to verify: the log of collection 'nothing-here' of user 'trustgraph' is empty"
    assert empty in shown.stdout, shown.stdout


async def test_a_key_others_may_read_stops_the_store(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    key = tmp_path / "store" / "signing" / "key.pem"
    async with Stack(pulsar_url, prefix, [store], data_dir=tmp_path):
        pass  # the first start made the key
    assert key.stat().st_mode & 0o777 == 0o600
    os.chmod(key, 0o640)
    with pytest.raises(KeyFileError, match=r"mode 0640: others may read it. Run 'chmod 600"):
        async with Stack(pulsar_url, prefix, [store], data_dir=tmp_path):
            pass


async def test_a_trusted_key_that_is_not_a_key_is_one_line(tmp_path: Path) -> None:
    """tg-verify-audit --trusted-key with a binary file, a missing one: one line each."""
    binary = tmp_path / "key.pem"
    binary.write_bytes(b"\x7fELF\x02\x01\x01\x00\xd0\x00 not a key")
    folder = tmp_path / "bundle"
    folder.mkdir()
    got = await run_cli("tg-verify-audit", str(folder), "--trusted-key", str(binary))
    assert (got.code, got.stdout) == (1, "")
    assert got.stderr.splitlines() == [f"Error: {binary} is not a PEM public key (not UTF-8 text)"]
    private = tmp_path / "private.pem"  # the deployment's key.pem, not its public half
    make_private(private)
    got = await run_cli("tg-verify-audit", str(folder), "--trusted-key", str(private))
    assert (got.code, got.stderr.splitlines()) == (
        1,
        [
            f"Error: {private} is a private key: give the public one, from the deployment's "
            "signing/public/ folder (docs/audit.md, 'The key')"
        ],
    )
    missing = tmp_path / "missing.pem"
    got = await run_cli("tg-verify-audit", str(folder), "--trusted-key", str(missing))
    assert (got.code, got.stdout) == (1, "")
    assert got.stderr.splitlines() == [
        f"Error: cannot read the key '{missing}': No such file or directory."
    ]


async def test_a_window_that_ends_before_it_starts_is_refused(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    """--since after --until (the dates swapped) is the user's mistake, said in one line: not
    an empty bundle, nor 'No verified answers', that read as if nothing happened then."""
    window = ("--since", "2026-12-07T00:00:00Z", "--until", "2026-12-01T00:00:00Z")
    async with Stack(pulsar_url, prefix, [store], data_dir=tmp_path) as stack:
        await stack.publish(TRIPLES_STORE, msg(graph_rag("w1", 1), user="trustgraph"))
        await eventually(
            lambda: stack.cli("tg-list-explain-traces"), lambda r: "w1" in r.stdout, timeout=30
        )
        made = await stack.cli("tg-export-audit", str(tmp_path / "audit"), *window)
        shown = await stack.cli("tg-show-faithfulness", *window)
        listed = await stack.cli("tg-list-explain-traces", *window)
        # The same flags narrow the list (w1 started 2026-01-01T00:00:01Z).
        inside = ("--since", "2026-01-01T00:00:00Z", "--until", "2026-01-01T00:00:02Z")
        kept = await stack.cli("tg-list-explain-traces", *inside, "--format", "csv")
        later = await stack.cli("tg-list-explain-traces", "--since", "2026-01-01T00:00:02Z")
    assert kept.code == 0 and kept.stdout.splitlines()[1].startswith("w1,"), kept
    assert later.stdout == "No traces in collection 'default' of user 'trustgraph'.\n", later
    said = (
        "Error: since '2026-12-07T00:00:00Z' is after until '2026-12-01T00:00:00Z': "
        "the window holds no time [bad-request]"
    )
    for got in (made, shown, listed):
        assert (got.code, got.stdout, got.stderr.splitlines()) == (1, "", [said]), got
    assert not (tmp_path / "audit").exists()
