"""Shared core: schemas, wire codec, RDF terms, provenance builders and Pulsar messaging."""
