"""A process of a ``tg-start`` stack, found by what it runs."""

from __future__ import annotations

from pathlib import Path


def child_pid(root: int, module: str) -> int:
    """The pid of the process running ``python -m module`` among ``root``'s (tg-start's)
    children."""
    wanted = module.encode()
    for entry in Path("/proc").iterdir():
        try:
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except (OSError, ValueError):
            continue
        if parent == root and wanted in argv:
            return int(entry.name)
    raise RuntimeError(f"no {module} process under tg-start")
