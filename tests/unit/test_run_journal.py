"""The run journal: which runs a dead process left (and their trace messages the broker may
not have had): its restart sends those again and marks the runs that had not ended."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from trustgraph_flow import run_journal
from trustgraph_flow.run_journal import RunJournal

A, B = "urn:trustgraph:agent:a", "urn:trustgraph:agent:b"
MSG1 = (
    b'{"metadata":{"id":"urn:trustgraph:agent:a","user":"alice","collection":"atlas"},"triples":[]}'
)
MSG2 = b'{"metadata":{"id":"urn:trustgraph:agent:a/i1","user":"alice","collection":"atlas"},"triples":[]}'


def left(folder: Path) -> list[tuple[str, bool, list[bytes]]]:
    """What a new process (the old one was killed) reads of what the old one wrote."""
    return [(run.uri, run.ended, run.messages) for run in RunJournal(folder).left()]


def test_a_run_that_is_done_is_not_left_and_one_that_did_not_end_is(tmp_path: Path) -> None:
    book = RunJournal(tmp_path)
    a = book.open(A, "alice", "atlas")
    b = book.open(B, "bob", "default")
    book.end(a)
    book.done(a)
    (run,) = RunJournal(tmp_path).left()
    assert (run.uri, run.user, run.collection, run.ended, run.key) == (
        B,
        "bob",
        "default",
        False,
        b,
    )


def test_the_messages_of_a_run_not_done_are_left_in_order_and_whether_it_ended(
    tmp_path: Path,
) -> None:
    book = RunJournal(tmp_path)
    a = book.open(A, "alice", "atlas")
    book.record(a, MSG1)
    book.record(a, MSG2)
    book.end(a)  # answered; the broker's receipts had not all come
    assert [(u, e, [json.loads(m) for m in ms]) for u, e, ms in left(tmp_path)] == [
        (A, True, [json.loads(MSG1), json.loads(MSG2)])
    ]
    assert book.messages(a) == [MSG1, MSG2]  # what the process sends again if one is refused


def test_a_marked_run_is_not_left_again(tmp_path: Path) -> None:
    RunJournal(tmp_path).open(A, "alice", "atlas")
    again = RunJournal(tmp_path)
    (run,) = again.left()
    again.forget(run.key)
    assert RunJournal(tmp_path).left() == []


def test_a_line_cut_short_as_the_process_died_is_skipped(tmp_path: Path) -> None:
    book = RunJournal(tmp_path)
    a = book.open(A, "alice", "atlas")
    book.record(a, MSG1)
    with open(tmp_path / run_journal.LOG_NAME, "ab") as fh:
        fh.write(b'{"msg": "' + a.encode() + b'", "data": {"metadata": {"id": "urn:tru')
    assert [(u, len(ms)) for u, _, ms in left(tmp_path)] == [(A, 1)]


def test_the_lines_of_the_journal_before_messages_were_kept_are_still_read(
    tmp_path: Path,
) -> None:
    """A journal written by the version before: runs named by URI, closed by URI."""
    lines = [
        {"open": A, "user": "alice", "collection": "atlas"},
        {"open": B, "user": "bob", "collection": "default"},
        {"close": A},
    ]
    (tmp_path / run_journal.LOG_NAME).write_text("".join(json.dumps(e) + "\n" for e in lines))
    assert left(tmp_path) == [(B, False, [])]


def test_a_run_file_of_the_older_journal_is_still_found_and_removed_once_marked(
    tmp_path: Path,
) -> None:
    old = tmp_path / (hashlib.sha256(A.encode()).hexdigest()[:32] + ".json")
    old.write_text(json.dumps({"uri": A, "user": "alice", "collection": "atlas"}))
    book = RunJournal(tmp_path)
    (run,) = book.left()
    assert (run.uri, run.user, run.collection) == (A, "alice", "atlas")
    book.forget(run.key)
    assert not old.exists() and RunJournal(tmp_path).left() == []


def test_compacting_keeps_exactly_the_runs_not_done_with_their_messages(tmp_path: Path) -> None:
    book = RunJournal(tmp_path)
    log = tmp_path / run_journal.LOG_NAME
    for i in range(200):
        run = book.open(f"{A}{i}", "alice", "atlas")
        book.record(run, MSG1)
        book.end(run)
        book.done(run)
    b = book.open(B, "bob", "default")
    book.record(b, MSG2)
    ended = book.open(A, "alice", "atlas")
    book.record(ended, MSG1)
    book.end(ended)  # ended, its receipts not all in
    grown = log.stat().st_size
    book.compact()
    assert log.stat().st_size < grown / 50  # the 200 runs done are gone
    assert left(tmp_path) == [(B, False, [MSG2]), (A, True, [MSG1])]
    book.end(b)  # appended to the new log
    book.done(b)
    assert left(tmp_path) == [(A, True, [MSG1])]


def test_a_process_never_without_an_open_run_still_keeps_its_log_small(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(run_journal, "COMPACT_BYTES", 4096)
    book = RunJournal(tmp_path)
    book.open(B, "bob", "default")  # open throughout
    for i in range(500):
        run = book.open(f"{A}{i}", "alice", "atlas")
        book.record(run, MSG1)
        book.end(run)
        book.done(run)
    assert (tmp_path / run_journal.LOG_NAME).stat().st_size <= 4096 + 400
    assert left(tmp_path) == [(B, False, [])]


def test_one_id_run_twice_at_once_is_two_runs(tmp_path: Path) -> None:
    book = RunJournal(tmp_path)
    first = book.open(A, "alice", "atlas")
    second = book.open(A, "alice", "atlas")
    book.record(second, MSG2)
    book.end(first)
    book.done(first)
    assert left(tmp_path) == [(A, False, [MSG2])]
    book.end(second)
    book.done(second)
    assert RunJournal(tmp_path).left() == []


def test_the_keys_of_a_new_process_are_not_its_predecessors(tmp_path: Path) -> None:
    old = RunJournal(tmp_path).open(A, "alice", "atlas")
    new = RunJournal(tmp_path)
    assert new.open(B, "bob", "default") != old
    assert {run.uri for run in RunJournal(tmp_path).left()} == {A, B}


def test_a_run_keeps_its_request_so_a_rerun_can_claim_it(tmp_path: Path) -> None:
    book = RunJournal(tmp_path)
    key = book.open(A, "alice", "atlas", rid="r1", until=2e9, started="2026-01-02T03:04:05Z")
    book.record(key, MSG1)
    (run,) = RunJournal(tmp_path).left()  # what the next process reads
    assert (run.rid, run.until, run.started, run.messages) == (
        "r1",
        2e9,
        "2026-01-02T03:04:05Z",
        [MSG1],
    )
    successor = RunJournal(tmp_path)
    successor.adopt(run)
    successor.compact()  # an adopted run is kept in the log until it is done
    assert [r.key for r in RunJournal(tmp_path).left()] == [key]
    assert successor.claim("other") is None
    assert successor.claim("r1") is run and successor.claim("r1") is None
    successor.record(key, MSG2)  # the rerun goes on under the run's own key
    successor.end(key)
    successor.done(key)
    assert RunJournal(tmp_path).left() == []
