"""The run journal: which runs a dead process left open (its restart marks them interrupted)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

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


def test_compacting_keeps_exactly_the_runs_still_open(tmp_path: Path) -> None:
    book = RunJournal(tmp_path)
    log = tmp_path / run_journal.LOG_NAME
    for i in range(200):
        book.open(f"{A}{i}", "alice", "atlas")
        book.close(f"{A}{i}")
    book.open(B, "bob", "default")
    grown = log.stat().st_size
    book.compact()
    assert log.stat().st_size < grown / 100  # the 200 ended runs are gone
    assert RunJournal(tmp_path).left() == [{"uri": B, "user": "bob", "collection": "default"}]
    book.open(A, "alice", "atlas")  # appended to the new log
    book.close(B)
    assert RunJournal(tmp_path).left() == [{"uri": A, "user": "alice", "collection": "atlas"}]


def test_a_process_never_without_an_open_run_still_keeps_its_log_small(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(run_journal, "COMPACT_BYTES", 4096)
    book = RunJournal(tmp_path)
    book.open(B, "bob", "default")  # open throughout
    for i in range(500):
        book.open(f"{A}{i}", "alice", "atlas")
        book.close(f"{A}{i}")
    assert (tmp_path / run_journal.LOG_NAME).stat().st_size <= 4096 + 200
    assert RunJournal(tmp_path).left() == [{"uri": B, "user": "bob", "collection": "default"}]


def test_one_id_run_twice_at_once_stays_open_until_both_end(tmp_path: Path) -> None:
    book = RunJournal(tmp_path)
    book.open(A, "alice", "atlas")
    book.open(A, "alice", "atlas")
    book.close(A)
    assert [e["uri"] for e in RunJournal(tmp_path).left()] == [A]
    book.close(A)
    assert RunJournal(tmp_path).left() == []
