"""The store processor's settings (``tg-proc-store --help`` lists them)."""

from __future__ import annotations

from pydantic import Field, field_validator

from trustgraph_base.durations import parse_duration
from trustgraph_base.settings import ProcessorSettings
from trustgraph_flow.store.backends.sharded.opening import parse_shards
from trustgraph_flow.store.service.held import HELD_MESSAGES, HELD_QUADS
from trustgraph_flow.store.sparql.client import SparqlServer


class StoreSettings(ProcessorSettings):
    """Settings of the store processor."""

    open_stores: int = 32
    """(user, collection) stores kept open at once."""
    read_threads: int = Field(default=2, ge=1)
    """Threads serving queries."""
    sparql_timeout: float = Field(default=30.0, gt=0)
    """Seconds after which a SPARQL query is stopped (its worker killed) and answers 'timeout'."""
    sparql_workers: int = Field(default=2, ge=1)
    """Processes running SPARQL queries (each killed at the time limit)."""
    server_max_patterns: int = Field(default=500, ge=0)
    """With store_uri: queries of more triple patterns and filters than this are refused
    before they reach the server (oxigraph serve 0.5 aborts on ~650); 0: no bound."""
    store_uri: str = ""
    """A SPARQL 1.1 server holding every collection, e.g. http://oxigraph:7878 (oxigraph serve)
    or http://fuseki:3030/tg (a Fuseki 6 dataset); several (space- or comma-separated, each
    optionally name=URL): collections sharded over them, placed by a table on the first
    (docs/store.md); empty: embedded pyoxigraph under <data-dir>/store."""
    store_control: str = ""
    """Sharded: the SPARQL server holding the placement table (empty: the first of store_uri)."""
    shard_wait: float = Field(default=10.0, ge=0)
    """Sharded: seconds the store waits at start for its shards (together) to answer; one that
    has not is left until it does (its writes held, its reads answer store-unavailable naming
    it). The control server is waited for 30 s and must answer (the placement is there)."""
    trace_wait: float = Field(default=3.0, ge=0, le=60)
    """Seconds a read of one trace by id (get-trace, export-trace, verify-trace, diff-traces,
    delete-trace) waits for a trace not stored yet in a collection the store holds (its
    messages on their way: a trace id read at once after the answer), asking again with
    backoff, before it answers not-found; 0: at once."""
    held_messages: int = Field(default=HELD_MESSAGES, ge=1)
    """Writes held for a store server that is down (docs/store.md): past this many messages
    the store takes no more until it answers (the rest wait in the broker)."""
    held_quads: int = Field(default=HELD_QUADS, ge=1)
    """… or past this many quads held in memory (~100-200 MB)."""
    retention: str = ""
    """Purge traces older than this by itself, e.g. 30d (empty: keep them all)."""
    retention_interval: float = Field(default=3600.0, gt=0)
    """Seconds between retention passes."""
    signing: bool = True
    """Sign each trace when it ends and keep the append-only log (docs/audit.md)."""
    signing_key: str = ""
    """The Ed25519 private key (PEM, mode 0600); empty: <data-dir>/signing/key.pem, made at first start."""
    signing_public: str = ""
    """A folder of trusted public keys (*.pem, every key ever used); empty: <data-dir>/signing/public."""
    signing_delay: float = Field(default=0.2, ge=0, le=60)
    """Embedded store: sign ended traces this many seconds later, in batches, off the write
    path (docs/audit.md; nothing is lost on a crash); 0: as each batch is written."""
    migrate_again: bool = False
    """At start, run every migration step again in every collection, even where marked done
    (docs/store.md, "Migration at start"): for old-form triples written after a collection
    was migrated, by a processor of an older version."""
    log_chain: str = Field(default="", pattern=r"^[A-Za-z0-9_-]{0,64}$")
    """This writer's chain in each collection's log; empty: 'local' embedded, a new one per process on a server."""

    @field_validator("store_uri")
    @classmethod
    def _server(cls, value: str) -> str:
        for _, url in parse_shards(value):
            SparqlServer(url)  # not an http(s) URL: stops the processor at start, naming it
        return value.strip()

    @field_validator("store_control")
    @classmethod
    def _control(cls, value: str) -> str:
        if value.strip():
            SparqlServer(value.strip())
        return value.strip()

    @property
    def sharded(self) -> bool:
        """Whether store_uri names several servers (or a control server apart)."""
        return len(parse_shards(self.store_uri)) > 1 or bool(self.store_control and self.store_uri)

    @field_validator("retention")
    @classmethod
    def _period(cls, value: str) -> str:
        if value.strip():
            parse_duration(value)  # a bad period stops the processor at start, naming it
        return value.strip()
