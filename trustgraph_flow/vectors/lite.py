"""Milvus Lite, the embedded default of the vector index: its file under the data folder,
and the process milvus-lite starts for it (released on close, checked after an error)."""

from __future__ import annotations

import logging
import os
from pathlib import Path

log = logging.getLogger(__name__)


def lite_file(data_dir: Path) -> Path:
    """``<data_dir>/vectors/milvus.db`` (its folder made), with Milvus Lite's logging set."""
    root = data_dir / "vectors"
    root.mkdir(parents=True, exist_ok=True)
    old = sorted(root.glob("*/*.vec"))
    if old:
        log.warning(
            "%d index files of the old format under %s are not read: re-load those "
            "documents to index them in Milvus",
            len(old),
            root,
        )
    # Milvus Lite's process inherits our environment: its errors to our stderr, and no
    # log file of its own in /tmp for every start
    os.environ.setdefault("GLOG_logtostderr", "1")
    os.environ.setdefault("GLOG_minloglevel", "2")
    return root / "milvus.db"


def release(path: Path) -> None:
    """Stop the Milvus Lite process serving ``path`` (it releases its folder)."""
    from milvus_lite.server_manager import server_manager_instance

    server_manager_instance.release_server(str(path))


def lite_exit(path: Path) -> str | None:
    """Why the Milvus Lite process of ``path`` is not running, or None if it is."""
    from milvus_lite.server_manager import server_manager_instance

    # milvus-lite 2.5 keeps its servers by resolved path, each with its Popen as ``_p``
    server = server_manager_instance._servers.get(str(path.absolute().resolve()))
    child = getattr(server, "_p", None)
    if child is not None and child.poll() is None:
        return None
    return f"status {child.returncode}" if child is not None else "not running"


def lite_died(path: Path) -> bool:
    """Has the Milvus Lite process of ``path`` exited (logged: it is to be started again)?"""
    dead = lite_exit(path)
    if dead is not None:
        log.warning("Milvus Lite has exited (%s); starting it again", dead)
    return dead is not None
