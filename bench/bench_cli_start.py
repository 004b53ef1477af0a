"""Cold start of the tg-* commands: wall time of ``CMD --help`` in fresh processes.

Baseline measured in the same run: ``python -c pass`` (the interpreter alone), so the
figure that matters is the command's cost above the interpreter's.
"""

from __future__ import annotations

import argparse
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


def timed(argv: list[str], runs: int) -> float:
    """Median wall time of ``argv`` over ``runs`` runs, in seconds."""
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main() -> list[tuple[str, float, str, str]]:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer runs")
    args = parser.parse_args()
    runs = 5 if args.quick else 15
    baseline = timed([sys.executable, "-c", "pass"], runs)
    rows = [("python -c pass (baseline)", baseline, "-", "")]
    print(f"{'command':34} {'median s':>9} {'x baseline':>10}")
    print(f"{'python -c pass (baseline)':34} {baseline:9.3f} {1.0:10.2f}")
    for cmd in COMMANDS:
        path = Path(sys.executable).parent / cmd
        if not path.exists():
            print(f"{cmd:34} {'not installed':>9}")
            continue
        value = timed([str(path), "--help"], runs)
        print(f"{cmd + ' --help':34} {value:9.3f} {value / baseline:10.2f}")
        rows.append((f"{cmd} --help", value, "<= 0.15 s", f"{value / baseline:.1f}x python"))
        summary(f"cold start: {cmd} --help", f"{value:.3f} s", "<= 0.15 s",
                f"{value / baseline:.1f}x bare python ({baseline:.3f} s)")  # fmt: skip
    return rows


if __name__ == "__main__":
    main()
