"""Run every benchmark and print one table of figures beside their goals.

    python -m bench            # full runs (several minutes on 2 cores)
    python -m bench --quick    # each benchmark in under a minute
    python -m bench --markdown docs/performance-table.md
    TG_BENCH_DATA=DIR python -m bench    # keep bench_trace_list's 1M load in DIR for the next run

Each benchmark runs as its own process (its own broker and store) and prints its own
details; the closing table collects the ``SUMMARY|`` lines they print. Ratios are
measured against baselines taken in the same run, since these machines are shared.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from bench.summary import PREFIX

BENCHMARKS = [
    "bench_store",
    "bench_trace_ingest",
    "bench_vectors",
    "bench_agent",
    "bench_concurrency",
    "bench_stages",
    "bench_render",
    "bench_cli_start",
    "bench_realmodel",
    "bench_viewer",
    "bench_agent_graph",
    "bench_revocation",
    "bench_trace_list",
    "bench_pdf_positions",
    "bench_large_pdf",
    "bench_signing",
    "bench_signing_passes",
    "bench_otel",
    "bench_answers",
    "bench_prompts",
    "bench_migrate_start",
]


def run(module: str, quick: bool) -> list[list[str]]:
    """Run one benchmark, echo its output, return its summary rows."""
    argv = [sys.executable, "-m", f"bench.{module}", *(["--quick"] if quick else [])]
    print(f"\n=== {module} ===", flush=True)
    rows: list[list[str]] = []
    with subprocess.Popen(argv, stdout=subprocess.PIPE, text=True) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith(PREFIX):
                rows.append(line.rstrip("\n")[len(PREFIX) :].split("|"))
            else:
                print(line, end="", flush=True)
    if proc.returncode != 0:
        rows.append([module, "FAILED", "-", f"exit code {proc.returncode}"])
    return rows


def table(rows: list[list[str]]) -> str:
    header = ["figure", "measured", "goal", "note"]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(4)]
    lines = ["| " + " | ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)) + " |"]
    lines.append("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in rows:
        lines.append("| " + " | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="short runs (< 1 min each)")
    parser.add_argument("--only", nargs="*", choices=BENCHMARKS, help="run only these")
    parser.add_argument("--markdown", type=Path, help="also write the table to this file")
    args = parser.parse_args()
    rows: list[list[str]] = []
    for module in args.only or BENCHMARKS:
        rows.extend(run(module, args.quick))
    rows = [[*r, "", "", "", ""][:4] for r in rows]
    text = table(rows)
    print("\n" + text)
    if args.markdown:
        args.markdown.write_text(text + "\n")


if __name__ == "__main__":
    main()
