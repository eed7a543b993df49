"""Time of one search against the number of points N and of inputs D, on the exact engine
or, for large N, the long-series one (``--engine skc``, its default m for N).

Run from the project folder (the full grid; ``--sizes 50 --dims 1,2 --depth 1`` is a smoke
run)::

    .venv/bin/python -m benchmarks.several_inputs.bench_inputs_scaling \\
        --out benchmarks/several_inputs/outputs/inputs_scaling.md
    .venv/bin/python -m benchmarks.several_inputs.bench_inputs_scaling --engine skc \\
        --sizes 2000,5000 \\
        --out benchmarks/several_inputs/outputs/inputs_scaling_skc.md
    .venv/bin/python -m benchmarks.several_inputs.bench_inputs_scaling --depth 10 --patience 3 \\
        --out benchmarks/several_inputs/outputs/inputs_scaling_full.md   # the whole default search

The data: x uniform on [-2, 2]^D, y = Σ_d sin(2 x_d) / √D + noise of sd 0.1 (every input
matters, with the same share of y's variance), seed 0. The search: ``abcd_cli.search`` to
``--depth`` with ``--patience`` (0, the default here: every level runs; 3 with depth 10: the
search as users run it), ``--jobs`` workers, ``--engine``, every other setting its default.
Reported: levels run, wall time, CPU time (this process and its workers), candidate fits, and
the time per fit. The grammar offers every base kernel on every input, so
a level's candidates grow about linearly in D.
"""

from __future__ import annotations

import argparse
import datetime as dt
import resource
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

import abcd_cli
from abcd_cli.kernel_search.events import SearchEvent
from benchmarks.common import comma_integers, machine_line, publish, python_command


def data(n: int, dims: int, seed: int = 0) -> pd.DataFrame:
    """n rows of inputs x1..xD and y, as the module docstring says."""
    rng = np.random.default_rng((seed, n, dims))
    x = rng.uniform(-2.0, 2.0, size=(n, dims))
    y = np.sin(2.0 * x).sum(axis=1) / np.sqrt(dims) + 0.1 * rng.standard_normal(n)
    frame = pd.DataFrame(x, columns=[f"x{i + 1}" for i in range(dims)])
    frame["y"] = y
    return frame.sort_values("x1", ignore_index=True)  # one input: a series in order


def _cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    workers = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + workers.ru_utime + workers.ru_stime


def measure(
    n: int, dims: int, depth: int, jobs: int, engine: str = "exact", patience: int = 0
) -> tuple[float, float, int, int, str]:
    """Wall seconds, CPU seconds, levels run, candidate fits and the chosen structure of one
    search."""
    frame = data(n, dims)
    fits = levels = 0

    def count(event: SearchEvent) -> None:
        nonlocal fits, levels
        fits += event.kind == "fit"
        levels += event.kind == "level"

    cpu, start = _cpu_seconds(), time.perf_counter()
    found = abcd_cli.search(
        frame,
        y="y",
        x=list(frame.columns[:-1]),
        depth=depth,
        patience=patience,
        jobs=jobs,
        engine=engine,
        on_event=count,
    )
    return time.perf_counter() - start, _cpu_seconds() - cpu, levels, fits, found.structure


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sizes", type=comma_integers, default=[100, 200, 400], help="N, comma-separated"
    )
    parser.add_argument(
        "--dims", type=comma_integers, default=[1, 2, 4, 8], help="D, comma-separated"
    )
    parser.add_argument("--depth", type=int, default=2, help="the last level searched")
    parser.add_argument(
        "--patience",
        type=int,
        default=0,
        help="levels without a better BIC before stopping (0: never)",
    )
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--engine", choices=("exact", "skc"), default="exact")
    parser.add_argument("--out", type=Path, default=None, help="write the Markdown here")
    args = parser.parse_args(argv)
    lines = [
        "| N | D | levels | wall s | CPU s | fits | CPU s per fit | chosen |",
        "|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for dims in args.dims:
        for n in args.sizes:
            wall, cpu, levels, fits, chosen = measure(
                n, dims, args.depth, args.jobs, args.engine, args.patience
            )
            per_fit = cpu / fits if fits else float("nan")
            lines.append(
                f"| {n} | {dims} | {levels} | {wall:.1f} | {cpu:.1f} | {fits} | {per_fit:.2f}"
                f" | `{chosen}` |"
            )
            print(lines[-1], flush=True)
    stopping = (
        "every level run (patience 0)"
        if args.patience == 0
        else f"stopping after {args.patience} levels without a better BIC"
    )
    text = "\n".join(
        [
            f"# Search time against N and D ({args.engine} engine)",
            "",
            f"Made by `{python_command('benchmarks.several_inputs.bench_inputs_scaling', argv)}` on"
            f" {dt.date.today()}.",
            f"- {machine_line()}; on a shared machine the wall times are indicative, the CPU"
            " times less so.",
            f"- Depth {args.depth}, {stopping}, {args.jobs} worker(s); data and settings as in"
            " `benchmarks/several_inputs/bench_inputs_scaling.py`. 'levels' counts level 0.",
            "",
            *lines,
            "",
        ]
    )
    publish(text, args.out)


if __name__ == "__main__":
    main()
