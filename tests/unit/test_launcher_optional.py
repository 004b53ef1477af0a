"""tg-start runs the OTLP exporter only when TG_OTLP_ENDPOINT is set (registry.OPTIONAL)."""

from __future__ import annotations

from pathlib import Path

import pytest

from trustgraph_base.messaging.broker import free_port
from trustgraph_flow.launcher.launch import Launch
from trustgraph_flow.launcher.preflight import stack_lines
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


def test_tg_start_says_where_traces_go_and_which_servers_store_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A new user set TG_OTLP_ENDPOINT, then TG_STORE_URI, and tg-start said nothing of
    either; without them it says nothing more than before (the README's output)."""
    monkeypatch.delenv("TG_OTLP_ENDPOINT", raising=False)
    monkeypatch.delenv("TG_STORE_URI", raising=False)
    assert stack_lines() == []
    monkeypatch.setenv("TG_OTLP_ENDPOINT", "http://127.0.0.1:6006")
    monkeypatch.setenv("TG_STORE_URI", "a=http://s1:7878 b=http://s2:7878")
    assert stack_lines() == [
        "every trace is also sent as OTLP spans to http://127.0.0.1:6006 (docs/otel.md)",
        "the store keeps the collections on the SPARQL servers a=http://s1:7878 b=http://s2:7878 (docs/store.md)",
    ]
