"""Text completion: an OpenAI-compatible HTTP client and the deterministic offline engine."""
