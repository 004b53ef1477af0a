"""Cold start of the tg-* commands: wall and CPU time of ``CMD --help`` in fresh processes.

Baselines measured in the same run: ``python -c pass`` (the interpreter alone) and
``python -c "import click"`` (what every command must load), so the figure that matters is
the command's cost above them. CPU time (user + system of the child) is printed beside the
wall time because on a loaded machine the wall time is mostly waiting for a core.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench.summary import summary

COMMANDS = [
    "tg-invoke-agent",
    "tg-list-explain-traces",
    "tg-show-explain-trace",
    "tg-show-document-hierarchy",
    "tg-query-triples",
]


def cost(argv: list[str], runs: int) -> tuple[float, float]:
    """Median wall and median CPU seconds of ``argv`` over ``runs`` runs."""
    walls, cpus = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(walls), statistics.median(cpus)


def main() -> list[tuple[str, float, str, str]]:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer runs")
    args = parser.parse_args()
    runs = 5 if args.quick else 15
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    baseline, base_cpu = cost([sys.executable, "-c", "pass"], runs)
    click_wall, click_cpu = cost([sys.executable, "-c", "import click"], runs)
    rows = [("python -c pass (baseline)", baseline, "-", "")]
    print(f"{'command':34} {'wall s':>7} {'x base':>7} {'CPU s':>7} {'x base':>7}")
    print(f"{'python -c pass (baseline)':34} {baseline:7.3f} {1:7.2f} {base_cpu:7.3f} {1:7.2f}")
    print(f"{'python -c import click':34} {click_wall:7.3f} {click_wall / baseline:7.2f} "
          f"{click_cpu:7.3f} {click_cpu / base_cpu:7.2f}")  # fmt: skip
    for cmd in COMMANDS:
        path = Path(sys.executable).parent / cmd
        if not path.exists():
            print(f"{cmd:34} {'not installed':>9}")
            continue
        value, cpu = cost([str(path), "--help"], runs)
        print(f"{cmd + ' --help':34} {value:7.3f} {value / baseline:7.2f} "
              f"{cpu:7.3f} {cpu / base_cpu:7.2f}")  # fmt: skip
        rows.append((f"{cmd} --help", value, "<= 0.15 s", f"{value / baseline:.1f}x python"))
        summary(f"cold start: {cmd} --help", f"{value:.3f} s", "<= 0.15 s",
                f"{value / baseline:.1f}x bare python ({baseline:.3f} s); CPU {cpu:.3f} s "
                f"({cpu / base_cpu:.1f}x python's, import click alone {click_cpu:.3f} s)")  # fmt: skip
    return rows


if __name__ == "__main__":
    main()
