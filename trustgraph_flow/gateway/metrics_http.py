"""``/api/metrics``: every processor's metrics in the Prometheus text format, and
``/api/metrics/query?query=NAME``, one metric as the Prometheus HTTP API's instant query
answers it (what the official ``tg-show-processor-state``, ``tg-show-token-rate`` and
``tg-verify-system-status`` read). Only a metric's name is a query here, not PromQL.

Every value is labelled with its ``processor`` (and ``job``, the same) and ``instance``;
``processor_up`` is 1 for a processor heard from lately and 0 for one gone silent, and
``processor_info`` lists only those up. No label names a user or a collection.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

from aiohttp import web

from trustgraph_flow.gateway.auth import authenticate
from trustgraph_flow.gateway.failure import as_failure
from trustgraph_flow.gateway.metrics_board import METRICS_BOARD, MetricsBoard
from trustgraph_flow.gateway.metrics_selector import selector

Row = tuple[str, str, dict[str, str], float]  # kind, name, labels, value


def rows(board: MetricsBoard, now: float) -> Iterator[Row]:
    for heard in board.everyone():
        r = heard.report
        who = {"processor": r.processor, "job": r.processor, "instance": r.instance}
        up = board.up(heard, now)
        yield "gauge", "processor_up", who, 1.0 if up else 0.0
        if up:
            yield "gauge", "processor_info", who, 1.0
        yield "gauge", "processor_last_report_age_seconds", who, round(now - heard.when, 3)
        routes = sorted({s.labels["route"] for s in r.samples if "route" in s.labels}) or [""]
        for route in routes:  # the reference's per-consumer state, as tg-show-flow-state reads it
            state = {**who, "route": route, "flow": "default", "consumer_state": "running"}
            yield "gauge", "consumer_state", state, 1.0 if up else 0.0
        for s in r.samples:
            yield s.kind, s.name, {**s.labels, **who}, s.value


def escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def exposition(found: list[Row]) -> str:
    """The Prometheus text format (0.0.4): each metric's TYPE once, then its samples."""
    by_name: dict[str, list[Row]] = {}
    for row in found:
        by_name.setdefault(row[1], []).append(row)
    lines = []
    for name, group in sorted(by_name.items()):
        lines.append(f"# TYPE {name} {group[0][0]}")
        for _, _, labels, value in group:
            shown = ",".join(f'{k}="{escape(v)}"' for k, v in sorted(labels.items()))
            lines.append(f"{name}{{{shown}}} {value:g}")
    return "\n".join(lines) + "\n"


async def metrics_handler(request: web.Request) -> web.Response:
    try:
        authenticate(request)
    except Exception as exc:
        failure = as_failure(exc)
        return web.json_response(failure.body(), status=failure.status)
    found = list(rows(request.app[METRICS_BOARD], time.monotonic()))
    return web.Response(text=exposition(found), content_type="text/plain", charset="utf-8")


def refused(status: int, kind: str, why: str) -> web.Response:
    body = {"status": "error", "errorType": kind, "error": why}
    return web.json_response(body, status=status)


async def metrics_query_handler(request: web.Request) -> web.Response:
    try:
        authenticate(request)
    except Exception as exc:
        return refused(as_failure(exc).status, "unauthorized", str(as_failure(exc).message))
    query = request.query.get("query", "")
    try:
        name, wanted = selector(query)
    except ValueError as exc:
        return refused(
            400,
            "bad_data",
            f"query {query[:80]!r}: {exc}, not a PromQL expression "
            "(GET /api/metrics lists every metric)",
        )
    now = time.monotonic()
    stamp = round(time.time(), 3)
    result: list[dict[str, object]] = [
        {"metric": {"__name__": name, **labels}, "value": [stamp, f"{value:g}"]}
        for _, metric, labels, value in rows(request.app[METRICS_BOARD], now)
        if metric == name and all(labels.get(k) == v for k, v in wanted.items())
    ]
    data = {"resultType": "vector", "result": result}
    return web.json_response({"status": "success", "data": data})


def add_metrics(app: web.Application) -> None:
    app.router.add_get("/api/metrics", metrics_handler)
    app.router.add_get("/api/metrics/query", metrics_query_handler)
