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

from trustgraph_flow.launcher.lookups import rewrite_frames

log = logging.getLogger(__name__)

CHUNK = 1 << 16
DRAIN_S = 5.0  # how long a closed connection waits for the broker to close its side


async def _copy(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Copy until ``reader`` ends (EOF or a reset: the same to us)."""
    with contextlib.suppress(ConnectionError, OSError):
        while data := await reader.read(CHUNK):
            writer.write(data)
            await writer.drain()


async def _copy_answers(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, url: bytes
) -> None:
    """Copy what the broker sends, frame by frame, its lookup answers naming the relay."""
    pending = bytearray()
    with contextlib.suppress(ConnectionError, OSError):
        while data := await reader.read(CHUNK):
            pending += data
            ready, pending = rewrite_frames(pending, url)
            if ready:
                writer.write(ready)
                await writer.drain()


async def _close_in_order(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Close a broker connection as a client that closes it would: FIN, then read what the
    broker still sends until it closes its side (a close with unread data would be a reset,
    which pulsar-lite does not clean up after)."""
    with contextlib.suppress(ConnectionError, OSError):
        if writer.can_write_eof():
            writer.write_eof()
        async with asyncio.timeout(DRAIN_S):
            while await reader.read(CHUNK):
                pass
    with contextlib.suppress(ConnectionError, OSError, TimeoutError):
        writer.close()
        await writer.wait_closed()


class Relay:
    """One listening port on 127.0.0.1 that forwards each connection to the broker."""

    def __init__(self, broker_port: int) -> None:
        self.broker_port = broker_port
        self.port = 0
        self._server: asyncio.Server | None = None

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def _serve(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        try:
            broker_r, broker_w = await asyncio.open_connection("127.0.0.1", self.broker_port)
        except OSError:  # the broker is down: the process retries, as it would directly
            client_w.close()
            return
        up = asyncio.ensure_future(_copy(client_r, broker_w))
        url = f"pulsar://127.0.0.1:{self.port}".encode()
        down = asyncio.ensure_future(_copy_answers(broker_r, client_w, url))
        done, _ = await asyncio.wait({up, down}, return_when=asyncio.FIRST_COMPLETED)
        if up in done:  # the process closed or died: free its consumers in order
            down.cancel()
            await asyncio.gather(down, return_exceptions=True)
            await _close_in_order(broker_r, broker_w)
        else:  # the broker went: the process reconnects
            up.cancel()
            await asyncio.gather(up, return_exceptions=True)
            broker_w.close()
        client_w.close()

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()


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
