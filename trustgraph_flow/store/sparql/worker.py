"""A SPARQL worker process (started by ``pool.py``): checks each query, then answers it.

The check (``check.py``: no update, no SERVICE) runs here, inside the process the store
kills at the query's deadline, so an expensive text costs its sender the query's time
limit and one worker, never the store process or another user's query. It runs on a
thread with a deep stack: rdflib's grammar recurses once per triple pattern, and a
legitimate query of thousands of patterns must not be refused as "nested too deeply".
"""

from __future__ import annotations

import sys
import threading
from multiprocessing.connection import Connection
from typing import Any

import pyoxigraph as ox

from trustgraph_base.errors import ServiceError
from trustgraph_base.wire import encode
from trustgraph_flow.store.sparql.check import inspect_query
from trustgraph_flow.store.sparql.results import answer

STACK = 512 * 1024 * 1024  # bytes of the serving thread's stack (reserved, touched as used)
RECURSION = 400_000  # Python frames it may nest: ~20 per triple pattern in rdflib's grammar

CHECK = "check"  # a request that only checks (its text then runs on a SPARQL server)
QUERY = "query"  # a request that checks, then answers over a snapshot (or an empty store)


def serve(conn: Connection) -> None:
    """Answer ``(op, snapshot path or "", query, deadline, dataset or None)`` until the pipe closes: ``("form",
    form, size, depth)`` for a check (``check.Checked``), ``("ok", encoded response)`` for a
    query, ``("error", type, message)``."""
    opened: tuple[str, Any] = ("", ox.Store())
    conn.send(("ready",))
    while True:
        try:
            op, path, text, deadline, dataset = conn.recv()
        except (EOFError, OSError):
            return
        try:
            checked = inspect_query(text)  # updates, SERVICE and unreadable text never run
            if op == CHECK:
                conn.send(("form", checked.form, checked.size, checked.depth, checked.dataset))
                continue
            if path != opened[0]:
                opened = (path, ox.Store.read_only(path) if path else ox.Store())
            found = answer(opened[1], text, deadline, checked.form, dataset)
            conn.send(("ok", encode(found)))
        except ServiceError as exc:
            conn.send(("error", exc.type, exc.message))
        except Exception as exc:
            conn.send(("error", "sparql-error", f"{type(exc).__name__}: {exc}"))


def main(fd: int) -> None:
    sys.setrecursionlimit(RECURSION)
    threading.stack_size(STACK)
    thread = threading.Thread(target=serve, args=(Connection(fd),), name="sparql-worker")
    thread.start()
    thread.join()


if __name__ == "__main__":
    main(int(sys.argv[1]))
