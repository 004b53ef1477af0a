"""Two trees' explainability overhead, in the same minutes: ``bench_agent`` runs alternated.

    python -m bench.agent_ab --against DIR [--rounds 3] [bench_agent's flags, e.g. --quick]

Runs ``python -m bench.bench_agent`` in this tree and in DIR (another checkout: main's, a
second worktree) one after the other, ``--rounds`` times, starting with DIR, each with its
own code (the run's working directory and ``PYTHONPATH`` are its tree; DIR's ``.venv``
python when it has one). Every process of a run — the client, the agent, the broker — is
that tree's, so a change on either side of the wire shows. On a machine shared with other
work the load moves from minute to minute; alternating short runs gives both trees the same
minutes. Prints each run's figures and, per tree, the median over its runs: the overhead
per iteration and the CPU each process adds per explainable iteration (on − off).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
ROLES = ("client", "text-completion", "stand-in", "agent")
_OVERHEAD = re.compile(r"overhead per iteration \(on − off, per pair\): median ([+-][\d.]+) ms")
_MODE = re.compile(r"^explainability (off|on) +[\d.]+ +[\d.]+ +([\d.]+)$", re.M)
_STORE = re.compile(r"store process CPU per explainable iteration: ([\d.]+) ms")


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
    return row


def run(tree: Path, flags: list[str]) -> dict[str, float]:
    """One ``bench_agent`` run with ``tree``'s code; its figures."""
    venv = tree / ".venv" / "bin" / "python"
    python = str(venv) if venv.exists() else sys.executable
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run(
        [python, "-m", "bench.bench_agent", *flags],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"bench_agent in {tree} failed (exit {done.returncode}):\n{done.stderr}")
    return figures(done.stdout)


def line(name: str, row: dict[str, float]) -> str:
    cpu = ", ".join(f"{k} {row[k]:+.2f}" for k in (*ROLES, "broker") if k in row)
    store = f"; store {row['store']:.2f}" if "store" in row else ""
    return f"{name:<34} overhead {row['overhead']:+.2f} ms; CPU added: {cpu}{store}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", type=Path, required=True, help="the other tree")
    parser.add_argument("--rounds", type=int, default=3, help="runs of each tree (default 3)")
    args, flags = parser.parse_known_args()
    other = args.against.resolve()
    if not (other / "bench" / "bench_agent.py").is_file():
        parser.error(f"--against {args.against}: no bench/bench_agent.py there")
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    trees = {"against": other, "this": HERE}
    rows: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
    for n in range(1, args.rounds + 1):
        for name, tree in trees.items():
            load = " ".join(f"{x:.1f}" for x in os.getloadavg())
            row = run(tree, flags)
            rows[name].append(row)
            print(line(f"round {n}, {name} (load {load})", row), flush=True)
    print(f"\nmedian of {args.rounds} runs each (ms per iteration, on − off):")
    for name, tree in trees.items():
        keys = rows[name][0].keys()
        med = {k: statistics.median(r[k] for r in rows[name] if k in r) for k in keys}
        print(line(f"{name} ({tree})", med))


if __name__ == "__main__":
    main()
