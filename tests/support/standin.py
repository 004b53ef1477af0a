"""Stand-in services for a test: a processor module look-alike around one ``Processor``."""

from __future__ import annotations

from trustgraph_base.messaging import Processor
from trustgraph_base.settings import ProcessorSettings


class StandIn:
    """A processor module look-alike: ``proc`` with the default settings class."""

    def __init__(self, proc: Processor[ProcessorSettings]) -> None:
        self.proc = proc
