"""Upload and processing progress on stderr: a rich bar on a terminal, plain lines otherwise."""

from __future__ import annotations

import sys
from types import TracebackType
from typing import TYPE_CHECKING, Any

import click

from trustgraph_cli.render.text import plural

if TYPE_CHECKING:
    from trustgraph_base.schema.documents import DocumentInfo


class Progress:
    """Report ``update(stage, done, total, unit)`` calls; ``finish`` prints the outcome."""

    def __init__(self, *, live: bool) -> None:
        self.live = live
        self._bar: Any = None
        self._task: Any = None
        self._last: tuple[str, int, int] | None = None
        self._printed: tuple[str, int, int] | None = None  # plain mode's last line
        self._summary: str | None = None

    @classmethod
    def detect(cls) -> Progress:
        """A live bar only when stderr is a terminal."""
        try:
            tty = sys.stderr.isatty()
        except (AttributeError, ValueError):
            tty = False
        return cls(live=tty)

    def __enter__(self) -> Progress:
        if self.live:
            from rich.console import Console
            from rich.progress import BarColumn, TaskProgressColumn, TextColumn, TimeElapsedColumn
            from rich.progress import Progress as Bar

            self._bar = Bar(
                TextColumn("{task.description:<11}"),
                BarColumn(),
                TaskProgressColumn(),
                TextColumn("{task.fields[counts]}"),
                TimeElapsedColumn(),
                console=Console(stderr=True),
            )
            self._bar.start()
            self._task = self._bar.add_task("starting", total=None, counts="")
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._bar is not None:
            self._bar.stop()
        if self._summary is not None:  # after the bar, so it is not drawn over
            click.echo(self._summary, err=True)

    def update(self, stage: str, done: int, total: int, unit: str = "") -> None:
        """Show the current stage; plain mode prints a line only when something changed."""
        if (stage, done, total) == self._last:
            return
        # a count alone agrees with its number ("1 chunk", "7 pages"); units are plain plurals
        alone = plural(done, unit.removesuffix("s")) if unit else str(done)
        counts = f"{done}/{total} {unit}" if total else alone if done else ""
        if self._bar is not None:
            self._bar.update(
                self._task, description=stage, completed=done, total=total or None, counts=counts
            )
        elif (
            self._printed is None
            or self._printed[0] != stage
            or _step(self._printed, done, total, stage)
        ):
            click.echo(f"{stage} {counts}".rstrip(), err=True)
            self._printed = (stage, done, total)
        self._last = (stage, done, total)

    def finish(self, info: DocumentInfo) -> None:
        """The final state: counts when complete, the reason when failed."""
        if self._bar is not None:
            total = max(info.chunks, 1)
            self._bar.update(
                self._task,
                description=info.status,
                completed=total,
                total=total,
                counts=f"{info.chunks_done}/{info.chunks} chunks",
            )
            self._bar.refresh()  # a small file finishes before the first refresh: draw it
        if info.status == "complete":
            counts = ", ".join(
                plural(n, w)
                for n, w in ((info.pages, "page"), (info.chunks, "chunk"), (info.edges, "edge"))
            )
            self._summary = f"complete: {counts}"


def _step(last: tuple[str, int, int], done: int, total: int, stage: str) -> bool:
    """Plain mode prints progress in steps of about a tenth (of the total when known).

    ``last`` is the last line printed, not the last update: a poll often brings only a few
    chunks, and steps measured from the previous poll would never reach a tenth.
    """
    if total > 0:
        return done == total or done - last[1] >= max(1, total // 10)
    return stage in ("decoding", "chunking") and done - last[1] >= max(1, last[1] // 10)
