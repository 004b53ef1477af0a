"""Run one benchmark module with another tree's code: the helper of the A/B benches.

Every process of the run — the bench, the stack it starts, the clients — imports that
tree's code: the run's working directory and ``PYTHONPATH`` are the tree, and it uses the
tree's ``.venv`` python when it has one (else this one, whose entry points then import the
tree's modules through ``PYTHONPATH``).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent


def run_in(tree: Path, module: str, flags: list[str]) -> str:
    """``python -m bench.<module> FLAGS`` in ``tree``; its standard output."""
    venv = tree / ".venv" / "bin" / "python"
    python = str(venv) if venv.exists() else sys.executable
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run(
        [python, "-m", f"bench.{module}", *flags],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"{module} in {tree} failed (exit {done.returncode}):\n{done.stderr}")
    return done.stdout


def ab_args(doc: str, module: str) -> tuple[Path, int, list[str]]:
    """``--against DIR --rounds N`` and the flags passed on to ``module``; the usage error
    when DIR has no ``bench/<module>.py`` or N < 1."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--against", type=Path, required=True, help="the other tree")
    parser.add_argument("--rounds", type=int, default=3, help="runs of each tree (default 3)")
    args, flags = parser.parse_known_args()
    other = args.against.resolve()
    if not (other / "bench" / f"{module}.py").is_file():
        parser.error(f"--against {args.against}: no bench/{module}.py there")
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    return other, args.rounds, flags


def alternate(
    trees: dict[str, Path],
    rounds: int,
    measure: Callable[[Path], dict[str, float]],
    line: Callable[[str, dict[str, float]], str],
) -> tuple[dict[str, list[dict[str, float]]], dict[str, list[float]]]:
    """``measure`` each tree in turn, ``rounds`` times, printing each run's ``line`` with the
    load averages before it; every run's figures and 1-minute load, by tree. The order is
    reversed every other round: in session 22's three ``agent_ab --rounds 4`` the run second
    in its round read a wall overhead ~0.5 ms higher in 10 of 12 rounds, whichever tree it
    was (a fixed order put that on one tree)."""
    rows: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
    loads: dict[str, list[float]] = {name: [] for name in trees}
    for n in range(1, rounds + 1):
        order = list(trees.items())
        for name, tree in order if n % 2 else reversed(order):
            load = os.getloadavg()
            loads[name].append(load[0])
            row = measure(tree)
            rows[name].append(row)
            avg = " ".join(f"{x:.1f}" for x in load)
            print(line(f"round {n}, {name} (load {avg})", row), flush=True)
    return rows, loads
