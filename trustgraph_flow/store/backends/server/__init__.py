"""The server backend: every collection and its trace index in named graphs of a SPARQL server."""
