"""Where a search's wall time goes on two workers, pool against Dask, from a ``bench_dask`` run.

Reads the run's fit times (``--csv``, as ``bench_dask --csv`` writes them) and its wall times
(``--table``, the Markdown ``bench_dask --out`` writes) and splits each search's wall time W
into three parts:

- **work**: the fits' own seconds summed, divided by the workers (the wall time with no idle
  worker at all);
- **barriers**: the modelled wall time (``paper.search_time``: each stage's fits handed in
  order to the first free worker, no per-task cost) minus the work: the idle time a stage's end
  forces on any scheduler;
- **scheduling**: the measured wall time minus the modelled one: what this scheduler lost on
  top (handoffs, a worker finishing a stage late, per-task costs, the client's own work).

Run from the project folder::

    .venv/bin/python -m benchmarks.dask.breakdown --csv benchmarks/dask/outputs/dask_fits.csv \\
        --table benchmarks/dask/outputs/dask.md [--workers 2]
"""

from __future__ import annotations

import argparse
import csv
import re
from collections import defaultdict
from pathlib import Path

from benchmarks.dask.paper import Levels, search_time

RUNS = ("pool", "dask")
PARTS = ("wall", "work", "barriers", "scheduling")
#: A row of bench_dask's comparison table: series, pool seconds, Dask seconds.
ROW = re.compile(r"^\| (?P<name>[0-9]{2}-[\w-]+) \| (?P<pool>[0-9.]+) \| (?P<dask>[0-9.]+) \|")


def read_fits(path: Path) -> dict[str, dict[str, Levels]]:
    """series → run → levels → stages → fit seconds, in the order they were recorded."""
    nested: dict = defaultdict(lambda: defaultdict(lambda: defaultdict(lambda: defaultdict(list))))
    with path.open(newline="") as f:
        for row in csv.DictReader(f):
            stages = nested[row["series"]][row["run"]][int(row["level"])]
            stages[int(row["stage"])].append(float(row["seconds"]))
    return {
        name: {
            run: [[stages[s] for s in sorted(stages)] for _, stages in sorted(levels.items())]
            for run, levels in runs.items()
        }
        for name, runs in nested.items()
    }


def read_walls(path: Path) -> dict[str, dict[str, float]]:
    """series → run → measured wall seconds, from bench_dask's comparison table (the first
    table; the scaling tables after it have rows of the same shape)."""
    walls: dict[str, dict[str, float]] = {}
    for line in path.read_text().splitlines():
        if match := ROW.match(line):
            walls.setdefault(
                match["name"], {"pool": float(match["pool"]), "dask": float(match["dask"])}
            )
    return walls


def split(levels: Levels, wall: float, workers: int) -> tuple[float, float, float]:
    """(work, barriers, scheduling) seconds of one search; they add up to ``wall``."""
    work = sum(t for stages in levels for stage in stages for t in stage) / workers
    modelled = search_time(levels, workers, 0.0)
    return work, modelled - work, wall - modelled


def table(
    fits: dict[str, dict[str, Levels]], walls: dict[str, dict[str, float]], workers: int
) -> list[str]:
    """Markdown: each series' wall time split three ways, for each run."""
    head = " | ".join(f"{run}: {part}" for run in RUNS for part in PARTS)
    lines = [f"| series | {head} |", "|---|" + "---:|" * (len(PARTS) * len(RUNS))]
    totals = [0.0] * (len(PARTS) * len(RUNS))
    for name in sorted(set(fits) & set(walls)):
        cells = []
        for run in RUNS:
            wall = walls[name][run]
            cells += [wall, *split(fits[name][run], wall, workers)]
        totals = [a + b for a, b in zip(totals, cells, strict=True)]
        lines.append(f"| {name} | " + " | ".join(f"{v:.1f}" for v in cells) + " |")
    lines.append("| **all** | " + " | ".join(f"**{v:.1f}**" for v in totals) + " |")
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--csv", type=Path, required=True, help="bench_dask's fit times")
    parser.add_argument("--table", type=Path, required=True, help="bench_dask's Markdown")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    print("\n".join(table(read_fits(args.csv), read_walls(args.table), args.workers)))


if __name__ == "__main__":
    main()
