"""The metrics' Prometheus text: a label value is escaped, only a metric's name is a query,
and a processor is up until it misses three reports."""

from __future__ import annotations

from trustgraph_base.meter import Meter
from trustgraph_base.schema.metrics import MetricSample, MetricsReport
from trustgraph_flow.gateway.metrics_board import MetricsBoard
from trustgraph_flow.gateway.metrics_http import exposition, rows
from trustgraph_flow.gateway.metrics_selector import is_metric_name, selector


def test_label_values_are_escaped() -> None:
    text = exposition([("counter", "x_total", {"model": 'a "b"\\\nc'}, 2.0)])
    assert text == '# TYPE x_total counter\nx_total{model="a \\"b\\"\\\\\\nc"} 2\n'


def test_only_a_metric_name_is_a_query() -> None:
    assert is_metric_name("processor_info") and is_metric_name("ns:x_total")
    for bad in ("", "9lives", "rate(x[5m])", 'x{a="b"}', "x y", "sum by (a) (x)"):
        assert not is_metric_name(bad), bad
    assert selector("up") == ("up", {})
    assert selector('consumer_state{consumer_state="running",flow="default"}') == (
        "consumer_state",
        {"consumer_state": "running", "flow": "default"},
    )
    assert selector('x{ a = "b" }'.replace(" = ", "=")) == ("x", {"a": "b"})
    assert selector('x{a="q\\"uote"}') == ("x", {"a": 'q"uote'})
    for bad in ('x{a!="b"}', 'x{a=~"b"}', 'x{a="b"', 'x{a="b}', "rate(x[5m])", '{a="b"}'):
        try:
            selector(bad)
        except ValueError:
            continue
        raise AssertionError(bad)


def test_a_processor_is_down_after_three_missed_reports() -> None:
    meter = Meter()
    with meter.timed("handling_seconds", route="r"):
        meter.add("messages_total", route="r", outcome="done")
    samples = [
        MetricSample(kind=k, name=n, labels=dict(ls), value=v) for k, n, ls, v in meter.samples()
    ]
    board = MetricsBoard()
    board.take(
        MetricsReport(processor="p", instance="h:1", at=1.0, every=2.0, samples=samples), 100.0
    )
    board.take(MetricsReport(processor="p", instance="h:1", at=0.5, every=2.0), 101.0)  # older
    live = {(n, v) for _, n, _, v in rows(board, 106.0)}
    assert ("processor_up", 1.0) in live and ("processor_info", 1.0) in live
    assert ("messages_total", 1.0) in live and ("handling_seconds_count", 1.0) in live
    assert ("in_flight", 0.0) in live
    gone = {(n, v) for _, n, _, v in rows(board, 106.5)}
    assert ("processor_up", 0.0) in gone and not any(n == "processor_info" for n, _ in gone)
