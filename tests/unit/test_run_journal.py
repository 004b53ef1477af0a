"""The run journal: which runs a dead process left open (its restart marks them interrupted)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from trustgraph_flow import run_journal
from trustgraph_flow.run_journal import RunJournal

A, B = "urn:trustgraph:agent:a", "urn:trustgraph:agent:b"


def test_a_run_that_ended_is_not_left_and_one_that_did_not_is(tmp_path: Path) -> None:
    book = RunJournal(tmp_path)
    book.open(A, "alice", "atlas")
    book.open(B, "bob", "default")
    book.close(A)
    # a new process (the old one was killed) reads what the old one wrote
    assert RunJournal(tmp_path).left() == [{"uri": B, "user": "bob", "collection": "default"}]


def test_a_marked_run_is_not_left_again(tmp_path: Path) -> None:
    RunJournal(tmp_path).open(A, "alice", "atlas")
    again = RunJournal(tmp_path)
    (entry,) = again.left()
    again.forget(entry["uri"])
    assert RunJournal(tmp_path).left() == []


def test_a_line_cut_short_as_the_process_died_is_skipped(tmp_path: Path) -> None:
    book = RunJournal(tmp_path)
    book.open(A, "alice", "atlas")
    with open(tmp_path / run_journal.LOG_NAME, "ab") as fh:
        fh.write(b'{"open": "urn:trustgraph:agent:b", "us')
    assert [e["uri"] for e in RunJournal(tmp_path).left()] == [A]


def test_a_run_file_of_the_older_journal_is_still_found_and_removed_once_marked(
    tmp_path: Path,
) -> None:
    old = tmp_path / (hashlib.sha256(A.encode()).hexdigest()[:32] + ".json")
    old.write_text(json.dumps({"uri": A, "user": "alice", "collection": "atlas"}))
    book = RunJournal(tmp_path)
    assert book.left() == [{"uri": A, "user": "alice", "collection": "atlas"}]
    book.forget(A)
    assert not old.exists() and RunJournal(tmp_path).left() == []


def test_the_log_starts_again_once_every_run_in_it_has_ended(tmp_path: Path) -> None:
    book = RunJournal(tmp_path)
    log = tmp_path / run_journal.LOG_NAME
    for i in range(200):
        book.open(f"{A}{i}", "alice", "atlas")
        book.close(f"{A}{i}")
    grown = log.stat().st_size
    book.open(B, "bob", "default")
    book.compact()  # a run is open: kept
    assert log.stat().st_size > grown
    book.close(B)
    book.compact()
    assert log.stat().st_size == 0
    book.open(A, "alice", "atlas")  # written after the truncation, at the start of the file
    assert RunJournal(tmp_path).left() == [{"uri": A, "user": "alice", "collection": "atlas"}]
