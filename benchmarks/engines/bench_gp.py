"""Benchmark of the exact-GP engine (``abcd_cli.engines.exact``) against its cost floor and
scikit-learn.

For each data set (airline N=144, Mauna Loa N=545, temperature N=1000) and the kernel
``Lin*Per + SE + WN*Lin`` this measures, on the internally scaled data (``Scaling``):

1. one ``nll_and_grad`` evaluation at a fixed random parameter vector (median of ``--repeats``
   timings after one warm-up);
2. the cost floor at that N: one ``scipy.linalg.cholesky`` plus one ``cho_solve`` of the identity
   on a random SPD matrix (median of ``--repeats``), and the ratio evaluation / floor;
3. one full ``fit(..., restarts=10)`` with a fixed seed, and its NLL in the user's units;
4. scikit-learn's ``GaussianProcessRegressor`` with the closest kernel it can express,
   ``C*DotProduct*ExpSineSquared + C*RBF + WhiteKernel*DotProduct``, ``normalize_y=True`` and
   ``n_restarts_optimizer=9`` (10 optimiser runs) on the same scaled data: one fit and one
   ``log_marginal_likelihood(theta, eval_gradient=True)`` evaluation;
5. a time breakdown of one ``nll_and_grad`` call at the largest N, step by step and by cProfile.

It prints a markdown report (machine, date, exact command, table, targets, breakdown); ``--out``
writes the same text to a file. Run from the project root::

    .venv/bin/python -m benchmarks.engines.bench_gp [--repeats N] \\
        [--out benchmarks/engines/outputs/gp_engine.md]

Other options: ``--blas-threads K`` (limit BLAS threads via threadpoolctl; on a small shared
machine 1 is far more stable), ``--sklearn-restarts``, ``--restarts``, ``--seed``, ``--datasets``.
Timings are wall-clock and sensitive to other load; the report records the load average.

The parts: ``gp_common.py`` (kernel, data sets, timing), ``gp_measure.py`` (the measurements of
one data set), ``gp_sklearn.py`` (the scikit-learn peer), ``gp_breakdown.py`` (the breakdown of
one evaluation) and ``gp_report.py`` (the Markdown report).
"""

from __future__ import annotations

import argparse
import datetime as dt
import time
from pathlib import Path

from abcd_cli.files import write_output
from abcd_cli.kernels.text import parse_kernel
from benchmarks.engines import OUTPUTS
from benchmarks.engines.gp_breakdown import breakdown, profile_text
from benchmarks.engines.gp_common import DATASETS, KERNEL_TEXT, load_average, log
from benchmarks.engines.gp_measure import Row, bench_dataset
from benchmarks.engines.gp_report import report

NOTES = OUTPUTS / "gp_engine_notes.md"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=7, help="timings per median (default 7)")
    p.add_argument("--out", type=Path, help="also write the report to this file")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--restarts", type=int, default=10, help="our fit's restarts (default 10)")
    p.add_argument(
        "--sklearn-restarts",
        type=int,
        default=9,
        help="sklearn n_restarts_optimizer (default 9 = 10 runs; a lower value is reported)",
    )
    p.add_argument("--sk-eval-repeats", type=int, default=5)
    p.add_argument("--profile-calls", type=int, default=5)
    p.add_argument(
        "--blas-threads",
        type=int,
        help="limit BLAS threads (threadpoolctl) for the whole run; default: leave as is",
    )
    p.add_argument("--datasets", nargs="+", default=list(DATASETS), help="CSV stems in datasets/")
    args = p.parse_args(argv)

    if args.blas_threads:
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=args.blas_threads, user_api="blas")
    started = dt.datetime.now().astimezone()
    load_start = load_average()
    t_start = time.perf_counter()
    kernel = parse_kernel(KERNEL_TEXT)
    rows: list[Row] = []
    last = None
    for name in args.datasets:
        row, last = bench_dataset(name, kernel, args)
        rows.append(row)
    bd = prof = None
    if last is not None:
        log("breakdown at the largest N")
        theta, X, Y = last
        bd = breakdown(kernel, theta, X, Y, args.repeats)
        prof = profile_text(kernel, theta, X, Y, args.profile_calls)
    text = report(rows, args, started, load_start, bd, prof, time.perf_counter() - t_start)
    if NOTES.exists():  # hand-written reading of the numbers, kept across runs
        text += "\n" + NOTES.read_text()
    print(text, end="")
    if args.out:
        write_output(args.out, text)
        log(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
