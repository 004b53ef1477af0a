"""DocumentRAG: answer from the nearest chunks, with a query-time trace."""
