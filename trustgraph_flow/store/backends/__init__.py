"""The two backends behind ``core.backend``: ``embedded`` (pyoxigraph stores and sqlite trace
indexes on disk) and ``server`` (every collection in named graphs of a SPARQL 1.1 server)."""
