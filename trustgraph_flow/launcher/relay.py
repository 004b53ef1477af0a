"""A loopback relay between each launched process and the broker, so a killed process's
subscriptions are freed without restarting the broker (issue 36 item 8).

pulsar-lite keeps the consumers of a client connection that died with its process
registered, holding their unacked messages: the restarted processor is refused ("Consumer 0
already exists") and the messages are never redelivered, until the broker restarts, which
disconnects every other process too. A connection the client *closes* it handles: it drops
the consumers and redelivers what they held (measured: 200 of 200 unacked messages to the
successor within 3 s, none in 90 s without the relay). So each process connects to the
broker through its own relay port; when the process dies, the relay closes the broker side
of its connections in order (FIN, then reading what the broker still sends until it closes
too), and only that process's subscriptions are freed. A topic lookup's answer is rewritten
to name the relay (``lookups``): otherwise the client would open its consumers' connection
straight to the broker's own address, around the relay.

The relays run in one thread of the launcher, on an asyncio loop of their own. A broker
that dies closes the process side of every connection: the processes reconnect (to the
relay, which connects to the restarted broker on the same port).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from typing import cast

from trustgraph_flow.launcher.lookups import rewrite_frames

log = logging.getLogger(__name__)

DRAIN_S = 5.0  # how long a closed connection waits for the broker to close its side


class _Side(asyncio.Protocol):
    """One end of a relayed connection: what it receives is written to the other end, and
    while the other end cannot take more, this one is not read (flow control both ways).

    Protocols, not streams: each chunk is one callback and one write, with no task woken
    per chunk (the stream pair's read/write/drain cost the launcher ~2 ms of CPU per agent
    question, every message of every process crossing it twice).
    """

    def __init__(self, link: _Link) -> None:
        self.link = link
        self.transport: asyncio.Transport | None = None
        self.lost: asyncio.Future[None] = asyncio.get_running_loop().create_future()  # closed

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)

    def pause_writing(self) -> None:  # the other end's data waits: stop reading it
        other = self.link.other(self)
        if other.transport is not None:
            other.transport.pause_reading()

    def resume_writing(self) -> None:
        other = self.link.other(self)
        if other.transport is not None and not other.transport.is_closing():
            other.transport.resume_reading()

    def eof_received(self) -> bool:
        self.link.ended(self)
        return False  # close this end's transport

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.lost.done():
            self.lost.set_result(None)
        self.link.ended(self)


class _ProcessSide(_Side):
    def __init__(self, relay: Relay) -> None:
        super().__init__(_Link(relay))
        self.link.process = self

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self.link.open(self)

    def data_received(self, data: bytes) -> None:
        broker = self.link.broker.transport
        if broker is not None and not self.link.closing:
            broker.write(data)


class _BrokerSide(_Side):
    def __init__(self, link: _Link) -> None:
        super().__init__(link)
        self.pending = bytearray()

    def data_received(self, data: bytes) -> None:
        if self.link.closing:  # the process has gone: what the broker still says is dropped
            return
        self.pending += data
        ready, self.pending = rewrite_frames(self.pending, self.link.url)
        process = self.link.process.transport
        if ready and process is not None:
            process.write(ready)


class _Link:
    """A process's connection and the broker connection opened for it."""

    def __init__(self, relay: Relay) -> None:
        self.relay = relay
        self.url = f"pulsar://127.0.0.1:{relay.port}".encode()
        self.process: _ProcessSide
        self.broker = _BrokerSide(self)
        self.closing = False
        self.task: asyncio.Task[None] | None = None

    def other(self, side: _Side) -> _Side:
        return self.broker if side is self.process else self.process

    def open(self, process: _ProcessSide) -> None:
        """The process connected: connect to the broker for it (its data waits till then)."""
        assert process.transport is not None
        process.transport.pause_reading()
        self.relay.links.add(self)
        self.task = asyncio.ensure_future(self._connect())

    async def _connect(self) -> None:
        loop = asyncio.get_running_loop()
        process = self.process.transport
        assert process is not None
        try:
            await loop.create_connection(lambda: self.broker, "127.0.0.1", self.relay.broker_port)
        except OSError:  # the broker is down: the process retries, as it would directly
            self.closing = True
            process.close()
            self.relay.links.discard(self)
            return
        if process.is_closing():  # the process went while we connected
            self.ended(self.process)
        else:
            process.resume_reading()

    def ended(self, side: _Side) -> None:
        """``side`` closed (or sent EOF). The process gone: close the broker's side in order,
        freeing its consumers. The broker gone: close the process's (it reconnects)."""
        if self.closing:
            return
        self.closing = True
        broker = self.broker.transport
        if side is self.process and broker is not None:
            self.task = asyncio.ensure_future(self._close_in_order(broker))
            return
        if broker is not None:
            broker.close()
        if self.process.transport is not None:
            self.process.transport.close()
        self.relay.links.discard(self)

    async def _close_in_order(self, broker: asyncio.Transport) -> None:
        """Close a broker connection as a client that closes it would: FIN, then read what
        the broker still sends until it closes its side (a close with unread data would be a
        reset, which pulsar-lite does not clean up after)."""
        broker.resume_reading()  # read (and drop) what it still sends, until it closes
        with contextlib.suppress(ConnectionError, OSError, RuntimeError):
            if broker.can_write_eof():
                broker.write_eof()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(self.broker.lost), DRAIN_S)
        broker.close()
        if self.process.transport is not None:
            self.process.transport.close()
        self.relay.links.discard(self)

    def abort(self) -> None:
        """Close both ends now (the relays stop)."""
        self.closing = True
        for side in (self.process, self.broker):
            if side.transport is not None:
                side.transport.abort()
        if self.task is not None:
            self.task.cancel()


class Relay:
    """One listening port on 127.0.0.1 that forwards each connection to the broker."""

    def __init__(self, broker_port: int) -> None:
        self.broker_port = broker_port
        self.port = 0
        self._server: asyncio.Server | None = None
        self.links: set[_Link] = set()

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._server = await loop.create_server(lambda: _ProcessSide(self), "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for link in list(self.links):
            link.abort()
        self.links.clear()


class Relays:
    """The relays of one launch: ``add`` one per process; they run until ``stop``."""

    def __init__(self, broker_port: int) -> None:
        self.broker_port = broker_port
        self.loop = asyncio.new_event_loop()
        self.relays: list[Relay] = []
        self._thread = threading.Thread(target=self.loop.run_forever, name="relays", daemon=True)
        self._thread.start()

    def add(self) -> str:
        """A new relay; the ``pulsar://`` URL a process uses to reach the broker through it."""
        relay = Relay(self.broker_port)
        asyncio.run_coroutine_threadsafe(relay.start(), self.loop).result(10)
        self.relays.append(relay)
        return f"pulsar://127.0.0.1:{relay.port}"

    def stop(self) -> None:
        """Close every relay and the connections they carry, then the relays' loop itself
        (a loop or socket left open is a leak the process carries to its end)."""

        async def close_all() -> None:
            for relay in self.relays:
                await relay.close()
            open_links = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in open_links:
                task.cancel()
            await asyncio.gather(*open_links, return_exceptions=True)
            await asyncio.sleep(0)  # the closed transports drop their sockets

        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(close_all(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(10)
        if not self._thread.is_alive():
            self.loop.close()
