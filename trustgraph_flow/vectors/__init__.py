"""The vector index: per user, collection and kind, persisted atomically on disk."""
