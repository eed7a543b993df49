"""The exact −log p(y) of a stationary kernel on a complete hourly grid: Durbin-Levinson
(O(N²), ``abcd_cli/engines/levinson.py``) against the dense Cholesky (O(N³),
``abcd_cli/engines/exact.py``), and beside them skc's interval (``SparseEngine`` with its
default inducing inputs and the Levinson path turned off) at the same points.

Kernels: stationary structures of the kind the searches choose (smooth trend, daily and weekly
cycles, short-term variation, a level), with illustrative values, x in years, noise sd 0.3,
0.03 and 0.01; y is a daily and a weekly sinusoid plus noise of that sd (seed 0), with a
constant mean integrated out. Times: best of ``--repeats`` on one BLAS thread (the numba
recursion compiled before timing). Relative difference: |Levinson − Cholesky| / |Cholesky|.
Run from the project folder::

    OPENBLAS_NUM_THREADS=1 .venv/bin/python -m benchmarks.engines.bench_levinson \
        --out benchmarks/engines/outputs/levinson.md
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

import abcd_cli.engines.sparse as sparse
from abcd_cli.engines.exact import negative_log_likelihood
from abcd_cli.engines.levinson import grid_exact_nll
from abcd_cli.engines.sparse import SparseEngine
from abcd_cli.kernels.text import parse_kernel
from benchmarks.common import comma_integers, machine_line, publish, python_command, timed_best

HOUR = 1.0 / (24 * 365.2425)
DAY = 24 * HOUR
#: Stationary structures with illustrative values (x in years); "{noise}" is the noise sd.
KERNELS = {
    "SE + SE×Per(day) + WN": "SE(lengthscale=0.05, sd=1.0)"
    " + SE(lengthscale=0.02, sd=0.8) * Per(lengthscale=1.0, period=0.0027379, sd=1.0)"
    " + WN(sd={noise})",
    "SE×Per(day) + Per(week) + RQ + C + WN": "SE(lengthscale=0.03, sd=1.0)"
    " * Per(lengthscale=1.2, period=0.0027379, sd=0.9) + Per(lengthscale=0.8, period=0.0191654,"
    " sd=0.5) + RQ(lengthscale=0.0005, sd=0.3, alpha=0.7) + C(sd=0.5) + WN(sd={noise})",
    "SE×Cos(day) + SE + WN": "SE(lengthscale=0.1, sd=1.0) * Cos(period=0.0027379, sd=0.7)"
    " + SE(lengthscale=0.001, sd=0.4) + WN(sd={noise})",
}
NOISES = (0.3, 0.03, 0.01)


def data(n: int, noise: float) -> tuple[np.ndarray, np.ndarray]:
    """n hourly points (x in years) and a daily and a weekly sinusoid plus noise."""
    rng = np.random.default_rng(0)
    x = np.arange(n) * HOUR
    y = np.sin(2 * np.pi * x / DAY) + 0.5 * np.sin(2 * np.pi * x / (7 * DAY))
    return x[:, None], y + noise * rng.standard_normal(n)


def skc_interval(kernel_text: str, X: np.ndarray, y: np.ndarray) -> tuple[float, float, int]:
    """(seconds, width in nats, m) of skc's score (m: the default for N) with the Levinson
    path turned off."""
    saved = sparse.grid_exact_nll
    sparse.grid_exact_nll = lambda *args: None
    try:
        engine = SparseEngine.for_series(y.size, None, 0)
        seconds, bounds = timed_best(lambda: engine.score(parse_kernel(kernel_text), X, y, True), 1)
    finally:
        sparse.grid_exact_nll = saved
    return seconds, bounds.width, engine.m  # type: ignore[attr-defined]


def row(name: str, noise: float, n: int, repeats: int, with_skc: bool) -> str:
    text = KERNELS[name].format(noise=noise)
    kernel = parse_kernel(text)
    X, y = data(n, noise)
    lev_s, lev = timed_best(lambda: grid_exact_nll(kernel, X, y, True), repeats)
    chol_s, chol = timed_best(lambda: negative_log_likelihood(kernel, X, y, True), repeats)
    rel = abs(lev - chol) / abs(chol)  # type: ignore[operator]
    skc = "—"
    if with_skc:
        skc_s, width, m = skc_interval(text, X, y)
        skc = f"{skc_s:.2f} s, {width:,.1f} (m = {m})"
    return (
        f"| {name} | {noise:g} | {n:,} | {chol:,.6f} | {rel:.1e} | {chol_s:.3f} | {lev_s:.3f} |"
        f" {chol_s / lev_s:,.0f}× | {skc} |"
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", type=comma_integers, default=[2_000, 4_000])
    p.add_argument("--repeats", type=int, default=2)
    p.add_argument("--no-skc", action="store_true", help="leave out skc's interval")
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args()
    shown = ["--sizes", ",".join(map(str, args.sizes)), "--repeats", str(args.repeats)]
    shown += ["--no-skc"] if args.no_skc else []
    command = python_command("benchmarks.engines.bench_levinson", shown)
    grid_exact_nll(parse_kernel("SE(lengthscale=1.0, sd=1.0) + WN(sd=0.1)"), *data(10, 0.1))
    lines = [
        "# Exact −log p(y) on a complete grid: Durbin-Levinson against the dense Cholesky",
        "",
        f"Made by `OPENBLAS_NUM_THREADS=1 {command}`; {machine_line()}.",
        "Constant mean integrated out; skc: its score's time and width (nats) with the default"
        " inducing inputs for N and the Levinson path off (one run).",
        "",
        "| kernel | noise sd | N | −log p(y), Cholesky | relative difference | Cholesky (s) |"
        " Levinson (s) | speed-up | skc interval |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    with threadpool_limits(limits=1, user_api="blas"):
        for n in args.sizes:
            for name in KERNELS:
                for noise in NOISES:
                    lines.append(row(name, noise, n, args.repeats, not args.no_skc))
                    print(lines[-1], flush=True)
    publish("\n".join(lines) + "\n", args.out)


if __name__ == "__main__":
    main()
