"""SPARQL: which text may run (``check``), running it in killable workers (``pool``), its
results (``results``, ``projection``) and the client of a SPARQL 1.1 server (``client``)."""
