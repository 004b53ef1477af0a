"""Messages and bytes the broker accepted, by topic, from pulsar-lite's own metrics.

``tg-start`` runs pulsar-lite with its Prometheus endpoint on (``[metrics]`` in the run
directory's ``broker/pulsar-lite.toml``); its ``pulsar_in_messages_total`` and
``pulsar_in_bytes_total`` count what was published to each topic. Two readings around a
phase give the messages each topic carried then, with no patch to any process and no
subscription of the bench's own (which would add receives to count them).
"""

from __future__ import annotations

import re
import tomllib
import urllib.request
from collections import Counter
from pathlib import Path

_SAMPLE = re.compile(r'^pulsar_in_(messages|bytes)_total\{[^}]*topic="([^"]+)"[^}]*\} (\S+)$')


def metrics_url(stack_data: Path) -> str:
    """The broker's metrics address, from the run directory ``tg-start`` made."""
    config = tomllib.loads((stack_data / "broker" / "pulsar-lite.toml").read_text())
    return f"http://{config['metrics']['addr']}/metrics"


def reading(url: str) -> Counter[str]:
    """Messages (``topic``) and bytes (``topic bytes``) published so far, by topic: the
    short name, less the prefix and a reply topic's caller."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback only
    with opener.open(url, timeout=10) as resp:
        text = resp.read().decode()
    found: Counter[str] = Counter()
    for line in text.splitlines():
        match = _SAMPLE.match(line)
        if match is None:
            continue
        kind, topic, value = match.groups()
        name = topic.rsplit("/", 1)[-1].split(".", 1)[-1]  # "tg.agent.request" → "agent.request"
        name = name.split(".reply.", 1)[0] + ".reply" if ".reply." in name else name
        found[name if kind == "messages" else f"{name} bytes"] += int(float(value))
    return found


def per_unit(before: Counter[str], after: Counter[str], units: float) -> str:
    """The messages per unit between two readings: in all, then by topic (most first)."""
    grew = {k: v - before.get(k, 0) for k, v in after.items() if not k.endswith(" bytes")}
    grew = {k: v for k, v in grew.items() if v > 0}
    total = sum(grew.values()) / units
    size = sum(after[k] - before.get(k, 0) for k in after if k.endswith(" bytes")) / units
    parts = ", ".join(
        f"{k} {v / units:.2f}" for k, v in sorted(grew.items(), key=lambda kv: -kv[1])
    )
    return f"{total:.1f} messages ({size / 1000:.1f} kB): {parts}"
