"""Process lifetime helpers for launchers (no messaging imports: the CLI starts fast)."""

from __future__ import annotations

import ctypes
import os
import signal
import sys
from collections.abc import Callable

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def die_with_parent() -> Callable[[], None] | None:
    """A ``preexec_fn`` that makes the child get SIGKILL when the process starting it dies.

    Linux only (``prctl(PR_SET_PDEATHSIG)``); elsewhere None, and children outlive a
    killed launcher (``tg-stop`` and the next ``tg-start`` then stop them from the pids
    recorded in the run directory). The signal follows the thread that forked: call
    ``Popen`` from the main thread.
    """
    if not sys.platform.startswith("linux"):
        return None
    parent = os.getpid()
    libc = ctypes.CDLL(None, use_errno=True)

    def arm() -> None:
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:  # the parent died before the signal was armed
            os._exit(1)

    return arm
