"""What every part of the store shares: the backend interface, RDF term conversion, the rows
the trace indexes return and the resolution of a link to its chunk, page and document."""
