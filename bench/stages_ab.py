"""CPU per agent question in two trees, in the same minutes: ``bench_stages`` runs alternated.

    python -m bench.stages_ab --against DIR [--also NAME=DIR ...] [--rounds 3] [bench_stages' flags, e.g. --quick]

Runs ``python -m bench.bench_stages`` in DIR (the baseline: another checkout, e.g. a
worktree of main) and in this tree one after the other, ``--rounds`` times, DIR first in
odd rounds and last in even ones (``ab.alternate``), each with its own code (``bench/ab.py``: every process of the stack is that tree's).
The machine is shared: the load moves from minute to minute, so alternating short runs
gives both trees the same minutes. Prints each run's figure with the load averages
(``/proc/loadavg``) before it, and per tree the median over its runs of the CPU per agent
question over every process, and of each process's share of it. Each ``--also NAME=DIR``
adds a tree to the rotation, run after the baseline and before this one (e.g. the tree
before each of a series of changes, to see each one's effect in the same minutes).
"""

from __future__ import annotations

import re
import statistics
from pathlib import Path

from bench.ab import HERE, ab_args, alternate, run_in

_TOTAL = re.compile(r"CPU per agent question, all processes: ([\d.]+) ms")
_BY_PROCESS = re.compile(r"CPU per agent question by process \(ms\): (.*)")
_TRIPLES = re.compile(r"([\d.]+) trace triples")
_MESSAGES = re.compile(r"broker messages per agent question: ([\d.]+) messages")
_NOT_PROCESSES = ("total", "trace triples", "messages")


def figures(out: str) -> dict[str, float]:
    """A ``bench_stages`` run's CPU per agent question (ms): in all, and per process."""
    total = _TOTAL.search(out)
    if total is None:
        raise ValueError(f"no CPU-per-question line in bench_stages' output:\n{out[-2000:]}")
    row = {"total": float(total.group(1))}
    triples = _TRIPLES.search(out)
    if triples is not None:
        row["trace triples"] = float(triples.group(1))
    messages = _MESSAGES.search(out)  # a tree whose bench_stages counts them
    if messages is not None:
        row["messages"] = float(messages.group(1))
    by_process = _BY_PROCESS.search(out)
    if by_process is not None:
        for part in by_process.group(1).split(", "):
            name, ms = part.rsplit(" ", 1)
            row[name] = float(ms)
    return row


def line(name: str, row: dict[str, float]) -> str:
    parts = sorted(((k, v) for k, v in row.items() if k not in _NOT_PROCESSES),
                   key=lambda kv: -kv[1])  # fmt: skip
    busiest = ", ".join(f"{k} {v:.1f}" for k, v in parts[:8])
    triples = f" ({row['trace triples']:.0f} trace triples)" if "trace triples" in row else ""
    if "messages" in row:
        triples += f" ({row['messages']:.1f} broker messages)"
    return f"{name:<30} {row['total']:6.1f} ms per question{triples}; {busiest}"


def _also(flags: list[str]) -> tuple[list[str], dict[str, Path]]:
    """``bench_stages``' flags without the ``--also NAME=DIR`` pairs, and those trees."""
    rest: list[str] = []
    trees: dict[str, Path] = {}
    items = iter(flags)
    for flag in items:
        if flag != "--also":
            rest.append(flag)
            continue
        name, sep, tree = next(items, "").partition("=")
        if not sep or not name or not (Path(tree) / "bench" / "bench_stages.py").is_file():
            raise SystemExit(
                f"--also wants NAME=DIR, DIR a tree with bench/bench_stages.py: {name}{sep}{tree}"
            )
        trees[name] = Path(tree).resolve()
    return rest, trees


def main() -> None:
    other, rounds, flags = ab_args(__doc__, "bench_stages")
    flags, also = _also(flags)
    trees = {"baseline": other, **also, "this": HERE}
    rows, loads = alternate(
        trees, rounds, lambda tree: figures(run_in(tree, "bench_stages", flags)), line
    )
    print(f"\nmedian of {rounds} runs each (CPU ms per agent question):")
    med: dict[str, float] = {}
    for name, tree in trees.items():
        keys = {k for r in rows[name] for k in r}
        row = {k: statistics.median(r[k] for r in rows[name] if k in r) for k in keys}
        med[name] = row["total"]
        span = f"{min(loads[name]):.1f}-{max(loads[name]):.1f}"
        print(line(f"{name} (load {span})", row) + f"  [{tree}]")
        print("   runs: " + ", ".join(f"{r['total']:.1f}" for r in rows[name]))
    print(f"this / baseline: {med['this'] / med['baseline']:.2f}")


if __name__ == "__main__":
    main()
