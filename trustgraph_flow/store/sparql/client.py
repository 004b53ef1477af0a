"""A client of one SPARQL 1.1 Protocol server (query and update), and SPARQL text of pyoxigraph terms.

``store_uri`` names the dataset's base URL; queries go to ``<base>/query`` and updates to
``<base>/update`` — the endpoints of ``oxigraph serve`` (``http://host:7878``) and of a
Jena Fuseki dataset (``http://host:3030/<dataset>``). Connections are kept alive, one per
thread. Every term put into SPARQL text here is a pyoxigraph term (so already checked by
pyoxigraph) written by ``term``: no caller's string is ever pasted into a query.
"""

from __future__ import annotations

import http.client
import threading
import time
from collections.abc import Iterable
from urllib.parse import urlencode, urlsplit

import pyoxigraph as ox

from trustgraph_base.errors import ErrorType, ServiceError

_JSON = "application/sparql-results+json"
_TSV = "text/tab-separated-values"  # the store's own queries: terms in N-Triples syntax, half JSON's size
_NTRIPLES = "application/n-triples"


class StoreUnavailable(ConnectionError):
    """The server cannot be reached or failed (5xx): the write is retried, the read answers an error."""


class StoreTimeout(StoreUnavailable, TimeoutError):
    """The server took the request and did not answer within the time given: it hangs, or the
    query is slow (the store's own reads answer ``store-unavailable``; a caller's SPARQL
    query, caught as a TimeoutError, answers ``timeout``)."""

    def __init__(self, uri: str, seconds: float, shard: str = "") -> None:
        who = f"shard {shard!r} ({uri})" if shard else f"SPARQL server {uri}"
        super().__init__(f"{who} did not answer within {seconds:g} s")
        self.uri, self.seconds = uri, seconds


class StoreRefused(ValueError):
    """The server refused a request (4xx), naming its reason."""


def term(node: ox.NamedNode | ox.BlankNode | ox.Literal | ox.Triple) -> str:
    """A pyoxigraph term as SPARQL 1.2 text (N-Triples syntax; ``<<( s p o )>>`` for a triple term)."""
    if isinstance(node, ox.Triple):
        return f"<<( {term(node.subject)} {term(node.predicate)} {term(node.object)} )>>"
    return str(node)


def literal(text: str) -> str:
    """A plain string literal as SPARQL text (escaped by pyoxigraph)."""
    return str(ox.Literal(text))


def values(var: str, nodes: Iterable[ox.NamedNode | ox.Literal | ox.Triple]) -> str:
    """``VALUES ?var { … }`` of terms (each written by ``term``)."""
    return f"VALUES ?{var} {{ {' '.join(term(n) for n in nodes)} }}"


class SparqlServer:
    """Query and update one server; blocking (the store runs these on its threads)."""

    def __init__(self, uri: str, timeout: float = 30.0) -> None:
        parts = urlsplit(uri)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"store_uri {uri!r} is not an http(s) URL of a SPARQL server")
        self.uri = uri.rstrip("/")
        self._https = parts.scheme == "https"
        self._host = parts.hostname
        self._port = parts.port
        self._path = parts.path.rstrip("/")
        self.timeout = timeout
        self._local = threading.local()
        self._lock = threading.Lock()
        self._all: list[http.client.HTTPConnection] = []

    def _conn(self, timeout: float) -> http.client.HTTPConnection:
        conn: http.client.HTTPConnection | None = getattr(self._local, "conn", None)
        if conn is None:
            cls = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
            conn = cls(self._host, self._port, timeout=timeout)
            self._local.conn = conn
            with self._lock:
                self._all.append(conn)
        conn.timeout = timeout
        if conn.sock is not None:
            conn.sock.settimeout(timeout)
        return conn

    def _post(
        self,
        endpoint: str,
        text: str,
        accept: str,
        timeout: float | None,
        params: list[tuple[str, str]] | None = None,
    ) -> bytes:
        """POST a query or update as the request body (the protocol's ``application/sparql-query``
        and ``-update``: a form would percent-encode every byte of it, the client's largest cost
        for a query naming a few hundred IRIs); ``params`` (the dataset) go in the URL."""
        kind = "application/sparql-query" if endpoint == "query" else "application/sparql-update"
        headers = {"Content-Type": f"{kind}; charset=utf-8", "Accept": accept}
        path = f"{self._path}/{endpoint}" + (f"?{urlencode(params)}" if params else "")
        body = text.encode()
        wait = self.timeout if timeout is None else timeout
        for attempt in (1, 2):  # a kept-alive connection the server closed is opened again once
            conn = self._conn(wait)
            resp: http.client.HTTPResponse | None = None
            try:
                conn.request("POST", path, body, headers)
                resp = conn.getresponse()
                data = resp.read()
            except (OSError, http.client.HTTPException) as exc:  # TimeoutError is an OSError
                if resp is not None:  # cut short: it holds the socket the connection let go
                    resp.close()
                conn.close()
                self._local.conn = None
                with self._lock:  # else kept until close(): one a refused request, for days
                    if conn in self._all:  # close() may have taken them all meanwhile
                        self._all.remove(conn)
                if isinstance(exc, TimeoutError):
                    raise StoreTimeout(self.uri, wait) from None
                if attempt == 2:
                    raise StoreUnavailable(f"SPARQL server {self.uri} unreachable: {exc}") from None
                continue
            if resp.status >= 500:
                raise StoreUnavailable(
                    f"SPARQL server {self.uri} failed ({resp.status}): {data[:300].decode(errors='replace')}"
                )
            if resp.status >= 400:
                raise StoreRefused(data[:1000].decode(errors="replace").strip())
            return data
        raise AssertionError("unreachable")

    def select(
        self,
        query: str,
        *,
        default: list[str] | None = None,
        named: list[str] | None = None,
        timeout: float | None = None,
    ) -> ox.QuerySolutions | ox.QueryBoolean:
        """A SELECT or ASK query's results (``default``/``named``: the protocol's dataset)."""
        params = [("default-graph-uri", g) for g in default or []]
        params += [("named-graph-uri", g) for g in named or []]
        data = self._post("query", query, _JSON, timeout, params)
        return ox.parse_query_results(data, ox.QueryResultsFormat.JSON)

    def rows(self, query: str) -> list[ox.QuerySolution]:
        """The solutions of one of the store's own SELECT queries (as TSV: half the bytes of
        JSON and twice as fast to parse, every RDF 1.2 term kept)."""
        data = self._post("query", query, _TSV, None)
        result = ox.parse_query_results(data, ox.QueryResultsFormat.TSV)
        assert isinstance(result, ox.QuerySolutions)
        return list(result)

    def ask(self, query: str) -> bool:
        return bool(self.select(query))

    def construct(
        self, query: str, *, default: list[str], named: list[str], timeout: float | None = None
    ) -> list[ox.Triple]:
        """A CONSTRUCT or DESCRIBE query's triples."""
        params = [("default-graph-uri", g) for g in default]
        params += [("named-graph-uri", g) for g in named]
        data = self._post("query", query, _NTRIPLES, timeout, params)
        return [q.triple for q in ox.parse(data, ox.RdfFormat.N_TRIPLES)]

    def update(self, text: str) -> None:
        """Run an update (one transaction on Oxigraph and Fuseki); retried once if unreachable."""
        self._post("update", text, "*/*", None)

    def close(self) -> None:
        """Close every thread's connection."""
        with self._lock:
            conns, self._all = self._all, []
        for conn in conns:
            conn.close()

    def __del__(self) -> None:
        # A client dropped without close() (a processor stopped mid-teardown) still closes
        # its connections, instead of leaving open sockets for the garbage collector.
        if getattr(self, "_all", None):  # not when __init__ refused the URI
            self.close()

    def wait_ready(self, within: float = 30.0) -> None:
        """Block until the server answers a query (it may start after this processor)."""
        deadline = time.monotonic() + within
        while True:
            try:  # a server that hangs is not waited for past ``within`` either
                self.select(
                    "ASK {}", timeout=max(0.1, min(self.timeout, deadline - time.monotonic()))
                )
                return
            except (StoreUnavailable, TimeoutError):
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)


def refused(exc: StoreRefused) -> ServiceError:
    """A server's refusal of a caller's query as the service's error."""
    return ServiceError(ErrorType.SPARQL_SYNTAX, f"the SPARQL server refused the query: {exc}")
