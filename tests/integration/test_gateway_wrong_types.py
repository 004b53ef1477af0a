"""Every request field of every service, sent with a JSON type it does not take, is answered
``bad-request`` naming the field, never ``internal-error``, and leaves no traceback in the
gateway's log: as the admin and as a key limited to some collections (whose check of the
collection ran before validation and raised on ``"collection": ["a", "b"]``)."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from tests.support.stack import ADMIN, Stack, create_key
from trustgraph_base.errors import WireError
from trustgraph_base.messaging import SERVICES
from trustgraph_base.wire import from_json
from trustgraph_flow.gateway.edge import INTERNAL_FIELDS, OPERATOR_FIELDS

# A request each service takes; each field is then given each of these JSON values in turn.
VALID: dict[str, dict[str, Any]] = {
    "agent": {"question": "q"},
    "graph-rag": {"query": "q"},
    "document-rag": {"query": "q"},
    "text-completion": {"prompt": "p"},
    "embeddings": {"texts": ["t"]},
    "vectors": {"operation": "query"},
    "triples": {},
    "sparql": {"query": "ASK {}"},
    "explain": {"operation": "list-traces"},
    "librarian": {"operation": "list-documents"},
    "config": {"operation": "config"},
    "flow": {"operation": "list-flows"},
    "knowledge": {"operation": "list-kg-cores"},
    "prompt": {"id": "extract-edges", "variables": {"text": "t"}},
    "reranker": {
        "queries": [{"query_id": "q", "query_text": "q"}],
        "documents": [{"document_id": "d", "document_text": "d"}],
    },
}
VALUES: list[Any] = [["a", "b"], {"k": "v"}, 7, 2.5, True, "text", [{"k": 1}]]
# Fields inside a field that the gateway reads itself before validating.
NESTED = [
    (
        "librarian",
        {
            "operation": "add-processing",
            "processing-metadata": {"id": "p1", "document-id": "d1", "collection": v},
        },
    )
    for v in (["a", "b"], {"k": "v"}, 7)
]


def wrong_requests() -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(service, field, request) for every field given a JSON type it does not take."""
    assert set(VALID) == set(SERVICES)
    for service, spec in SERVICES.items():
        base = VALID[service]
        from_json(spec.request, base, tolerant=True)  # the base itself is valid
        for name, info in spec.request.model_fields.items():
            wire = info.alias or name
            if name in INTERNAL_FIELDS.get(service, ()):
                continue  # dropped at the edge for everyone, whatever it holds
            for value in VALUES:
                request = {**base, wire: value}
                try:
                    from_json(spec.request, request, tolerant=True)
                except WireError:
                    yield service, wire, request
    for service, request in NESTED:
        yield service, "processing-metadata.collection", request


@pytest.fixture
async def stack(pulsar_url: str, prefix: str, tmp_path: Path) -> AsyncIterator[Stack]:
    # No processors: every one of these requests must be answered by the gateway itself.
    options = {"request_timeout": 5.0}
    async with Stack(pulsar_url, prefix, [], data_dir=tmp_path, token=ADMIN, gateway=options) as s:
        yield s


async def test_wrong_json_types_are_bad_requests_without_tracebacks(
    stack: Stack, caplog: pytest.LogCaptureFixture
) -> None:
    cases = list(wrong_requests())
    assert len(cases) > 150 and {s for s, _, _ in cases} == set(SERVICES)
    limited = await create_key(stack, "alice", "--collection", "default", "--collection", "work")
    caplog.set_level(logging.INFO)
    async with aiohttp.ClientSession() as http:
        for token in (ADMIN, limited):
            url = f"{stack.url}api/v1/socket?token={token}"
            async with http.ws_connect(url) as ws:
                for n, (service, _, request) in enumerate(cases):
                    await ws.send_str(json.dumps({"id": n, "service": service, "request": request}))
                answers: dict[int, dict[str, Any]] = {}
                while len(answers) < len(cases):
                    frame = json.loads(await ws.receive_str(timeout=30))
                    answers[frame["id"]] = frame
            for n, (service, field, request) in enumerate(cases):
                if token != ADMIN and field in OPERATOR_FIELDS.get(service, ()):
                    assert answers[n].get("error", {}).get("type") == "timeout"  # dropped: sent on
                    continue
                error = answers[n].get("error") or {}
                assert error.get("type") == "bad-request", (service, field, request, answers[n])
                assert field.split(".")[-1].replace("-", "_") in error["message"].replace(
                    "-", "_"
                ), (field, error)
        headers = {"Authorization": f"Bearer {limited}"}
        body = {"p": {"t": "i", "i": "urn:p"}, "collection": ["a", "b"]}
        rest = f"{stack.url}api/v1/flow/default/service/triples"
        async with http.post(rest, json=body, headers=headers) as resp:
            error = (await resp.json())["error"]
            assert (resp.status, error["type"]) == (200, "bad-request")
            assert error["message"] == "collection: must be a string (a name), not a list"
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
