"""tg-start runs the OTLP exporter only when TG_OTLP_ENDPOINT is set (registry.OPTIONAL)."""

from __future__ import annotations

from pathlib import Path

import pytest

from trustgraph_base.messaging.broker import free_port
from trustgraph_flow.launcher.launch import Launch
from trustgraph_flow.launcher.relay import Relays
from trustgraph_flow.launcher.rundir import RunDir


def started(tmp_path: Path) -> list[str]:
    relays = Relays(free_port())
    try:
        return [child.name for child in Launch(RunDir(tmp_path), 8088, None).children(relays)]
    finally:
        relays.stop()


def test_the_exporter_runs_only_with_an_endpoint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TG_OTLP_ENDPOINT", raising=False)
    without = started(tmp_path)
    assert "otel-export" not in without and "store" in without
    monkeypatch.setenv("TG_OTLP_ENDPOINT", "http://127.0.0.1:6006")
    assert set(started(tmp_path)) - set(without) == {"otel-export"}
