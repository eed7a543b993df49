"""How a 10-start fit could spend fewer likelihood evaluations, and what each way costs in optimum.

The search's full fit (``kernel_search.fit.fit``, ``polish=None``) runs L-BFGS-B to
convergence from each of its ten starts. This script compares, on the kernel and data sets
of ``benchmarks/engines/bench_gp.py`` and with the same ten starting points per seed, four ways of
using those starts:

- ``all``: every start to convergence (what ``fit`` does), scipy's default ``ftol`` (2.2e-9);
- ``all, ftol 1e-7``: the same with a looser stopping rule;
- ``race 20→2``: successive halving, every start 20 iterations, the best 2 to convergence;
- ``race 10→4, 20→2``: 10 iterations each, the best 4 another 20, the best 2 to convergence
  (both races with ``ftol`` 1e-7).

Per strategy: the NLL reached for each seed (the data's units, as in ``gp_engine.md``), the mean
number of likelihood evaluations per fit and the mean wall time per fit. Run from the project
folder with one BLAS thread::

    .venv/bin/python -m benchmarks.studies.bench_multistart \\
        --out benchmarks/studies/outputs/multistart.md
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import sys
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from abcd_cli.data.summary import DataSummary
from abcd_cli.files import write_output
from abcd_cli.kernel_search.fit import minimise
from abcd_cli.kernel_search.init import initial_values, theta_bounds
from abcd_cli.kernels import Kernel
from abcd_cli.kernels.text import parse_kernel
from benchmarks.common import python_command
from benchmarks.engines.gp_common import KERNEL_TEXT, load, load_average, scaled_data

# name -> (ftol, None for scipy's default; rounds of (iterations, starts kept));
# the survivors of the last round then get up to 200 iterations
STRATEGIES: dict[str, tuple[float | None, tuple[tuple[int, int], ...]]] = {
    "all": (None, ()),
    "all, ftol 1e-7": (1e-7, ()),
    "race 20→2": (1e-7, ((20, 2),)),
    "race 10→4, 20→2": (1e-7, ((10, 4), (20, 2))),
}


def race(
    kernel: Kernel,
    X: np.ndarray,
    Y: np.ndarray,
    seed: int,
    ftol: float | None,
    rounds: tuple[tuple[int, int], ...],
    restarts: int,
) -> tuple[float, int]:
    """Best NLL (internal units) and evaluations of one fit from ``restarts`` seeded starts."""
    summary = DataSummary.from_data(X[:, 0], Y)
    bounds = theta_bounds(kernel, summary)
    rng = np.random.default_rng(seed)
    pool = [
        (kernel.with_values(initial_values(kernel, summary, rng)).theta(), np.inf)
        for _ in range(restarts)
    ]
    evaluations = 0
    for iterations, kept in (*rounds, (200, restarts)):
        runs = [minimise(t, kernel, X, Y, bounds, iterations, ftol) for t, _ in pool]
        evaluations += sum(n for _, _, n in runs)
        pool = sorted(((t, nll) for t, nll, _ in runs), key=lambda r: r[1])[:kept]
    return pool[0][1], evaluations


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--datasets", nargs="+", default=["01-airline", "03-mauna"])
    p.add_argument("--seeds", nargs="+", type=int, default=[8, 4], help="seeds per data set")
    p.add_argument("--restarts", type=int, default=10)
    p.add_argument("--out", type=Path)
    args = p.parse_args(argv)
    threadpool_limits(limits=1, user_api="blas")
    kernel = parse_kernel(KERNEL_TEXT)
    started = dt.datetime.now().astimezone()
    lines = [
        "# Ten starts, fewer evaluations? (multi-start strategies of a full fit)",
        "",
        f"- date: {started.isoformat(timespec='seconds')}; load average at start: {load_average()}",
        "- command: `"
        + python_command("benchmarks.studies.bench_multistart", sys.argv[1:])
        + "` (one BLAS thread)",
        f"- kernel `{KERNEL_TEXT}`, {args.restarts} starts per fit drawn by `initial_values` "
        "from `default_rng(seed)`; every strategy uses the same starts for a seed.",
        "- NLL in the data's units (lower is better); evaluations and seconds are means per fit.",
        "",
        "| dataset | N | strategy | NLL per seed | mean evaluations | mean seconds |",
        "|---|---|---|---|---|---|",
    ]
    for name, n_seeds in zip(args.datasets, args.seeds, strict=True):
        x, y = load(name)
        sc, X, Y = scaled_data(x, y)
        for label, (ftol, rounds) in STRATEGIES.items():
            nlls, evals, secs = [], [], []
            for seed in range(n_seeds):
                t0 = time.perf_counter()
                nll, n = race(kernel, X, Y, seed, ftol, rounds, args.restarts)
                secs.append(time.perf_counter() - t0)
                nlls.append(sc.nll_out(nll, len(y)))
                evals.append(n)
            print(f"{name} {label}: {[round(v, 2) for v in nlls]}", file=sys.stderr, flush=True)
            lines.append(
                f"| {name} | {len(y)} | {label} | {', '.join(f'{v:.2f}' for v in nlls)} "
                f"| {np.mean(evals):.0f} | {np.mean(secs):.2f} |"
            )
    lines.append(f"\nLoad average at the end: {load_average()}; CPUs: {os.cpu_count()}.")
    text = "\n".join(lines) + "\n"
    print(text, end="")
    if args.out:
        write_output(args.out, text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
