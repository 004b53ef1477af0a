"""SPARQL in killable worker processes: a query past its time limit is stopped, its memory freed.

pyoxigraph offers no way to interrupt a query from Python, and one that computes everything
before its first row (aggregates, ``ORDER BY``, big joins) can run for minutes and grow to
gigabytes. So each query runs in a worker process over a **snapshot** of its collection's
store (``Store.backup``: a RocksDB checkpoint of hard links, opened there read-only); at
the deadline the worker is killed (SIGKILL: every byte it held is returned) and a fresh
one takes its place. A snapshot is reused until the store process writes again.

The check for updates and SERVICE (``check.py``) runs in the worker too (``worker.py``),
under the same time limit: on the server backend a query's text is checked there
(``check``) before it is sent to the server.
"""

from __future__ import annotations

import logging
import queue
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.schema.store import SparqlQueryResponse
from trustgraph_base.wire import decode
from trustgraph_flow.store.sparql.check import Checked
from trustgraph_flow.store.sparql.results import Dataset
from trustgraph_flow.store.sparql.worker import CHECK, QUERY

log = logging.getLogger(__name__)


STARTUP = 60.0  # seconds a new worker may take to import (not counted against a query)


@dataclass(eq=False)
class Worker:
    process: Any
    conn: Connection
    ready: threading.Event

    ok: bool = False

    @classmethod
    def start(cls) -> Worker:
        """A fresh interpreter (never a fork of a process running Pulsar's threads)."""
        mine, theirs = socket.socketpair()
        process = subprocess.Popen(
            [sys.executable, "-m", "trustgraph_flow.store.sparql.worker", str(theirs.fileno())],
            pass_fds=[theirs.fileno()],
            stdin=subprocess.DEVNULL,
        )
        theirs.close()
        worker = cls(process, Connection(mine.detach()), threading.Event())
        threading.Thread(target=worker._await_ready, daemon=True).start()
        return worker

    def _await_ready(self) -> None:
        """Take the worker's "ready" message (sent once its imports are done)."""
        try:
            if self.conn.poll(STARTUP):
                self.conn.recv()
                self.ok = True
        except (EOFError, OSError):
            pass
        finally:
            self.ready.set()

    def kill(self) -> None:
        self.process.kill()
        self.process.wait(5)


class SparqlPool:
    """``size`` workers, started on first use; ``run`` blocks the calling thread."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._idle: queue.Queue[Worker] = queue.Queue()
        self._all: set[Worker] = set()
        self._lock = threading.Lock()
        self._started = False
        self._closed = False

    def pids(self) -> set[int]:
        with self._lock:
            return {w.process.pid for w in self._all}

    def _spawn(self) -> Worker:
        worker = Worker.start()
        with self._lock:
            self._all.add(worker)
        return worker

    def _start(self) -> None:
        with self._lock:
            first = not self._started
            self._started = True
        if first:
            for _ in range(self.size):
                self._idle.put(self._spawn())

    def warm_up(self) -> None:
        """Start the workers on first use and wait for their imports (not a query's time)."""
        self._start()
        with self._lock:
            workers = list(self._all)
        for worker in workers:
            worker.ready.wait(STARTUP)

    def _retire(self, worker: Worker) -> None:
        worker.kill()
        with self._lock:
            self._all.discard(worker)

    def run(
        self,
        snapshot: Path | None,
        text: str,
        deadline: float,
        limit: float,
        dataset: Dataset | None = None,
    ) -> SparqlQueryResponse:
        """The checked query's answer over ``snapshot`` (None: an empty store) and the
        protocol's ``dataset`` if given, or ``ServiceError`` (``timeout`` once ``deadline``
        passes, the check's time included)."""
        path = str(snapshot) if snapshot else ""
        reply = self._call(QUERY, path, text, deadline, limit, dataset)
        return decode(SparqlQueryResponse, reply[1])

    def check(self, text: str, deadline: float, limit: float) -> Checked:
        """The query's form and size once a worker has checked it (``check.inspect_query``)
        within the time limit; ``ServiceError`` otherwise."""
        _, form, size, depth, dataset = self._call(CHECK, "", text, deadline, limit)
        return Checked(str(form), int(size), int(depth), dataset)

    def _call(
        self,
        op: str,
        path: str,
        text: str,
        deadline: float,
        limit: float,
        dataset: Dataset | None = None,
    ) -> Any:
        if time.monotonic() >= deadline:  # waited its whole time in the queue
            raise ServiceError(
                ErrorType.TIMEOUT, f"the query waited {limit:g} s for a free worker: try again"
            )
        self._start()
        worker: Worker | None = self._idle.get()
        assert worker is not None
        try:
            waited = time.monotonic()
            if not worker.ready.wait(STARTUP) or not worker.ok:
                raise EOFError
            deadline += time.monotonic() - waited  # its start-up is not the query's time
            worker.conn.send((op, path, text, deadline, dataset))
            if not worker.conn.poll(max(0.0, deadline - time.monotonic())):
                self._retire(worker)
                worker = None
                raise ServiceError(
                    ErrorType.TIMEOUT,
                    f"the query did not finish within {limit:g} s and was stopped: narrow it or add a LIMIT",
                )
            reply = worker.conn.recv()
        except (EOFError, OSError):
            if worker is not None:
                self._retire(worker)
                worker = None
            raise ServiceError(
                ErrorType.SPARQL_ERROR, "the query's worker process died (out of memory?)"
            ) from None
        finally:
            if not self._closed:
                self._idle.put(worker if worker is not None else self._spawn())
        if reply[0] == "error":
            raise ServiceError(reply[1], reply[2])
        return reply

    def close(self) -> None:
        self._closed = True
        with self._lock:
            workers = list(self._all)
            self._all.clear()
        for worker in workers:
            worker.kill()
