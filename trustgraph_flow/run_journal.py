"""Runs in progress and their trace messages, on disk until the broker has every one of them.

A traced service (agent, GraphRAG, DocumentRAG) appends a line to its journal when it opens
a run's trace, one per trace message *before* the message goes to the broker (the message
itself), one when the run ends, however it ends (answer, error, failure), and one once the
broker has persisted every message of the run (that one alone if it has by the run's end).
So a trace message is safe once its line is written: the service tells its client of an
entity then, without waiting for the broker's receipt. The next process of a processor
killed before the receipts came sends the run's messages here again (the store writes a
quad once however often it comes) and, for a run that had not ended, publishes the trace's
end as interrupted (``prov:endedAtTime`` + ``tg:interrupted``) — unless the run's caller
still waits: its request comes again and the rerun continues the trace (``run_recovery``).

The journal is one file held open for appending (``runs/journal.log``). What a line survives
is what the file survives: a killed process's lines are in it (no fsync: a lost machine loses
the journal's last writes, and with them messages the broker did not yet have).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import secrets
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

log = logging.getLogger(__name__)

LOG_NAME = "journal.log"
# Once the log has grown past this, it is written again with only the runs not yet done.
COMPACT_BYTES = 1 << 20
RECENT_MAX = 256  # runs done kept in memory, for a request that repeats one (``runs_of``)


@dataclass
class Run:
    """One run the journal holds: its trace, scope, whether it ended, and the trace messages
    the broker may not have yet (their wire form, in order)."""

    key: str  # the run's name in the journal (a trace id may run twice at once)
    uri: str
    user: str
    collection: str
    ended: bool = False
    messages: list[bytes] = field(default_factory=list)
    rid: str = ""  # the request's id ("": unknown, an older journal or no request)
    until: float = 0.0  # its caller's deadline (epoch seconds; 0: none)
    started: str = ""  # the trace's start time
    told: set[str] = field(default_factory=set)  # entities its caller has heard of
    finished: asyncio.Event = field(default_factory=asyncio.Event, compare=False)  # ended


class RunJournal:
    """The runs of one processor that have opened a trace and are not yet done."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self._fd: int | None = None
        self._runs: dict[str, Run] = {}
        # Run keys: unique within this process, and apart from a predecessor's (its lines
        # are in the log until this process has sent its messages again).
        self._prefix = f"{secrets.token_hex(4)}."
        self._next = 0
        self._size = 0
        # A predecessor's runs cut short whose callers still wait, by request id: the
        # request comes again, and its rerun continues the same trace (``claim``).
        self.pending: dict[str, Run] = {}
        self.recent: OrderedDict[str, Run] = OrderedDict()  # runs done, by key (RECENT_MAX)

    def _write(self, line: bytes) -> None:
        if self._fd is None:
            path = self.folder / LOG_NAME
            self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            self._size = os.fstat(self._fd).st_size
        os.write(self._fd, line)
        self._size += len(line)

    def open(self, uri: str, user: str, collection: str, **request: Any) -> str:
        """A run of the trace ``uri`` begins; its key (for the calls below). ``request``:
        the ``rid``, ``until`` and ``started`` of the run (``Run``), kept for a rerun."""
        self._next += 1
        key = f"{self._prefix}{self._next}"
        run = Run(key, uri, user, collection, **request)
        self._runs[key] = run
        self._write(_open_line(run))
        return key

    def adopt(self, run: Run) -> None:
        """Keep a predecessor's run cut short until its request comes again (``claim``)."""
        self._runs[run.key] = run
        self.pending[run.rid] = run

    def claim(self, rid: str) -> Run | None:
        """The pending run of request ``rid``, now continued by this process (None: none)."""
        return self.pending.pop(rid, None) if rid else None

    def record(self, key: str, data: bytes) -> None:
        """A trace message of the run (``data``: its wire form, one line of JSON), written
        before it is sent: from now on it survives the process."""
        run = self._runs[key]
        run.messages.append(data)
        self._write(_message_line(key, data))

    def told(self, key: str, uris: list[str]) -> None:
        """The run's caller has (persisted on its reply topic) the explain events naming
        ``uris``: its request, delivered again, does not tell them again."""
        if (run := self._runs.get(key)) is None:
            return  # done: nothing to tell again
        run.told.update(uris)
        self._write(_line({"told": key, "ids": uris}))

    def end(self, key: str) -> None:
        """The run ended (answered or failed): a restart must not mark it interrupted."""
        self._runs[key].ended = True
        self._runs[key].finished.set()
        self._write(_line({"end": key}))

    def runs_of(self, uri: str) -> list[Run]:
        """The runs of trace ``uri`` known: under way, left by a killed predecessor, or done."""
        return [r for r in (*self._runs.values(), *self.recent.values()) if r.uri == uri]

    def messages(self, key: str) -> list[bytes]:
        """The run's trace messages so far, in the order they were recorded."""
        return self._runs[key].messages

    def done(self, key: str) -> None:
        """The broker has every message of the run, and the run ended: nothing is left."""
        run = self._runs.pop(key, None)
        if run is not None:  # ended too (its ``end`` line left out when both come at once)
            run.ended = True
            run.finished.set()
            self.recent[key] = run
            if self.pending.get(run.rid) is run:
                del self.pending[run.rid]
        while len(self.recent) > RECENT_MAX:
            self.recent.popitem(last=False)
        self._write(_line({"done": key}))
        if self._size > COMPACT_BYTES:
            self.compact()

    def compact(self) -> None:
        """Write the log again with only the runs not done (a busy process may never be
        without one). The new log replaces the old one whole (``os.replace``): a process
        killed meanwhile leaves one or the other, and either holds every run not done."""
        fresh = self.folder / (LOG_NAME + ".new")
        lines = b"".join(_run_lines(run) for run in self._runs.values())
        fresh.write_bytes(lines)
        os.replace(fresh, self.folder / LOG_NAME)
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        self._size = len(lines)

    def left(self) -> list[Run]:
        """Runs a previous process left not done (in the order they opened)."""
        found: dict[str, Run] = {}
        for path in sorted(self.folder.glob("*.json")):  # one file per run: older versions
            try:
                entry = json.loads(path.read_text())
                uri = str(entry["uri"])
                found[uri] = Run(uri, uri, str(entry["user"]), str(entry["collection"]))
            except (OSError, ValueError, KeyError, TypeError):
                path.unlink(missing_ok=True)  # half-written as the process died: nothing to mark
        try:
            lines = (self.folder / LOG_NAME).read_bytes().splitlines()
        except FileNotFoundError:
            lines = []
        for line in lines:
            try:
                _read(json.loads(line), found)
            except (ValueError, KeyError, TypeError, AttributeError):
                continue  # half-written as the process died: nothing to mark or send
        return list(found.values())

    def forget(self, key: str) -> None:
        """A run ``left`` returned is dealt with (sent again, marked): nothing is left."""
        # Older versions' file of the run (named by its URI's digest), if it has one.
        (self.folder / (hashlib.sha256(key.encode()).hexdigest()[:32] + ".json")).unlink(
            missing_ok=True
        )
        self._write(_line({"done": key}))


def _read(entry: dict[str, Any], found: dict[str, Run]) -> None:
    """Apply one journal line to the runs found so far."""
    if "open" in entry:  # an older journal's lines name the run by its URI
        uri = str(entry["open"])
        key = str(entry.get("run", uri))
        found[key] = Run(key, uri, str(entry["user"]), str(entry["collection"]))
        found[key].rid = str(entry.get("rid", ""))
        found[key].until = float(entry.get("until", 0.0))
        found[key].started = str(entry.get("started", ""))
    elif "msg" in entry:
        run = found.get(str(entry["msg"]))
        if run is not None and isinstance(entry["data"], dict):
            run.messages.append(
                json.dumps(entry["data"], ensure_ascii=False, separators=(",", ":")).encode()
            )
    elif "told" in entry:
        run = found.get(str(entry["told"]))
        if run is not None:
            run.told.update(str(uri) for uri in entry["ids"])
    elif "end" in entry:
        run = found.get(str(entry["end"]))
        if run is not None:
            run.ended = True
            run.finished.set()
    else:  # "done" (an older journal's "close")
        found.pop(str(entry.get("done", entry.get("close"))), None)


def _line(entry: dict[str, Any]) -> bytes:
    return (json.dumps(entry, ensure_ascii=False) + "\n").encode()


def _open_line(run: Run) -> bytes:
    entry: dict[str, Any] = {
        "open": run.uri,
        "run": run.key,
        "user": run.user,
        "collection": run.collection,
    }
    if run.rid:
        entry.update(rid=run.rid, until=run.until, started=run.started)
    return _line(entry)


def _message_line(key: str, data: bytes) -> bytes:
    # ``data`` is one line of JSON already (the wire form): spliced in, not parsed again.
    return b'{"msg": ' + json.dumps(key).encode() + b', "data": ' + data + b"}\n"


def _run_lines(run: Run) -> bytes:
    head = _open_line(run)
    body = b"".join(_message_line(run.key, data) for data in run.messages)
    told = _line({"told": run.key, "ids": sorted(run.told)}) if run.told else b""
    return head + body + told + (_line({"end": run.key}) if run.ended else b"")


class Journaled(Protocol):
    """The state of a traced service: it holds the service's run journal."""

    @property
    def journal(self) -> RunJournal: ...
