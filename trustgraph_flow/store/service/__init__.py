"""The store processor's parts under its wiring (``processor.py``): settings, state and lifespan,
the write path (``writer.py``, ``intake.py``), the triples and SPARQL services (``queries.py``),
explain operations (``operations.py``, ``streaming.py``), clocks (``timers.py``)."""
