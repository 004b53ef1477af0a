"""A 200 MB PDF loaded as a new user loads it: ``tg-start`` (offline engine), then
``tg-load-document big.pdf`` with its defaults, until the document is ``complete``.

    python -m bench.bench_large_pdf            # 200 MiB: 36 pages of noise images, 20 short
                                               # text pages and one of 500,000 characters
    python -m bench.bench_large_pdf --quick    # 50 MiB

The PDF is made by tests/support/large_pdf.py (the integration test loads a 20 MB one).
Prints the wall time of the load and when each stage was first reported by
tg-load-document (uploading, decoding, chunking, extracting, complete).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import time
from pathlib import Path

from bench.summary import summary

STACK_START = 120.0
LOAD_TIMEOUT = 3600.0


async def load(pdf: Path, data: Path) -> tuple[int, str, list[tuple[float, str]], float]:
    """Start the stack on ``data``, load ``pdf`` with tg-load-document; its exit code, the
    last line it printed, its progress lines with the time each came, and its wall time."""
    from tests.support.launcher import launch
    from tests.support.stack import command_line
    from trustgraph_base.messaging import free_port

    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TG_", "OPENAI_"))}
    launcher = await launch(data, port, env)
    try:
        await launcher.wait_for("explaingraph is up", STACK_START)
        draining = asyncio.create_task(launcher.drain())  # a full pipe would block tg-start
        started = time.monotonic()
        proc = await asyncio.create_subprocess_exec(
            *command_line("tg-load-document"), str(pdf),
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            env={**env, "TRUSTGRAPH_URL": f"http://127.0.0.1:{port}/"},
        )  # fmt: skip
        assert proc.stderr is not None and proc.stdout is not None
        progress: list[tuple[float, str]] = []
        while raw := await asyncio.wait_for(proc.stderr.readline(), LOAD_TIMEOUT):
            progress.append((time.monotonic() - started, raw.decode().rstrip()))
        out = (await proc.stdout.read()).decode().strip()
        code = await proc.wait()
        wall = time.monotonic() - started
        listed = await asyncio.create_subprocess_exec(
            *command_line("tg-list-documents"), "--format", "json",
            stdout=asyncio.subprocess.PIPE,
            env={**env, "TRUSTGRAPH_URL": f"http://127.0.0.1:{port}/"},
        )  # fmt: skip
        rows = json.loads((await listed.communicate())[0] or b"[]")
        status = rows[0]["status"] if rows else "missing"
        last = progress[-1][1] if progress else ""
        return (
            code,
            f"{status} ({out.splitlines()[-1] if out else 'no URI'}); {last}",
            progress,
            wall,
        )
    finally:
        launcher.proc.terminate()
        await asyncio.wait_for(launcher.proc.wait(), 60)
        if "draining" in locals():
            await draining


def main() -> None:
    from tests.support.large_pdf import make_pdf

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="50 MiB instead of 200 MiB")
    args = parser.parse_args()
    size = (50 if args.quick else 200) * 2**20
    with tempfile.TemporaryDirectory(prefix="bench-large-pdf-") as tmp:
        root = Path(tmp)
        pdf = root / "big.pdf"
        made = time.monotonic()
        make_pdf(pdf, size=size, big_text=500_000, text_pages=20)
        mb = pdf.stat().st_size / 1e6
        print(f"made {pdf.name}: {mb:.1f} MB in {time.monotonic() - made:.1f} s", flush=True)
        code, last, progress, wall = asyncio.run(load(pdf, root / "data"))
    firsts: dict[str, float] = {}
    for at, line in progress:
        firsts.setdefault(line.split(" ")[0].rstrip(":"), at)
    for stage, at in firsts.items():
        print(f"  {stage:10} first reported at {at:7.1f} s")
    print(f"tg-load-document exit {code} after {wall:.1f} s; {last}")
    ok = code == 0 and last.startswith("complete")  # the status tg-list-documents shows
    summary(
        f"{mb:.0f} MB PDF loaded (tg-load-document)",
        f"{'complete' if ok else 'FAILED'} in {wall:.0f} s",
        "complete",
        f"exit {code}",
    )
    if not ok:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
