"""Benchmark of the sparse engine "skc" (``abcd_cli.engines.sparse``), one BLAS thread.

1. The time of one lower bound with its gradient (``SparseEngine.objective``) at N = 10⁴ and
   10⁵ with m = 200 and 500 (best of ``--repeats``), on an hourly series in days.
2. At N = 1,000 the gaps LB - exact, UB - exact (Nyström + PCG) and cheap UB - exact, in nats,
   for m = 50, 100, 200, with the PCG products and the time of each bound (the default relative
   jitter on K_zz, 1e-8), and the lower bound's gap at jitters 1e-10 and 1e-6.

The kernel is SE + SE×Per + WN with fixed values (not fitted) on data drawn from it. Run from
the project root::

    .venv/bin/python -m benchmarks.engines.bench_sparse [--repeats 2] \\
        [--out benchmarks/engines/outputs/sparse_engine.md]
"""

from __future__ import annotations

import argparse
import datetime as dt
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from abcd_cli.engines.exact import negative_log_likelihood
from abcd_cli.engines.sparse import SparseEngine
from abcd_cli.kernels.text import parse_kernel
from benchmarks.common import best_time, load_average, publish, python_command

KERNEL = parse_kernel(
    "SE(lengthscale=10.0, sd=1.0) + SE(lengthscale=20.0, sd=1.0)"
    " * Per(lengthscale=1.0, period=1.0, sd=0.7) + WN(sd=0.3)"
)


def hourly_series(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """n hourly points (x in days): a slow wave, a daily cycle whose size drifts, and noise."""
    rng = np.random.default_rng(seed)
    x = np.arange(n) / 24.0
    slow = np.sin(2 * np.pi * x / 30.0) + 0.5 * np.sin(2 * np.pi * x / 11.0)
    daily = (0.7 + 0.3 * np.sin(2 * np.pi * x / 45.0)) * np.sin(2 * np.pi * x)
    return x[:, None], slow + daily + 0.3 * rng.standard_normal(n)


def timing_rows(repeats: int) -> list[str]:
    rows = ["| N | m | LB + gradient (s) | engine's estimate (s) |", "|---:|---:|---:|---:|"]
    for n in (10_000, 100_000):
        x, y = hourly_series(n)
        for m in (200, 500):
            engine = SparseEngine(m=m)
            args = (KERNEL.theta(), KERNEL, x, y)
            seconds = best_time(lambda e=engine, a=args: e.objective(*a), repeats)
            estimate = engine.cost(n, KERNEL).seconds
            rows.append(f"| {n:,} | {m} | {seconds:.2f} | {estimate:.2f} |")
            print(rows[-1], flush=True)
    return rows


def gap_rows() -> list[str]:
    x, y = hourly_series(1000, seed=1)
    start = time.perf_counter()
    exact = -negative_log_likelihood(KERNEL, x, y)
    exact_s = time.perf_counter() - start
    rows = [
        f"Exact log p(y) = {exact:.2f} ({exact_s:.2f} s).",
        "",
        "| m | LB - exact | UB - exact | cheap UB - exact | PCG products | certificate"
        " | LB (s) | UB (s) | cheap UB (s) | LB - exact at jitter 1e-10 | at 1e-6 |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for m in (50, 100, 200):
        engine = SparseEngine(m=m)
        t0 = time.perf_counter()
        lb = engine.lower_bound(KERNEL, x, y)
        t1 = time.perf_counter()
        ub = engine.upper_bound(KERNEL, x, y)
        t2 = time.perf_counter()
        cheap = engine.cheap_upper_bound(KERNEL, x, y)
        t3 = time.perf_counter()
        other = [SparseEngine(m=m, jitter=j).lower_bound(KERNEL, x, y) for j in (1e-10, 1e-6)]
        rows.append(
            f"| {m} | {lb - exact:.3f} | {ub.value - exact:.3f} | {cheap - exact:.2f}"
            f" | {ub.products} | {ub.certificate:.1e} | {t1 - t0:.3f} | {t2 - t1:.3f}"
            f" | {t3 - t2:.3f} | {other[0] - exact:.3f} | {other[1] - exact:.3f} |"
        )
        print(rows[-1], flush=True)
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument(
        "--out", type=Path, default=Path("benchmarks/engines/outputs/sparse_engine.md")
    )
    args = parser.parse_args(argv)
    command = python_command(
        "benchmarks.engines.bench_sparse", ["--repeats", str(args.repeats), "--out", str(args.out)]
    )
    with threadpool_limits(limits=1, user_api="blas"):
        gaps = gap_rows()
        timings = timing_rows(args.repeats)
    load = load_average()
    text = "\n".join(
        [
            "# Sparse engine (skc): speed and tightness",
            "",
            f"Made by `{command}` on {dt.date.today()} (one BLAS thread; load average {load};"
            " the machine is shared, so times are indicative).",
            f"Kernel: `{KERNEL.to_text()}`, fixed values, on an hourly series (x in days)"
            " with a slow wave, a drifting daily cycle and noise of sd 0.3.",
            "",
            "## Bounds at N = 1,000 (nats of log p(y))",
            "",
            *gaps,
            "",
            "## One lower bound with its gradient",
            "",
            *timings,
            "",
        ]
    )
    publish(text, args.out)


if __name__ == "__main__":
    main()
