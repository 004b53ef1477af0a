"""Where the embedded stack keeps its data by default (light: no third-party imports)."""

from __future__ import annotations

import os
from pathlib import Path


def default_data_dir() -> Path:
    """``$XDG_DATA_HOME/explaingraph``, else ``~/.local/share/explaingraph`` (tg-start's default)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "explaingraph"


def default_processor_data_dir() -> str:
    """Where tg-start's processors keep their data by default: ``<default data dir>/data``."""
    return str(default_data_dir() / "data")
