"""The answered-requests log: ids kept on disk until their callers' deadlines."""

from __future__ import annotations

import time
from pathlib import Path

from trustgraph_base.messaging.answered import AnsweredLog


def test_an_answered_id_survives_the_process_until_its_deadline(tmp_path: Path) -> None:
    path = tmp_path / "answered" / "graph-rag.graph-rag.log"
    log = AnsweredLog(path)
    log.add("r1", time.time() + 60)
    log.add("gone", time.time() - 1)  # its caller stopped waiting already
    log.add("old-caller", None)  # no deadline: kept for KEEP_S
    with path.open("ab") as f:
        f.write(b'{"id": "r2", "unt')  # half-written as the process was killed
    later = AnsweredLog(path)  # the next process
    assert "r1" in later and "old-caller" in later
    assert "gone" not in later and "r2" not in later and "never" not in later
    assert b"gone" not in path.read_bytes()  # rewritten at start with only the ids kept


def test_the_log_is_compacted_as_it_grows(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from trustgraph_base.messaging import answered

    monkeypatch.setattr(answered, "COMPACT_BYTES", 200)
    path = tmp_path / "a.log"
    log = AnsweredLog(path)
    for n in range(20):
        log.add(f"old{n}", time.time() - 1)
    log.add("kept", time.time() + 60)
    assert path.stat().st_size < 200 and "kept" in AnsweredLog(path)
