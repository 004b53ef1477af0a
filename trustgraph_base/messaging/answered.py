"""Requests a service has answered, kept on disk until their callers stop waiting.

A request is acked once its last reply is persisted, but the ack is not: a process killed
between the two (pulsar-client sends acks in groups, up to 100 ms apart) has the broker
deliver the request again, and running it again would answer twice and leave a second
trace. A service registered with ``once=True`` writes the request's id here after its last
reply is persisted and before the ack; the next process skips a delivery of an id it finds
(the caller has every reply already: they were persisted on its reply topic).

One line per answered request, ``{"id": …, "until": epoch seconds}`` appended to
``<data-dir>/<processor>/answered/<subscription>.log``; an id is kept until its caller's
deadline has passed (after that ``expired`` skips the delivery anyway), at least
``KEEP_S``. Past ``COMPACT_BYTES`` the file is written again with the ids still kept.
"""

from __future__ import annotations

import json
import logging
import os
import time
from pathlib import Path

log = logging.getLogger(__name__)

KEEP_S = 600.0  # how long an id without a deadline (an older caller) is kept
COMPACT_BYTES = 256 * 1024


class AnsweredLog:
    """The ids of requests answered (by this process or a previous one on the same folder)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.ids: dict[str, float] = {}  # id -> until (epoch seconds)
        self._fd: int | None = None
        self._size = 0
        path.parent.mkdir(parents=True, exist_ok=True)
        now = time.time()
        try:
            lines = path.read_bytes().splitlines()
        except FileNotFoundError:
            lines = []
        for line in lines:
            try:
                entry = json.loads(line)
                rid, until = str(entry["id"]), float(entry["until"])
            except (ValueError, KeyError, TypeError):
                continue  # half-written as the process died: that request was not answered
            if until > now:
                self.ids[rid] = until
        self._rewrite()

    def __contains__(self, rid: str) -> bool:
        until = self.ids.get(rid)
        return until is not None and until > time.time()

    def add(self, rid: str, deadline: float | None) -> None:
        """``rid`` was answered (every reply persisted); ``deadline``: its caller's, or None."""
        now = time.time()
        until = deadline if deadline is not None else now + KEEP_S
        if until <= now:
            return  # its caller has gone: a delivery again is skipped as expired anyway
        self.ids[rid] = until
        line = (json.dumps({"id": rid, "until": round(until, 3)}) + "\n").encode()
        if self._fd is None:
            self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        os.write(self._fd, line)
        self._size += len(line)
        if self._size > COMPACT_BYTES:
            self.ids = {k: v for k, v in self.ids.items() if v > now}
            self._rewrite()

    def _rewrite(self) -> None:
        """Write the file again with only the ids still kept; it replaces the old one whole."""
        fresh = self.path.with_name(self.path.name + ".new")
        body = "".join(
            json.dumps({"id": rid, "until": round(until, 3)}) + "\n"
            for rid, until in self.ids.items()
        ).encode()
        fresh.write_bytes(body)
        os.replace(fresh, self.path)
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        self._size = len(body)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
