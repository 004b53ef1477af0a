"""What a process read from the configuration service, kept until the configuration changes.

The processors read a user's prompts and tools before each LLM step (``prompts/book.py``,
``agent/configured.py``): asked of the service every time, that was 5 of the 46 messages'
round trips of an agent question (10 messages, a fifth of its CPU with the service's own;
``python -m bench.stages_ab``). The configuration service says ``ConfigChanged`` on
``config-changed`` once it has made a put or a delete, before it answers it, and once when
it starts; each process that reads configuration listens there under a subscription of its
own (``<client>.<process>``, dropped when it stops), so every process hears every change.
An answer is kept until a change for its user (or anyone's) is heard, or ``KEEP_S`` passes.

A change still takes effect at the next answer: its notice is persisted before the change is
answered, and the broker sends it on at once, ahead of any later request on the same
connection. An answer read while a change was heard is not kept (it may predate it); until
the subscription is made, or once it ends, nothing is kept and every read asks the service.

Reads asked while the same read is on its way share its answer (``joined``): a burst of
questions arriving together asked the service once each before the first answer was kept
(44 of 100 questions' agent reads, in bursts of 50). A read joins only while listening and
with no change heard since the one on its way was asked, so it gets nothing older than its
own request would.
"""

from __future__ import annotations

import asyncio
import time

from trustgraph_base.errors import WireError
from trustgraph_base.messaging import CONFIG_CHANGED
from trustgraph_base.messaging.notices import NoticeListener
from trustgraph_base.schema import ConfigChanged, ConfigRequest, ConfigResponse
from trustgraph_base.wire import decode

KEEP_S = 60.0  # a notice lost all the same (none is known to be) is healed within this
MAX_KEPT = 10_000  # answers kept per process; past it they are all dropped
READS = ("get", "getvalues", "list", "config")


class ConfigCache(NoticeListener):
    """One process's kept configuration answers, by user and request."""

    TOPIC = CONFIG_CHANGED
    UNHEARD = "each read asks the service"

    def __init__(self) -> None:
        super().__init__()  # heard: a read during which a change was heard is not kept
        self.answers: dict[tuple[str, str], tuple[float, ConfigResponse]] = {}
        # reads on their way, by key: the changes heard when each was asked, and its answer
        self.asking: dict[tuple[str, str], tuple[int, asyncio.Future[ConfigResponse]]] = {}

    def notice(self, data: bytes) -> None:
        try:
            user: str | None = decode(ConfigChanged, data).user
        except WireError:
            user = None  # unreadable: anything may have changed
        self.changed(user)

    def forget_all(self) -> None:
        self.answers.clear()

    def changed(self, user: str | None) -> None:
        """``user``'s configuration (None: anyone's) has changed: forget what was read of it."""
        self.heard += 1
        if user is None:
            self.answers.clear()
            return
        for key in [k for k in self.answers if k[0] == user]:
            del self.answers[key]

    def get(self, request: ConfigRequest) -> ConfigResponse | None:
        """The answer kept for ``request`` (a read), if one is."""
        if not self.listening or request.operation not in READS:
            return None
        found = self.answers.get((request.user, request.model_dump_json()))
        if found is None or found[0] < time.monotonic():
            return None
        return found[1]

    def joined(self, request: ConfigRequest) -> asyncio.Future[ConfigResponse] | None:
        """The answer of the same read already on its way, if this read may share it
        (listening, and no change heard since it was asked)."""
        if not self.listening or request.operation not in READS:
            return None
        found = self.asking.get((request.user, request.model_dump_json()))
        if found is None or found[0] != self.heard:
            return None
        return found[1]

    def asked(self, request: ConfigRequest) -> asyncio.Future[ConfigResponse] | None:
        """Note ``request`` as on its way (a read, while listening): the future its answer is
        given to (cancelled when it gets none), for the reads that join it; None when it
        cannot be joined."""
        if not self.listening or request.operation not in READS:
            return None
        key = (request.user, request.model_dump_json())
        answer: asyncio.Future[ConfigResponse] = asyncio.get_running_loop().create_future()
        self.asking[key] = (self.heard, answer)
        answer.add_done_callback(lambda f: self._done(key, f))
        return answer

    def _done(self, key: tuple[str, str], answer: asyncio.Future[ConfigResponse]) -> None:
        found = self.asking.get(key)
        if found is not None and found[1] is answer:
            del self.asking[key]

    def keep(
        self, request: ConfigRequest, answer: ConfigResponse, *, heard: int, listening: bool
    ) -> None:
        """Keep ``answer`` to ``request``, read while ``listening`` with ``heard`` changes
        heard when it was asked (a change heard since: it may predate it, not kept)."""
        if not (listening and self.listening and heard == self.heard):
            return
        if request.operation not in READS:
            return
        if len(self.answers) >= MAX_KEPT:
            self.answers.clear()
        key = (request.user, request.model_dump_json())
        self.answers[key] = (time.monotonic() + KEEP_S, answer)
