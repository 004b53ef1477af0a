"""The triples store: one on-disk pyoxigraph store per (user, collection), its writer and queries."""
