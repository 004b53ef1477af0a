"""OTLP/HTTP sending with a bounded queue: spans are sent or dropped, never waited for.

``offer`` never blocks: spans beyond ``max_queue`` are dropped and counted. A batch the
collector refuses with a retryable status (429, 502, 503, 504) or cannot be reached for is
tried again (``RETRIES``, backing off), then dropped and counted; any other refusal drops it
at once. The counters are what docs/otel.md calls the export's metrics.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import deque
from dataclasses import asdict, dataclass
from pathlib import Path
from urllib.parse import unquote

import aiohttp

from trustgraph_flow.otel.otlp import PROTOBUF, encode
from trustgraph_flow.otel.spans import Span

log = logging.getLogger(__name__)

RETRIES = (0.5, 2.0, 5.0)  # seconds before each further try of a batch
RETRYABLE = {429, 502, 503, 504}
GATHER = 0.2  # seconds a part batch waits for more spans before it is sent


@dataclass
class Counters:
    """What the exporter did since it started."""

    traces: int = 0  # traces turned into spans
    queued: int = 0  # spans taken into the queue
    sent: int = 0  # spans the collector accepted
    dropped: int = 0  # spans given up: queue full, refused, or unreachable
    failed_requests: int = 0  # export requests that failed (each try)
    dropped_traces: int = 0  # unfinished traces given up: more were held than the buffer takes


def traces_url(endpoint: str) -> str:
    """``TG_OTLP_ENDPOINT`` as OTel's base endpoint: ``/v1/traces`` is added unless given."""
    base = endpoint.rstrip("/")
    return base if base.endswith("/v1/traces") else base + "/v1/traces"


def parse_headers(text: str) -> dict[str, str]:
    """``k1=v1,k2=v2`` (OTel's ``OTEL_EXPORTER_OTLP_HEADERS`` form, values URL-encoded);
    ``ValueError`` naming an entry without ``=``."""
    out: dict[str, str] = {}
    for item in text.split(","):
        if not item.strip():
            continue
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"OTLP header {item.strip()!r} is not key=value")
        out[unquote(key.strip())] = unquote(value.strip())
    return out


class Sender:
    """Sends queued spans in batches to one OTLP/HTTP endpoint."""

    def __init__(
        self,
        url: str,
        headers: dict[str, str],
        *,
        max_queue: int = 50_000,
        batch: int = 512,
        timeout: float = 10.0,
    ) -> None:
        self.url, self.headers = url, {**headers, "Content-Type": PROTOBUF}
        self.max_queue, self.batch, self.timeout = max_queue, batch, timeout
        self.queue: deque[Span] = deque()
        self.counters = Counters()
        self.wake = asyncio.Event()

    def offer(self, spans: list[Span]) -> None:
        """Queue ``spans`` (what does not fit is dropped and counted); never waits."""
        room = max(0, self.max_queue - len(self.queue))
        self.queue.extend(spans[:room])
        self.counters.queued += min(room, len(spans))
        self.counters.dropped += max(0, len(spans) - room)
        if spans:
            self.wake.set()

    async def run(self) -> None:
        """Send until cancelled; ``drain`` sends what is left."""
        timeout = aiohttp.ClientTimeout(total=self.timeout)
        async with aiohttp.ClientSession(timeout=timeout) as session:
            while True:
                await self.wake.wait()
                if len(self.queue) < self.batch:  # a moment for more: fewer, larger requests
                    await asyncio.sleep(GATHER)
                self.wake.clear()
                while self.queue:
                    await self._send_batch(session)

    async def drain(self, within: float) -> None:
        """Send what is queued, for at most ``within`` seconds; the rest is dropped."""
        timeout = aiohttp.ClientTimeout(total=min(self.timeout, within))
        try:
            async with aiohttp.ClientSession(timeout=timeout) as session:
                async with asyncio.timeout(within):
                    while self.queue:
                        await self._send_batch(session, retry=False)
        except TimeoutError:
            pass
        self.counters.dropped += len(self.queue)
        self.queue.clear()

    async def _send_batch(self, session: aiohttp.ClientSession, *, retry: bool = True) -> None:
        spans = [self.queue.popleft() for _ in range(min(self.batch, len(self.queue)))]
        body = encode(spans)
        for delay in (0.0, *(RETRIES if retry else ())):
            await asyncio.sleep(delay)
            try:
                async with session.post(self.url, data=body, headers=self.headers) as reply:
                    if reply.status < 300:
                        self.counters.sent += len(spans)
                        return
                    text = (await reply.text())[:200]
                    self.counters.failed_requests += 1
                    log.warning("OTLP export to %s refused: %s %s", self.url, reply.status, text)
                    if reply.status not in RETRYABLE:
                        break
            except (aiohttp.ClientError, TimeoutError, OSError) as exc:
                self.counters.failed_requests += 1
                log.warning("OTLP export to %s failed: %s: %s", self.url, type(exc).__name__, exc)
        self.counters.dropped += len(spans)

    def write_counters(self, path: Path) -> None:
        """The counters as JSON in ``path`` (written whole, then moved into place)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        part = path.with_suffix(".part")
        part.write_text(json.dumps(asdict(self.counters)))
        part.replace(path)
