"""A SPARQL server that hangs: its port takes connections and reads each request, and never
answers (as a ``SIGSTOP``-ed or wedged ``oxigraph serve`` does). It keeps what it was sent,
so a test can tell which requests reached it."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

PROBE = b"ASK {}"  # the body of the store's own probes (held writes, stalled shards)


class Hung:
    """The requests received so far (each connection's bytes, as they came)."""

    def __init__(self) -> None:
        self.received: list[bytearray] = []
        self._lock = threading.Lock()

    def queries(self) -> int:
        """Requests received other than the store's probes (``ASK {}``): reads and writes."""
        with self._lock:
            return sum(1 for data in self.received if not bytes(data).endswith(PROBE))

    def _keep(self, conn: socket.socket) -> None:
        data = bytearray()
        with self._lock:
            self.received.append(data)
        with conn:
            try:
                while chunk := conn.recv(65536):
                    with self._lock:
                        data.extend(chunk)
            except OSError:  # the client reset the connection (it gave up with unread data)
                pass


@contextmanager
def hung_server(port: int) -> Iterator[Hung]:
    """The hanging server on ``port`` (loopback) until the block ends: then the port is closed
    and every connection with it."""
    hung = Hung()
    server = socket.create_server(("127.0.0.1", port))
    conns: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:  # closed: the block ended
                return
            conns.append(conn)
            threading.Thread(target=hung._keep, args=(conn,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield hung
    finally:
        server.shutdown(socket.SHUT_RDWR)  # wakes the accept (a close alone does not)
        server.close()
        for conn in conns:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
