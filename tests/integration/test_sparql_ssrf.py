"""D1 on the real stack: SERVICE never makes the store fetch a URL, whatever the escaping."""

from __future__ import annotations

from pathlib import Path

import aiohttp
from aiohttp import web

from tests.support.stack import Stack
from trustgraph_flow.store.processor import proc as store


async def test_service_queries_reach_no_server(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    hits: list[str] = []

    async def record(request: web.Request) -> web.Response:
        hits.append(request.path_qs)
        body = '{"head":{"vars":["x"]},"results":{"bindings":[{"x":{"type":"literal","value":"leak"}}]}}'
        return web.Response(text=body, content_type="application/sparql-results+json")

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", record)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    internal = f"<http://127.0.0.1:{port}/internal?secret=1>"
    queries = {
        "d1": f'SELECT * WHERE {{ BIND("x\\\\" AS ?z) SERVICE {internal} {{ ?x ?p ?o }} BIND("y" AS ?w) }}',
        "u-escape": f'SELECT * WHERE {{ BIND("\\u0022" AS ?a) SERVICE {internal} {{ ?s ?p ?o }} BIND("\\u0022" AS ?b) }}',
        "plain": f"SELECT * WHERE {{ SERVICE {internal} {{ ?x ?p ?o }} }}",
    }
    try:
        async with aiohttp.ClientSession() as http, http.get(f"http://127.0.0.1:{port}/probe"):
            pass
        assert hits == ["/probe"]  # the server records what reaches it
        hits.clear()
        async with Stack(pulsar_url, prefix, [store], data_dir=tmp_path) as stack:
            for name, query in queries.items():
                code, out, err = await stack.cli("tg-sparql", "-U", "bob", query)
                assert (code, out) == (1, ""), name
                assert "[sparql-service-refused]" in err or "[sparql-unsupported]" in err, err
            assert hits == []
    finally:
        await runner.cleanup()
