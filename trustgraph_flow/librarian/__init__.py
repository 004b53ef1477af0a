"""The librarian processor: durable document store and ingestion progress."""
