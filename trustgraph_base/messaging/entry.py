"""The process entry every processor and the gateway share: settings, logging, signals, exit."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import NoReturn, TypeVar

from pydantic import ValidationError
from pydantic_settings import SettingsError

from trustgraph_base.errors import TrustGraphError
from trustgraph_base.settings import ProcessorSettings, load_settings
from trustgraph_base.wire import describe

log = logging.getLogger(__name__)

S = TypeVar("S", bound=ProcessorSettings)


def run_main(
    name: str,
    settings_cls: type[S],
    argv: list[str] | None,
    body: Callable[[S, asyncio.Event], Awaitable[None]],
    about: str | None = None,
) -> NoReturn:
    """Run a long-lived process: parse settings, log to stderr, stop on SIGTERM/SIGINT.

    A bad setting is one line and exit 2; a startup failure one line and exit 1. The
    process ends with ``os._exit`` once everything is drained and closed: pulsar-client's
    C++ objects can crash in their destructors at interpreter teardown (seen under load as
    an abort or a segfault after a clean stop), and nothing is left to run by then.
    """
    os.umask(0o077)  # every file a processor makes is its owner's alone (0600, folders 0700)
    try:
        settings = load_settings(settings_cls, argv, prog=name, about=about)
    except (ValidationError, SettingsError) as exc:
        detail = describe(exc) if isinstance(exc, ValidationError) else str(exc)
        print(f"{name}: bad setting: {detail}", file=sys.stderr)
        _exit(2)
    logging.basicConfig(
        level=settings.log_level.upper(),
        format=f"%(asctime)s {name} %(levelname)s %(message)s",
        stream=sys.stderr,
    )

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        await body(settings, stop)

    code = 0
    try:
        asyncio.run(main())
    except (TrustGraphError, OSError) as exc:
        log.error("%s", exc)
        code = 1
    except Exception:
        log.exception("%s failed", name)
        code = 1
    _exit(code)


def _exit(code: int) -> NoReturn:
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def touch(path: str) -> None:
    Path(path).write_text(str(time.time()))
