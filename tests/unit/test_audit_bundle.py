"""Audit bundles made from a real store (on disk, or the test's SPARQL server) and verified
offline: a good one verifies, each kind of damage is named."""

from __future__ import annotations

import json
from pathlib import Path

import pyoxigraph as ox
import pytest

from tests.support.sparql_server import store_backend
from tests.support.stack import run_cli
from tests.support.store import (
    DOC,
    EDGE_FOX,
    TIME,
    agent,
    document,
    graph_rag,
    handle_of,
    labels,
    msg,
    paged_document,
)
from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.integrity import bundle
from trustgraph_base.integrity.audit import verify_bundle
from trustgraph_base.integrity.keys import Keyring, open_keyring
from trustgraph_base.rdf.terms import Triple
from trustgraph_base.schema.explain import ExplainRequest
from trustgraph_flow.store.core.backend import Handle
from trustgraph_flow.store.governance.attest import export_document, seal_bundle
from trustgraph_flow.store.governance.documents import document_groups, seal_document
from trustgraph_flow.store.governance.seal import Seal, open_seal
from trustgraph_flow.store.governance.verify import audit_log
from trustgraph_flow.store.service.operations import explain_op
from trustgraph_flow.store.service.state import checked
from trustgraph_flow.store.service.writer import write_batch
from trustgraph_flow.store.views.export import export_trace


@pytest.fixture
def made(tmp_path: Path) -> Path:
    """A bundle of three traces (one agent with a sub-trace) and the document they used,
    from a store that signed them, its manifest sealed by the store."""
    seal = open_seal(
        data_dir=str(tmp_path / "data"), key_file="", public_dir="", chain="", server=False
    )
    stores = store_backend(tmp_path / "store")
    facts = [Triple(s=EDGE_FOX[0], p=EDGE_FOX[1], o=EDGE_FOX[2])]
    write_batch(stores, [msg(document() + labels() + facts, "doc")], seal)
    write_batch(
        stores,
        [msg(agent("a1", 3, "g-sub")), msg(graph_rag("g1", 1)), msg(graph_rag("g2", 2))],
        seal,
    )
    h = handle_of(stores)
    assert seal_document(h, seal, DOC) is not None
    ids = ["urn:trustgraph:agent:a1", "urn:trustgraph:question:g1", "urn:trustgraph:question:g2"]
    traces = {t: export_trace(h, t, "trig")[0] for t in ids}
    return _bundle(tmp_path / "bundle", h, seal, traces, {DOC: export_document(h, DOC)[0]})


def _bundle(
    folder: Path, h: Handle, seal: Seal, traces: dict[str, str], documents: dict[str, str]
) -> Path:
    """The bundle of ``traces`` and ``documents`` (their TriG) with the collection's log and
    keys, written to ``folder`` and its manifest sealed by the store."""
    log = json.loads(audit_log(h, seal))
    contents = bundle.Contents(
        user="alice",
        collection="default",
        since=None,
        until=None,
        made_at="2026-12-04T21:00:00Z",
        traces=traces,
        keys=log.pop("keys"),
        log=log,
        documents=documents,
    )
    files = bundle.build(contents)
    bundle.write(folder, files, seal_bundle(h, seal, bundle.manifest_digest(files), "test"))
    return folder


@pytest.mark.parametrize("name", ["x" * 4000, "\U0001f600" * 1000], ids=["ascii", "emoji"])
def test_a_document_whose_provenance_is_over_a_reply_is_exported_in_pages(
    tmp_path: Path, name: str
) -> None:
    """A new user's 3 MB text (3,809 chunks) had 6.7 MB of extraction provenance: explain
    export-document answered result-too-large, so tg-export-audit could make no bundle of a
    collection whose answers used it. Asked with a cursor, it comes in pages that each fit a
    reply, and the pages joined are the quads the document's log entry signs, verified in a
    bundle. (A 4,000-byte id makes 4.5 MB of provenance from 200 chunks.) Pages are cut by
    the bytes a reply carries: in an emoji id's 1,000 characters (4,000 bytes), pages cut at
    2 Mi characters held all 4.5 MB in one, refused as too large."""
    seal = open_seal(
        data_dir=str(tmp_path / "data"), key_file="", public_dir="", chain="", server=False
    )
    stores = store_backend(tmp_path / "store")
    big = "urn:trustgraph:doc:" + name
    layout = {page: [(i, [EDGE_FOX]) for i in range(10)] for page in range(1, 21)}
    write_batch(stores, [msg(paged_document(big, "Big", layout, TIME.format(0)), "doc")], seal)
    h = handle_of(stores)
    assert seal_document(h, seal, big) is not None

    def ask(cursor: str | None) -> str | None:
        req = ExplainRequest(
            operation="export-document", id=big, user="alice", collection="default", cursor=cursor
        )
        resp = checked(explain_op(stores, req, seal))
        pages.append(resp.export)
        return resp.cursor

    pages: list[str] = []
    with pytest.raises(ServiceError) as whole:  # all at once: over what a reply carries
        ask(None)
    assert whole.value.type == ErrorType.RESULT_TOO_LARGE
    cursor = ask("")
    while cursor:
        cursor = ask(cursor)
    assert len(pages) == 3  # 2 MiB of TriG a page
    joined = "".join(pages)
    quads = list(ox.parse(joined.encode(), format=ox.RdfFormat.TRIG))
    assert len(quads) == len(set(quads))  # no subject sent twice
    assert set(quads) == {q for group in document_groups(h, big) for q in group}

    report = verify_bundle(_bundle(tmp_path / "bundle", h, seal, {}, {big: joined}))
    assert report.verified, report.problems
    assert report.documents == 1


def codes(folder: Path, trusted: Keyring | None = None) -> list[str]:
    return [p.code for p in verify_bundle(folder, trusted.public if trusted else None).problems]


def relist(folder: Path, name: str) -> None:
    """Rewrite the manifest's line for ``name`` so that only what is inside the file is judged."""
    manifest = json.loads((folder / bundle.MANIFEST).read_text())
    data = (folder / name).read_bytes()
    manifest["files"][name] = {"sha256": bundle.sha256(data), "bytes": len(data)}
    (folder / bundle.MANIFEST).write_text(json.dumps(manifest))


def test_a_bundle_verifies_offline(made: Path) -> None:
    report = verify_bundle(made)
    assert report.verified, report.problems
    assert (report.traces, report.roots, report.documents) == (3, 4, 1)
    assert (report.entries, report.chains) == (5, 1)  # four trace roots, the document
    assert report.sealed.startswith("local#5, key ed25519:")  # the export's own entry


def test_a_rewritten_manifest_or_a_missing_seal_is_named(made: Path) -> None:
    # A trace file removed with its manifest lines: the files agree, the seal does not.
    manifest = json.loads((made / bundle.MANIFEST).read_text())
    gone = "traces/00002.trig"
    del manifest["files"][gone], manifest["traces"][gone]
    (made / gone).unlink()
    (made / bundle.MANIFEST).write_text(json.dumps(manifest))
    found = verify_bundle(made).problems
    assert [p.code for p in found] == ["seal"]
    assert "manifest.json is not the manifest signed in seal.json (local#5)" in found[0].message
    (made / bundle.SEAL).unlink()
    assert codes(made) == ["seal"]


def test_an_edited_or_left_out_document_is_named(made: Path) -> None:
    name = next(n for n in json.loads((made / bundle.MANIFEST).read_text())["documents"])
    path = made / name
    path.write_text(path.read_text().replace("Sample PDF", "Another PDF"))
    relist(made, name)
    found = verify_bundle(made).problems
    assert [p.code for p in found] == ["seal", "digest"]
    assert found[1].message.startswith(f"{DOC} (in {name}): its extraction provenance is not")
    manifest = json.loads((made / bundle.MANIFEST).read_text())
    del manifest["files"][name], manifest["documents"][name]
    path.unlink()
    (made / bundle.MANIFEST).write_text(json.dumps(manifest))
    found = verify_bundle(made).problems
    assert [p.code for p in found] == ["seal", "missing"]
    assert found[1].message.startswith(f"{DOC} is used by the bundle's traces and signed")


def test_a_truncated_and_an_extra_file_are_named(made: Path) -> None:
    trace = made / "traces" / "00001.trig"
    trace.write_bytes(trace.read_bytes()[:-200])
    (made / "traces" / "00009.trig").write_text("")
    found = verify_bundle(made).problems
    assert [p.code for p in found][:2] == ["truncated", "extra"]
    assert found[0].message.startswith("traces/00001.trig is truncated")
    assert (
        found[1].message == "traces/00009.trig is not listed in the manifest: added to the bundle"
    )


def test_a_trace_edited_shorter_is_not_called_only_cut_off(made: Path) -> None:
    # TriG, unlike JSON, may parse whole when cut: a shorter file is either, and said so
    trace = made / "traces" / "00001.trig"
    trace.write_text(trace.read_text().replace("It jumps over the dog.", "It jumps."))
    found = verify_bundle(made).problems
    assert [p.code for p in found] == ["truncated", "digest"]
    assert found[0].message.startswith("traces/00001.trig is truncated (or edited shorter): ")


def test_an_edited_trace_is_named_even_under_a_rewritten_manifest(made: Path) -> None:
    trace = made / "traces" / "00001.trig"
    trace.write_text(
        trace.read_text().replace("It jumps over the dog.", "It sleeps all afternoon in the sun.")
    )
    assert codes(made) == ["changed", "digest"]
    relist(made, "traces/00001.trig")
    assert codes(made) == ["seal", "digest"]  # the manifest rewritten: no longer the signed one


def test_the_wrong_key_is_named(made: Path, tmp_path: Path) -> None:
    other = open_keyring(tmp_path / "other.pem", tmp_path / "other")
    found = verify_bundle(made, other.public).problems
    assert {p.code for p in found} == {"signature", "checkpoint"}  # the seal's too
    assert "which is not among the trusted keys" in found[0].message
    # each entry once: the traces' and the document's entries were checked again after the
    # chain check (each named two or three times); now the chain check alone checks them
    messages = [p.message for p in found]
    entries = len(json.loads((made / bundle.LOG).read_text())["chains"]["local"])
    assert len(messages) == len(set(messages)) == entries + 2  # + the seal's, the checkpoint


async def test_a_bundle_without_its_keys_says_so_once_an_entry(made: Path) -> None:
    """tg-verify-audit on a bundle whose key file was removed: the header said 'checked with
    the bundle's own keys ' and nothing, and each trace's entry was named twice."""
    for key in (made / bundle.KEYS).iterdir():
        key.unlink()
    got = await run_cli("tg-verify-audit", str(made))
    assert got.code == 1, got.stderr
    head, *lines = got.stdout.splitlines()
    assert head.endswith("signatures checked with no keys: the bundle holds none"), head
    problems = [line for line in lines if line.startswith("  ! ")]
    assert problems[0].startswith("  ! missing: keys/") and len(problems) == len(set(problems))
    entries = len(json.loads((made / bundle.LOG).read_text())["chains"]["local"])
    assert sum("not among the trusted keys" in line for line in problems) == entries + 2


def test_a_signature_over_another_trace_and_a_log_gap_are_named(made: Path) -> None:
    log = json.loads((made / bundle.LOG).read_text())
    entries = log["chains"]["local"]
    entries[1]["record"]["sig"], entries[2]["record"]["sig"] = (
        entries[2]["record"]["sig"],
        entries[1]["record"]["sig"],
    )
    (made / bundle.LOG).write_text(json.dumps(log))
    relist(made, bundle.LOG)
    assert set(codes(made)) == {"seal", "moved"}
    del entries[1]
    (made / bundle.LOG).write_text(json.dumps(log))
    relist(made, bundle.LOG)
    found = codes(made)
    assert "gap" in found and "unsigned" in found


def test_a_log_rewritten_shorter_is_called_changed_and_one_cut_short_truncated(made: Path) -> None:
    log = json.loads((made / bundle.LOG).read_text())
    del log["chains"]["local"][1]
    (made / bundle.LOG).write_text(json.dumps(log))  # valid JSON, shorter: not cut off
    found = verify_bundle(made).problems
    assert found[0].code == "changed"
    assert found[0].message.startswith(f"{bundle.LOG} does not match the manifest: ")
    assert "rewritten shorter (parts removed), not cut off" in found[0].message
    assert "truncated" not in [p.code for p in found]
    (made / bundle.LOG).write_text(json.dumps(log)[:-40])  # cut: its brackets stay open
    assert verify_bundle(made).problems[0].code == "truncated"
