"""Does the skc search need the exact subset screen? One search both ways on a few thousand
points: candidates screened exactly on a 250-point subset and the best refined on all the data
with the bounds (the default, ``subset_size`` 250), against every candidate optimised on all
the data with the bounds (``subset_size`` = N, as in the SKC paper).

The series: hourly points (x in days) with a linear trend, a daily cycle and noise, drawn with
a fixed seed. Per level: wall time, objective evaluations (all, and on all the data), the best
structure and its BIC interval, candidates pruned. Run from the project root::

    .venv/bin/python -m benchmarks.long_series.bench_skc_subset [--n 3000] [--depth 2] \\
        [--out FILE.md]
"""

from __future__ import annotations

import argparse
import datetime as dt
import time
from pathlib import Path

import numpy as np

from abcd_cli.api import own_executor
from abcd_cli.kernel_search.infer import run_search
from abcd_cli.kernel_search.records import SearchResult
from abcd_cli.kernel_search.settings import SearchSettings
from benchmarks.common import load_average, publish, python_command


def series(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """n hourly points: a linear trend, a daily cycle and noise of sd 0.3."""
    rng = np.random.default_rng(seed)
    x = np.arange(n) / 24.0
    return x, 0.05 * x + np.sin(2 * np.pi * x) + 0.3 * rng.standard_normal(n)


def run(n: int, depth: int, subset_size: int, jobs: int) -> tuple[SearchResult, float]:
    x, y = series(n)
    settings = SearchSettings(depth=depth, engine="skc", subset_size=subset_size)
    executor = own_executor(jobs)
    start = time.perf_counter()
    try:
        result = run_search(x, y, settings, executor, progress=print)
    finally:
        executor.shutdown()
    return result, time.perf_counter() - start


def rows(name: str, result: SearchResult) -> list[str]:
    out = []
    before = 0.0
    for level in result.trace:
        seconds = float(level["elapsed_seconds"]) - before
        before = float(level["elapsed_seconds"])
        out.append(
            f"| {name} | {level['level']} | {seconds:.0f} | {level['evaluations']}"
            f" | {level['full_data_evaluations']} | `{level['structure']}`"
            f" | [{level['bic_low']:.2f}, {level['bic']:.2f}] | {level['pruned']} |"
        )
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=3000)
    parser.add_argument("--depth", type=int, default=2)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument(
        "--out", type=Path, default=Path("benchmarks/long_series/outputs/skc_subset.md")
    )
    args = parser.parse_args(argv)
    command = python_command(
        "benchmarks.long_series.bench_skc_subset",
        ["--n", str(args.n), "--depth", str(args.depth), "--jobs", str(args.jobs)]
        + ["--out", str(args.out)],
    )
    table = [
        "| search | level | wall (s) | evaluations | on all the data | best | BIC interval"
        " | pruned |",
        "|---|---:|---:|---:|---:|---|---|---:|",
    ]
    totals = []
    for name, size in (("subset screen (default)", 250), ("all the data", args.n)):
        result, seconds = run(args.n, args.depth, size, args.jobs)
        table += rows(name, result)
        totals.append(
            f"- {name}: {seconds:.0f} s in all; chose `{result.model.kernel.structure}`,"
            f" BIC {result.model.bic:.2f} (m = {result.settings.inducing})"
        )
    load = load_average()
    text = "\n".join(
        [
            "# skc search with and without the exact subset screen",
            "",
            f"Made by `{command}` on {dt.date.today()} (load average {load} at the end; the"
            " machine is shared, so times are indicative).",
            f"{args.n} hourly points (x in days): a linear trend, a daily cycle, noise of sd 0.3;"
            " default settings but `--engine skc` and the depth; the level's wall time is the"
            " difference of the trace's cumulative `elapsed_seconds`.",
            "",
            *table,
            "",
            *totals,
            "",
        ]
    )
    publish(text, args.out)


if __name__ == "__main__":
    main()
