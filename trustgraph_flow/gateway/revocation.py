"""Every open socket of the gateway, and the end of those whose API key is revoked or expires.

A socket is authenticated once, when it opens (or by its auth frame), and may stay open for
hours; REST requests are checked one by one. So the gateway keeps each open socket under
the key it was opened with (``OpenSockets.held``) and looks at the shared key file every
``SWEEP`` seconds: a socket whose key was revoked (by this or any other gateway process
sharing the file) or has expired is closed with 1008 (policy violation) and the reason.
Between two looks each frame is checked too (``live``), so nothing a revoked key sends is
carried out. ``close_all`` closes every socket on shutdown (going away).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import weakref
from collections.abc import AsyncIterator, Iterator

from aiohttp import WSCloseCode, web

from trustgraph_flow.gateway.auth import AUTH, Auth, Principal

log = logging.getLogger(__name__)

SWEEP = 0.2  # seconds between looks at the key file (a stat; it is re-read only when changed)
REVOKED = "this API key was revoked or has expired"


class OpenSockets:
    """The gateway's open sockets, each under the API key it acts with (if any)."""

    def __init__(self, auth: Auth) -> None:
        self.auth = auth
        self._every: weakref.WeakSet[web.WebSocketResponse] = weakref.WeakSet()
        self._by_key: dict[str, set[web.WebSocketResponse]] = {}

    @contextlib.contextmanager
    def held(self, ws: web.WebSocketResponse, principal: Principal | None) -> Iterator[None]:
        """Keep ``ws`` among the open sockets (under ``principal``'s key) while it is served."""
        self._every.add(ws)
        self.bind(ws, principal)
        try:
            yield
        finally:
            self._every.discard(ws)
            self._unbind(ws)

    def bind(self, ws: web.WebSocketResponse, principal: Principal | None) -> None:
        """``ws`` now acts as ``principal`` (a socket's auth frame may change who it is)."""
        self._unbind(ws)
        if principal is not None and principal.key_id is not None:
            self._by_key.setdefault(principal.key_id, set()).add(ws)

    def _unbind(self, ws: web.WebSocketResponse) -> None:
        for key_id in [k for k, held in self._by_key.items() if ws in held]:
            self._by_key[key_id].discard(ws)
            if not self._by_key[key_id]:
                del self._by_key[key_id]

    def live(self, principal: Principal | None) -> bool:
        """Whether ``principal`` may still act: not an API key, or one neither revoked nor expired."""
        if principal is None or principal.key_id is None:
            return True
        return self.auth.keys.live(principal.key_id)

    async def sweep(self) -> int:
        """Close the sockets of every key no longer live; how many were closed."""
        if not self._by_key:
            return 0
        dead = [k for k in list(self._by_key) if not self.auth.keys.live(k)]
        sockets = [ws for k in dead for ws in self._by_key.pop(k, set())]
        for key_id in dead:
            log.info("API key %s revoked or expired: closing its open sockets", key_id)
        await asyncio.gather(*(end(ws, REVOKED) for ws in sockets), return_exceptions=True)
        return len(sockets)

    async def watch(self) -> None:
        """Sweep every ``SWEEP`` seconds, for as long as the gateway runs."""
        while True:
            await asyncio.sleep(SWEEP)
            try:
                await self.sweep()
            except Exception:  # a key file being replaced mid-read: the next sweep reads it
                log.warning("could not check the API keys of open sockets", exc_info=True)

    async def close_all(self) -> None:
        """Close every open socket (the gateway is shutting down)."""
        for ws in list(self._every):
            await ws.close(code=WSCloseCode.GOING_AWAY, message=b"gateway shutting down")


async def end(ws: web.WebSocketResponse, reason: str) -> None:
    """Close ``ws`` as a policy violation, saying why (a client sees the code and reason)."""
    await ws.close(code=WSCloseCode.POLICY_VIOLATION, message=reason.encode())


OPEN_SOCKETS = web.AppKey("open_sockets", OpenSockets)


async def open_sockets_ctx(app: web.Application) -> AsyncIterator[None]:
    """``app[OPEN_SOCKETS]`` and its watch, for the life of the application."""
    sockets = OpenSockets(app[AUTH])
    app[OPEN_SOCKETS] = sockets
    watch = asyncio.create_task(sockets.watch())
    try:
        yield
    finally:
        watch.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watch
