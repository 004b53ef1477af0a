"""GraphRAG: answer from a focused knowledge subgraph, with a query-time trace."""
