"""A request client for one service as a pytest fixture: on the test's bus, closed after it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from trustgraph_base.messaging import Bus, RequestClient, ServiceSpec, Topics


def client_fixture(spec: ServiceSpec[Any, Any], name: str) -> Any:
    """``client = client_fixture(VECTORS, "vectors-tester")`` in a test module gives its tests
    a ``client`` fixture: a ``RequestClient`` for ``spec`` named ``name``."""

    @pytest.fixture(name="client")
    async def client(bus: Bus, topics: Topics) -> AsyncIterator[RequestClient[Any, Any]]:
        c: RequestClient[Any, Any] = RequestClient(bus, topics, spec, name)
        yield c
        await c.close()

    return client
