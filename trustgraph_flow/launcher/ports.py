"""The launcher's ports: whether one can be listened on, and which the broker takes."""

from __future__ import annotations

import contextlib
import errno
import socket
from pathlib import Path


def bind_problem(port: int, host: str = "127.0.0.1", *, flag: str = "--port") -> str | None:
    """Why nothing could listen on ``host:port`` (None when it could); ``flag`` sets it."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                return f"port {port} is already in use — pass {flag} with a free one"
            return f"cannot listen on {host}:{port} ({exc.strerror or exc}) — check --host"
        return None


def port_free(port: int) -> bool:
    return bind_problem(port) is None


def broker_port(wanted: int | None, remembered: Path) -> int:
    """``wanted`` when given (checked free by the caller), else the port in ``remembered``
    (the last run's) if it is still free, else a new free one."""
    from trustgraph_base.messaging import free_port

    if wanted is not None:
        return wanted
    with contextlib.suppress(OSError, ValueError):
        last = int(remembered.read_text())
        if port_free(last):
            return last
    return free_port()
