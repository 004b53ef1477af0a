"""The same runtime against a real Apache Pulsar (testcontainers): skipped without Docker."""

from __future__ import annotations

import asyncio
import os
import uuid
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import RunningProcessors
from tests.support.standin import echo_processor
from trustgraph_base.messaging import Bus, RequestClient, Topics
from trustgraph_base.messaging.broker import wait_for_port
from trustgraph_base.messaging.services import TEXT_COMPLETION
from trustgraph_base.schema import TextCompletionRequest
from trustgraph_base.settings import ProcessorSettings

PULSAR_IMAGE = "apachepulsar/pulsar:4.0.4"

pytestmark = pytest.mark.docker


def docker_available() -> bool:
    """A Docker engine answers a ping (checked without leaking the probe's socket)."""
    if not (os.environ.get("DOCKER_HOST") or Path("/var/run/docker.sock").exists()):
        return False
    import docker

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        try:
            client = docker.from_env(timeout=3)
            try:
                return bool(client.ping())
            finally:
                client.close()
        except Exception:
            return False


@pytest.fixture(scope="module")
def real_pulsar_url() -> Iterator[str]:
    if not docker_available():
        pytest.skip("no Docker engine: the real-Pulsar tests run only where one exists")
    from testcontainers.core.container import DockerContainer
    from testcontainers.core.waiting_utils import wait_for_logs

    container = (
        DockerContainer(PULSAR_IMAGE)
        .with_command("bin/pulsar standalone --no-functions-worker -nss")
        .with_exposed_ports(6650, 8080)
    )
    container.start()
    try:
        wait_for_logs(container, "messaging service is ready", timeout=180)
        host, port = container.get_container_host_ip(), int(container.get_exposed_port(6650))
        wait_for_port(host, port, timeout=30)
        yield f"pulsar://{host}:{port}"
    finally:
        container.stop()


async def test_request_response_on_real_pulsar(
    real_pulsar_url: str, processors: RunningProcessors
) -> None:
    prefix = f"t{uuid.uuid4().hex[:10]}"
    await processors.start(
        echo_processor(), ProcessorSettings(pulsar_url=real_pulsar_url, topic_prefix=prefix)
    )
    bus = Bus(real_pulsar_url)
    client = RequestClient(bus, Topics(prefix), TEXT_COMPLETION, "tester")
    try:
        pieces = [
            r.response
            async for r in client.stream(TextCompletionRequest(prompt="on real pulsar"), timeout=60)
        ]
        assert pieces == ["on", "real", "pulsar"]
    finally:
        await client.close()
        await bus.close()
        await asyncio.sleep(0)
