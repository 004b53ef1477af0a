"""The launcher's relay: its CPU a relayed chunk, against another relay in the same run.

    python -m bench.bench_relay [--against FILE] [--rounds 3] [--messages 20000] [--clients 4]

A stand-in broker (a process of its own, answering each frame with the same frame) and a
relay (another process: this tree's ``trustgraph_flow/launcher/relay.py``, or ``FILE``, e.g.
another tree's copy) carry ``--clients`` connections of ping-pong frames, each frame a chunk
of its own, as a question's messages are. Prints the relay process's CPU (user and system,
``getrusage``) a chunk carried, each relay in turn ``--rounds`` times, and the ratio of the
medians.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import resource
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent / "trustgraph_flow" / "launcher" / "relay.py"
FRAME = (64).to_bytes(4, "big") + (60).to_bytes(4, "big") + b"\x08\x05" + b"x" * 58


def _exactly(sock: socket.socket, n: int) -> bytes:
    data = b""
    while len(data) < n:
        more = sock.recv(n - len(data))
        if not more:
            raise ConnectionError("closed")
        data += more
    return data


def serve_broker() -> None:
    """The stand-in broker: each frame read is sent back."""
    server = socket.create_server(("127.0.0.1", 0))
    print(server.getsockname()[1], flush=True)

    def answer(conn: socket.socket) -> None:
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            while True:
                head = _exactly(conn, 4)
                conn.sendall(head + _exactly(conn, int.from_bytes(head, "big")))
        except (ConnectionError, OSError):
            conn.close()

    while True:
        conn, _ = server.accept()
        threading.Thread(target=answer, args=(conn,), daemon=True).start()


def serve_relay(file: str, broker_port: int) -> None:
    """A relay from ``file``; its CPU between the lines ``go`` and ``end`` on stdin."""
    spec = importlib.util.spec_from_file_location("relay_under_test", file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    relays = module.Relays(broker_port)
    print(relays.add().rsplit(":", 1)[1], flush=True)

    def cpu() -> float:
        use = resource.getrusage(resource.RUSAGE_SELF)
        return use.ru_utime + use.ru_stime

    sys.stdin.readline()
    start = cpu()
    sys.stdin.readline()
    print(f"{cpu() - start:.6f}", flush=True)
    relays.stop()


def _client(port: int, messages: int) -> None:
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for _ in range(messages):
            sock.sendall(FRAME)
            _exactly(sock, len(FRAME))


def one_run(file: Path, broker_port: int, messages: int, clients: int) -> float:
    """µs of the relay's CPU a chunk (a frame each way is two chunks)."""
    relay = subprocess.Popen(
        [sys.executable, "-m", "bench.bench_relay", "--serve-relay", str(file), str(broker_port)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert relay.stdin is not None and relay.stdout is not None
    port = int(relay.stdout.readline())
    _client(port, 10)  # connected and warm before the count starts
    relay.stdin.write("go\n")
    relay.stdin.flush()
    time.sleep(0.2)
    each = messages // clients
    threads = [threading.Thread(target=_client, args=(port, each)) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    relay.stdin.write("end\n")
    relay.stdin.flush()
    seconds = float(relay.stdout.readline())
    relay.wait(30)
    return seconds / (2 * each * clients) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", type=Path, help="another relay.py to compare with")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--messages", type=int, default=20_000)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--serve-broker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--serve-relay", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_broker:
        return serve_broker()
    if args.serve_relay:
        return serve_relay(args.serve_relay[0], int(args.serve_relay[1]))
    if args.against is not None and not args.against.is_file():
        parser.error(f"--against {args.against}: no such file")
    files = {"this": HERE, **({"against": args.against} if args.against else {})}
    broker = subprocess.Popen(
        [sys.executable, "-m", "bench.bench_relay", "--serve-broker"], stdout=subprocess.PIPE
    )
    assert broker.stdout is not None
    broker_port = int(broker.stdout.readline())
    figures: dict[str, list[float]] = {name: [] for name in files}
    try:
        for round_ in range(1, args.rounds + 1):
            for name, file in files.items():
                us = one_run(file, broker_port, args.messages, args.clients)
                figures[name].append(us)
                load = " ".join(f"{x:.1f}" for x in os.getloadavg())
                print(f"round {round_}, {name}: {us:.1f} µs of relay CPU a chunk (load {load})")
    finally:
        broker.kill()
    medians = {name: statistics.median(v) for name, v in figures.items()}
    line = ", ".join(f"{name} {m:.1f}" for name, m in medians.items())
    ratio = f"; this/against {medians['this'] / medians['against']:.2f}" if args.against else ""
    print(f"median µs a chunk: {line}{ratio}")


if __name__ == "__main__":
    main()
