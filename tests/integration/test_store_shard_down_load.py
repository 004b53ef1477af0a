"""A document loaded while the shard its collection is on is down: the load completes (the
pipeline does not need the store) but its graph is held for that shard, so
``tg-load-document`` and ``tg-list-documents`` say so, naming the shard, instead of a plain
"complete" that leaves the user asking and finding nothing; once the shard is back and its
writes are in, the document is complete, said plainly, and its graph is found. Three
``oxigraph serve`` of its own (shard c down from the start), on either suite mode."""

from __future__ import annotations

import functools
import json
import re
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from tests.integration.test_store_shards import placed
from tests.support.poll import eventually
from tests.support.processors import INGEST, SAMPLES
from tests.support.sparql_server import oxigraph_server
from tests.support.stack import Stack
from tests.support.store import msg, plain_document
from trustgraph_base.messaging import INGEST_EVENTS, TRIPLES_STORE, free_port
from trustgraph_base.provenance.uris import chunk_uri, document_uri
from trustgraph_base.schema import IngestEvent, Metadata
from trustgraph_flow.librarian.processor import proc as librarian
from trustgraph_flow.store.backends.sharded.opening import open_sharded
from trustgraph_flow.store.processor import proc as store
from trustgraph_flow.store.service import intake

TEXT = SAMPLES / "capitals.txt"


@pytest.mark.timeout(120)
async def test_a_load_into_a_down_shard_says_it_is_held_until_it_is_written(
    pulsar_url: str, prefix: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(intake, "SERVER_WAIT_MAX", 0.5)  # c is probed often: back sooner
    (on_c,) = placed("c", 1)
    port, location = free_port(), tmp_path / "shard-c"
    with ExitStack() as servers:
        a, b = (servers.enter_context(oxigraph_server()) for _ in "ab")
        with oxigraph_server(location, port=port) as c:
            spec = f"a={a} b={b} c={c}"
            seeded = open_sharded(spec, 10)  # the shards registered, the collection placed
            seeded.row("alice", on_c, create=True)  # on c (it answers); then c goes down
            seeded.close()
        settings: dict[str, dict[str, Any]] = {
            "store": {"store_uri": spec, "shard_wait": 0.5},
            # never retried here: the store's word that c's held writes are in signs it
            "librarian": {"seal_retry_seconds": 600},
        }
        async with Stack(
            pulsar_url, prefix, INGEST, data_dir=tmp_path / "stack", settings=settings
        ) as stack:
            scope = ("-U", "alice", "-C", on_c)
            loaded = await stack.cli("tg-load-document", *scope, str(SAMPLES / "capitals.txt"))
            assert loaded.code == 0, loaded
            doc = loaded.stdout.splitlines()[-1]
            # Why, as the store told the librarian: its writes waiting in c's queue, or (none
            # waiting, all sent before) c unreachable.
            held = re.compile(
                rf"(\d+ of its writes are held for shard 'c', not written yet|shard 'c' is "
                rf"unreachable: SPARQL server {re.escape(c)} unreachable: [^.]*)"
            )
            (warning,) = [ln for ln in loaded.stderr.splitlines() if ln.startswith("Warning:")]
            said = (
                f"Warning: {re.escape(doc)} is complete, but the store has not confirmed its "
                f"graph yet: {held.pattern}. "
            )
            said += "Nothing is lost: the store writes it when it can"
            assert re.match(said, warning), warning

            table = await stack.cli("tg-list-documents", *scope)
            (line,) = table.stderr.splitlines()  # the same (its count may have grown)
            assert table.code == 0 and re.match(said, line), table
            (status,) = [ln for ln in table.stdout.splitlines() if ln.startswith(doc)]
            assert " complete, held " in status, table

            async def listed() -> dict[str, object]:
                out = await stack.cli("tg-list-documents", *scope, "--format", "json")
                assert (out.code, out.stderr) == (0, ""), out
                (row,) = json.loads(out.stdout)
                return dict(row)

            with oxigraph_server(location, port=port):  # c is back: written, then signed
                row = await eventually(listed, lambda r: r["held"] is None, 30)
                assert row["status"] == "complete"
                found = await stack.cli("tg-query-triples", *scope, "--format", "json")
                assert found.code == 0 and json.loads(found.stdout), found


@pytest.mark.timeout(120)
async def test_a_seal_refused_with_nothing_held_is_signed_when_the_shard_is_back(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    """The document's graph was all written before its shard went down, and only then was it
    complete and its seal asked: the store refused it (the shard is down) with nothing of the
    collection held, so no held queue drains to say the shard is back, and the document was
    signed only at the librarian's next try (30 s; 600 here). The store now probes that
    shard and says held-written when it answers. The store and librarian alone: the pipeline's
    graph and progress are sent as its processors send them."""
    (on_c,) = placed("c", 1)
    port, location = free_port(), tmp_path / "shard-c"
    with ExitStack() as servers:
        a, b = (servers.enter_context(oxigraph_server()) for _ in "ab")
        shard_c = ExitStack()
        c = shard_c.enter_context(oxigraph_server(location, port=port))
        spec = f"a={a} b={b} c={c}"
        seeded = open_sharded(spec, 10)
        seeded.row("alice", on_c, create=True)  # on c, which answers for now
        seeded.close()
        settings: dict[str, dict[str, Any]] = {
            "store": {"store_uri": spec, "shard_wait": 0.5, "sparql_timeout": 5},
            "librarian": {"seal_retry_seconds": 600},  # never retried here
        }
        async with Stack(
            pulsar_url, prefix, [store, librarian], data_dir=tmp_path / "stack", settings=settings
        ) as stack:
            scope = ("-U", "alice", "-C", on_c)
            # Uploaded, its processing asked for (no decoder here: it waits for the events)
            loaded = await stack.cli("tg-load-document", *scope, "--no-wait", str(TEXT))
            assert loaded.code == 0, loaded
            doc = loaded.stdout.splitlines()[-1]
            await stack.publish(
                TRIPLES_STORE, msg(plain_document(document_uri(doc)), collection=on_c)
            )
            shown = functools.partial(stack.cli, "tg-show-document-hierarchy", doc, *scope)
            await eventually(shown, lambda r: r.code == 0, 30)  # its graph is all in, on c
            shard_c.close()  # c goes down; nothing of the collection is held for it

            meta = Metadata(id=doc, user="alice", collection=on_c)
            chunks = [chunk_uri(document_uri(doc), i) for i in (0, 1)]
            for event in (
                IngestEvent(metadata=meta, document=doc, stage="decoded"),
                IngestEvent(metadata=meta, document=doc, stage="chunked", chunks=2),
                *(
                    IngestEvent(metadata=meta, document=doc, stage="extracted", source=chunk)
                    for chunk in chunks
                ),
            ):
                await stack.publish(INGEST_EVENTS, event)

            async def listed() -> dict[str, object]:
                out = await stack.cli("tg-list-documents", *scope, "--format", "json")
                assert out.code == 0, out
                (row,) = json.loads(out.stdout)
                return dict(row)

            row = await eventually(
                listed, lambda r: r["status"] == "complete" and bool(r["held"]), 30
            )
            assert str(row["held"]).startswith(f"shard 'c' is unreachable: SPARQL server {c}")
            with oxigraph_server(location, port=port):  # c is back: signed within seconds
                row = await eventually(listed, lambda r: r["held"] is None, 30)
                verified = await stack.cli("tg-verify-explain-trace", doc, *scope)
                assert verified.code == 0 and f"verified    {doc}" in verified.stdout, verified
