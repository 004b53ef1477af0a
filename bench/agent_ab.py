"""Two trees' explainability overhead, in the same minutes: ``bench_agent`` runs alternated.

    python -m bench.agent_ab --against DIR [--rounds 3] [bench_agent's flags, e.g. --quick]

Runs ``python -m bench.bench_agent`` in this tree and in DIR (another checkout: main's, a
second worktree) one after the other, ``--rounds`` times, DIR first in odd rounds and this
tree first in even ones (``ab.alternate``), each with its own code (the run's working directory and ``PYTHONPATH`` are its tree; DIR's ``.venv``
python when it has one). Every process of a run — the client, the agent, the broker — is
that tree's, so a change on either side of the wire shows. On a machine shared with other
work the load moves from minute to minute; alternating short runs gives both trees the same
minutes. Prints each run's figures and, per tree, the median over its runs: the overhead
per iteration and the CPU each process adds per explainable iteration (on − off).
"""

from __future__ import annotations

import re
import statistics
from pathlib import Path

from bench.ab import HERE, ab_args, alternate, run_in

ROLES = ("client", "text-completion", "stand-in", "agent")
_OVERHEAD = re.compile(r"overhead per iteration \(on − off, per pair\): median ([+-][\d.]+) ms")
_MODE = re.compile(r"^explainability (off|on) +[\d.]+ +[\d.]+ +([\d.]+)$", re.M)
_STORE = re.compile(
    r"store process CPU per explainable iteration: ([\d.]+) ms(?: \(([\d.]+) of it inside)?"
)


def figures(out: str) -> dict[str, float]:
    """A ``bench_agent`` run's overhead, CPU added per process (ms per iteration) and store CPU."""
    found = _OVERHEAD.search(out)
    if found is None:
        raise ValueError(f"no overhead line in bench_agent's output:\n{out[-2000:]}")
    row: dict[str, float] = {"overhead": float(found.group(1))}
    for role in ROLES:
        cpu = re.search(rf"{role} ([\d.]+) → ([\d.]+)", out)
        if cpu is not None:
            row[role] = float(cpu.group(2)) - float(cpu.group(1))
    broker = dict(_MODE.findall(out))
    if {"off", "on"} <= broker.keys():
        row["broker"] = float(broker["on"]) - float(broker["off"])
    store = _STORE.search(out)
    if store is not None:
        row["store"] = float(store.group(1))
        if store.group(2) is not None:
            row["store timed"] = float(store.group(2))
    return row


def run(tree: Path, flags: list[str]) -> dict[str, float]:
    """One ``bench_agent`` run with ``tree``'s code; its figures."""
    return figures(run_in(tree, "bench_agent", flags))


def line(name: str, row: dict[str, float]) -> str:
    cpu = ", ".join(f"{k} {row[k]:+.2f}" for k in (*ROLES, "broker") if k in row)
    store = f"; store {row['store']:.2f}" if "store" in row else ""
    if "store timed" in row:
        store += f" ({row['store timed']:.2f} inside the timed sessions)"
    return f"{name:<34} overhead {row['overhead']:+.2f} ms; CPU added: {cpu}{store}"


def main() -> None:
    other, rounds, flags = ab_args(__doc__, "bench_agent")
    trees = {"against": other, "this": HERE}
    rows, _ = alternate(trees, rounds, lambda tree: run(tree, flags), line)
    print(f"\nmedian of {rounds} runs each (ms per iteration, on − off):")
    for name, tree in trees.items():
        keys = rows[name][0].keys()
        med = {k: statistics.median(r[k] for r in rows[name] if k in r) for k in keys}
        print(line(f"{name} ({tree})", med))


if __name__ == "__main__":
    main()
