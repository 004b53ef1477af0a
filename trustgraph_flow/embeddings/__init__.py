"""Embeddings: dependency-light hashing vectors, or sentence-transformers when installed."""
