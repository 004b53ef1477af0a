"""``free_port``: a port free now, taken where the kernel hands out no ports of its own."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from trustgraph_base.messaging import broker
from trustgraph_base.messaging.broker import free_port


def listen(port: int) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", port))
        s.listen()


def test_a_free_port_is_below_the_kernels_range_and_can_be_listened_on() -> None:
    low = next(map(int, broker.LOCAL_RANGE.read_text().split()))
    ports = {free_port() for _ in range(20)}
    assert all(low - broker.BELOW <= p < low for p in ports), (ports, low)
    assert len(ports) > 1  # picked at random, not the same one each time
    for port in ports:
        listen(port)


def test_a_port_in_use_is_never_given(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        taken = held.getsockname()[1]
        rng = tmp_path / "range"
        rng.write_text(f"{taken + 1}\t60999\n")  # the one port below the range is taken
        monkeypatch.setattr(broker, "LOCAL_RANGE", rng)
        monkeypatch.setattr(broker, "BELOW", 1)
        assert free_port() != taken  # fell back to a port the kernel gives


@pytest.mark.parametrize("text", ["", "not numbers", "1100\t60999"])
def test_no_readable_range_or_no_room_below_it_falls_back(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, text: str
) -> None:
    rng = tmp_path / "range"
    rng.write_text(text)
    monkeypatch.setattr(broker, "LOCAL_RANGE", rng)
    listen(free_port())
    monkeypatch.setattr(broker, "LOCAL_RANGE", tmp_path / "missing")
    listen(free_port())
