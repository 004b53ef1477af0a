"""The sharded store: collections spread over several SPARQL servers by a placement table."""
