"""The state-space engine's choice between the Kalman filter and the Cholesky: one likelihood with
its gradient by each, on kernels of state sizes 20 to 300, N = 500 ... 4,000, one BLAS thread
(as a search's worker runs), beside the engine's estimates (``engine.kalman_seconds`` and
``engine.cholesky_seconds``) and the method it takes.

The filter's column is ``gradient.nll_and_grad`` (forward pass, reverse pass, differences of the
small matrices), the Cholesky's ``exact.nll_and_grad``; the difference between their values is
the approximation of SE and Per at the default orders.

A second table gives the chosen kernels of the long-series benchmark
(``benchmarks/long_series/outputs/long_series.csv``) and of the 13 series
(``benchmarks/search/outputs/models``): their state's size and the filter's estimated time for
one evaluation at their N, at the default SE order and at order 8, beside the Cholesky's
estimate (where the exact engine takes N). Run from the project root::

    .venv/bin/python -m benchmarks.engines.bench_statespace [--repeats 2] [--out FILE.md]
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

import abcd_cli
from abcd_cli.engines.exact import MAX_EXACT_BYTES, ExactEngine
from abcd_cli.engines.exact import nll_and_grad as dense
from abcd_cli.engines.statespace.engine import (
    StateSpaceEngine,
    cholesky_seconds,
    kalman_seconds,
)
from abcd_cli.engines.statespace.forms import NoStateSpaceForm, Orders, state_space_form
from abcd_cli.engines.statespace.gradient import nll_and_grad as kalman
from abcd_cli.kernels import Kernel
from abcd_cli.kernels.text import parse_kernel
from benchmarks.common import best_time, load_average, publish, python_command

#: Kernels a search meets, x in days: a trend and a smooth part; with a daily cycle; with two
#: trends modulating a cycle and a smooth part; a cycle modulated by an SE (a Kronecker state).
KERNELS = (
    "C(sd=0.5) + Lin(location=0.0, sd=0.01) + SE(lengthscale=5.0, sd=1.0) + WN(sd=0.3)",
    "Lin(location=0.0, sd=0.01) + SE(lengthscale=5.0, sd=1.0)"
    " + Per(lengthscale=1.0, period=1.0, sd=0.7) + WN(sd=0.3)",
    "Per(lengthscale=1.0, period=1.0, sd=1.0) * Lin(location=1.0, sd=0.05)"
    " + SE(lengthscale=20.0, sd=1.0) + SE(lengthscale=0.3, sd=0.3) * Lin(location=1.0, sd=0.05)"
    " + WN(sd=0.2)",
    "SE(lengthscale=20.0, sd=1.0) * Per(lengthscale=1.0, period=1.0, sd=0.7) + WN(sd=0.3)",
)
SIZES = (500, 1000, 2000, 4000)
LONG_SERIES = Path("benchmarks/long_series/outputs/long_series.csv")
MODELS = Path("benchmarks/search/outputs/models")
#: A lower SE order, to show what orders chosen per kernel could save.
LOW_SE_ORDER = 8


def hourly_series(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """n hourly points (x in days): a trend, a slow wave, a daily cycle and noise."""
    rng = np.random.default_rng(seed)
    x = np.arange(n) / 24.0
    y = 0.01 * x + np.sin(2 * np.pi * x / 30.0) + 0.7 * np.sin(2 * np.pi * x)
    return x, y + 0.3 * rng.standard_normal(n)


def measure(repeats: int, largest_filter: float) -> list[str]:
    """One table row per kernel and size; the filter is not timed where the engine estimates
    it above ``largest_filter`` seconds."""
    rows = []
    engine = StateSpaceEngine()
    for text in KERNELS:
        kernel = parse_kernel(text)
        theta = kernel.theta()
        form = state_space_form(kernel)
        d = form.size
        nnz = form.dynamics.nonzeros() if form.dynamics is not None else 0
        for n in SIZES:
            x, y = hourly_series(n)
            X = x[:, None]
            est_kalman = kalman_seconds(form, n)
            est_dense = cholesky_seconds(n)
            took = "filter" if engine.form(kernel, X) is not None else "Cholesky"
            t_dense = best_time(lambda k=kernel, t=theta, X=X, y=y: dense(t, k, X, y), repeats)
            if est_kalman <= largest_filter:
                kalman(theta, kernel, x, y)  # compiled or loaded from numba's cache
                run = lambda k=kernel, t=theta, x=x, y=y: kalman(t, k, x, y)  # noqa: E731
                t_kalman = best_time(run, repeats)
                gap = abs(kalman(theta, kernel, x, y)[0] - dense(theta, kernel, X, y)[0])
                shown, ratio, error = f"{t_kalman:.3f}", f"{t_dense / t_kalman:.1f}", f"{gap:.4f}"
            else:
                shown, ratio, error = "not timed", "", ""
            faster = "" if not ratio else ("filter" if float(ratio) > 1.0 else "Cholesky")
            rows.append(
                f"| {d} | {nnz:,} | {n:,} | {shown} | {est_kalman:.3f} | {t_dense:.3f}"
                f" | {est_dense:.3f} | {ratio} | {faster} | {took} | {error} |"
            )
            print(rows[-1], flush=True)
    return rows


def _estimate(kernel: Kernel, n: int, orders: Orders) -> str:
    try:
        form = state_space_form(kernel, orders)
    except NoStateSpaceForm:
        return "no form | –"
    return f"{form.size:,} | {kalman_seconds(form, n):,.2f}"


def chosen_kernels() -> list[str]:
    """Rows for the chosen kernels of the long-series benchmark and of the 13 series."""
    found: list[tuple[str, int, Kernel]] = []
    seen: set[str] = set()
    with LONG_SERIES.open() as f:
        for row in csv.DictReader(f):  # each run's kernel once (the file keeps reruns)
            if row["kernel"] and row["kernel"] not in seen:
                seen.add(row["kernel"])
                found.append((row["series"], int(row["n"]), parse_kernel(row["kernel"])))
    for path in sorted(MODELS.glob("*.json")):
        model = abcd_cli.read_model(path).model
        found.append((path.stem, len(model.y), model.kernel))
    rows = []
    for name, n, kernel in found:
        refused = ExactEngine().cost(n, kernel).bytes > MAX_EXACT_BYTES
        dense = "refused" if refused else f"{cholesky_seconds(n):,.2f}"
        default = _estimate(kernel, n, Orders())
        low = _estimate(kernel, n, Orders(se=LOW_SE_ORDER))
        rows.append(f"| {name} | {n:,} | {default} | {low} | {dense} |")
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--largest-filter", type=float, default=30.0)
    parser.add_argument(
        "--out", type=Path, default=Path("benchmarks/engines/outputs/statespace_engine.md")
    )
    args = parser.parse_args(argv)
    command = python_command(
        "benchmarks.engines.bench_statespace",
        ["--repeats", str(args.repeats), "--out", str(args.out)],
    )
    with threadpool_limits(limits=1, user_api="blas"):
        rows = measure(args.repeats, args.largest_filter)
    kernels = "\n".join(
        f"{i}. `{text}`: d = {state_space_form(parse_kernel(text)).size}"
        for i, text in enumerate(KERNELS, start=1)
    )
    text = "\n".join(
        [
            "# The state-space engine: the Kalman filter or the Cholesky",
            "",
            f"Made by `{command}` on {dt.date.today()} (best of {args.repeats}; one BLAS thread;"
            f" load average {load_average()}; the machine is shared, so times are indicative).",
            "One likelihood with its gradient on an hourly series (x in days) by each method, the"
            " engine's estimates beside them, and the method the engine takes; |Δ nll|: the"
            " filter's value against the Cholesky's (SE and Per at the default orders).",
            "",
            "Kernels (d: the state's size):",
            "",
            kernels,
            "",
            "| d | nnz(A) | N | filter (s) | estimate (s) | Cholesky (s) | estimate (s)"
            " | Cholesky / filter | faster | engine takes | |Δ nll| |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---:|",
            *rows,
            "",
            "## The chosen kernels' states",
            "",
            "The filter's estimated seconds for one likelihood with its gradient at the series'"
            f" N, at the default SE order ({Orders().se}) and at order {LOW_SE_ORDER}, and the"
            " Cholesky's estimate ('refused': above the exact engine's memory limit; 'no form':"
            " a periodic kernel needs more harmonics than the forms hold). The long series'"
            " kernels are every run's in the file (some series ran more than once).",
            "",
            f"| series | N | d | filter (s) | d, SE order {LOW_SE_ORDER} | filter (s)"
            " | Cholesky (s) |",
            "|---|---:|---:|---:|---:|---:|---:|",
            *chosen_kernels(),
            "",
        ]
    )
    publish(text, args.out)


if __name__ == "__main__":
    main()
