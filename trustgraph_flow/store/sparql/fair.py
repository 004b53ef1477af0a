"""Turns at SPARQL's workers, fair between users: one user's queries cannot starve another's.

``size`` queries run at once (one per worker), a user's at most ``per_user`` of them
(default ``size - 1``, at least 1: with two workers or more one is always left for the
others). Waiting users take turns: a freed place goes to the next user in line who may
take one, so a user sending many queries waits behind everyone else's next one, not in
front of them.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict, deque


class FairGate:
    """Places for ``size`` running queries, handed out in turns between users (asyncio)."""

    def __init__(self, size: int, per_user: int | None = None) -> None:
        self.size = size
        self.per_user = per_user if per_user is not None else max(1, size - 1)
        self._busy = 0
        self._held: dict[str, int] = {}
        self._waiting: OrderedDict[str, deque[asyncio.Future[None]]] = OrderedDict()

    def held(self, user: str) -> int:
        return self._held.get(user, 0)

    async def acquire(self, user: str, timeout: float) -> None:
        """Wait up to ``timeout`` seconds for a place (TimeoutError after); ``release`` it after."""
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(user, deque()).append(turn)
        self._grant()
        try:
            async with asyncio.timeout(timeout):
                await asyncio.shield(turn)
        except BaseException:
            if turn.done() and not turn.cancelled():  # granted as the wait ended: give it back
                self.release(user)
            else:
                turn.cancel()  # skipped when its turn comes
                self._grant()
            raise

    def release(self, user: str) -> None:
        self._busy -= 1
        self._held[user] -= 1
        if not self._held[user]:
            del self._held[user]
        self._grant()

    def _grant(self) -> None:
        """Hand free places to waiting users in turn, each within ``per_user``."""
        while self._busy < self.size:
            for user in list(self._waiting):
                line = self._waiting[user]
                while line and line[0].done():  # waits that ended unserved
                    line.popleft()
                if not line:
                    del self._waiting[user]
                    continue
                if self.held(user) >= self.per_user:
                    continue
                line.popleft().set_result(None)
                self._busy += 1
                self._held[user] = self.held(user) + 1
                if line:
                    self._waiting.move_to_end(user)  # the next place goes to someone else first
                else:
                    del self._waiting[user]
                break
            else:
                return
