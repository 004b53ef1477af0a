"""``GET /api/v1/health``: what is up and what is down, not just "the gateway answers".

The gateway probes the broker itself (a TCP connect to the first host of its Pulsar URL,
1 s), so health is true under Compose too (under ``tg-start`` that address is a relay
that always accepts, so the launcher's own view of the broker counts too). It also reads the
launcher's state file (``--health-file``): every supervised process with its state
(``up``, ``starting``, ``down``), pid and restart count. Anything down → HTTP 503 with
``status: degraded`` and the names in ``down``; all up → 200 ``status: ok``.
"""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

log = logging.getLogger(__name__)

PROBE_TIMEOUT = 1.0


def broker_address(pulsar_url: str) -> tuple[str, int] | None:
    """(host, port) of the first broker in a ``pulsar://`` or ``pulsar+ssl://`` URL."""
    parts = urlsplit(pulsar_url)
    first = parts.netloc.split(",")[0].rsplit("@", 1)[-1]
    host, _, port = first.rpartition(":")
    if not host or not port.isdigit():
        return None
    return host.strip("[]"), int(port)


async def broker_up(pulsar_url: str) -> bool:
    address = broker_address(pulsar_url)
    if address is None:
        return False
    try:
        _, writer = await asyncio.wait_for(asyncio.open_connection(*address), PROBE_TIMEOUT)
    except (OSError, TimeoutError):
        return False
    writer.close()
    return True


def processes(health_file: str) -> dict[str, Any]:
    """The launcher's view of its processes ({} without a launcher or before its first write)."""
    if not health_file:
        return {}
    try:
        found = json.loads(Path(health_file).read_text())
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


async def report(pulsar_url: str, health_file: str) -> tuple[int, dict[str, Any]]:
    """The HTTP status and body of a health answer."""
    procs = processes(health_file)
    # Under tg-start the gateway reaches the broker through a relay that always accepts:
    # the launcher's "down" (it watches the broker process) is then what says so.
    said_down = procs.get("broker", {}).get("state") == "down"
    broker = "up" if not said_down and await broker_up(pulsar_url) else "down"
    procs["broker"] = {**procs.get("broker", {}), "state": broker}
    down = sorted(
        name for name, p in procs.items() if isinstance(p, dict) and p.get("state") != "up"
    )
    body = {"status": "degraded" if down else "ok", "down": down, "processes": procs}
    return (503 if down else 200), body
