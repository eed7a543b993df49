"""FFT products on a grid with the products that share a modulator merged into one term
(``abcd_cli/engines/grid.py``, issue 65 part 3) against one term per modulated product (before).

The kernel has the structure the search chose for the hourly temperatures of Seattle
(``benchmarks/long_series/outputs/long_series.md``: 16 products under one changewindow gate,
white noise under the other), with illustrative values, x in years on 8,760 consecutive hours.
y is the synthetic hourly series (``benchmarks.long_series.synthetic``) standardised. Timed: one
K·v (one column, best of ``--repeats``) and one skc score, the PCG upper bound with a constant
mean at m inducing inputs (best of ``--score-repeats``), on one BLAS thread. Run from the
project folder::

    OPENBLAS_NUM_THREADS=1 .venv/bin/python -m benchmarks.engines.bench_grid_modulators \\
        --out benchmarks/engines/outputs/grid_modulators.md
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np

import abcd_cli.engines.sparse_upper as sparse_upper
from abcd_cli.engines.grid import GridPlan, Operator, grid_plan
from abcd_cli.engines.sparse import SparseEngine
from abcd_cli.files import write_output
from abcd_cli.kernels import Kernel, product
from abcd_cli.kernels.algebra import factor_lists
from abcd_cli.kernels.text import parse_kernel
from benchmarks.common import best_time, load_average, machine_line, python_command
from benchmarks.long_series.synthetic import hourly_series

YEAR_HOURS = 24 * 365.2425
DAY = 1.0 / 365.2425
#: Seattle's chosen structure (x in years), illustrative values.
KERNEL = (
    f"(C(sd=1.0) + Per(lengthscale=1.0, period={DAY}, sd=0.8) * SE(lengthscale=0.05, sd=1.0))"
    f" * (C(sd=0.5) + Per(lengthscale=2.0, period={DAY}, sd=0.5) * SE(lengthscale=0.2, sd=1.0))"
    " * CW((C(sd=1.0) + SE(lengthscale=0.3, sd=1.0))"
    f" * (Per(lengthscale=0.8, period={DAY}, sd=0.6) * SE(lengthscale=0.02, sd=1.0)"
    " + SE(lengthscale=0.01, sd=0.5)), WN(sd=0.3), location=0.5, width=0.4, steepness=1.0)"
)


def unmerged_plan(kernel: Kernel, X: np.ndarray) -> GridPlan | None:
    """The FFT plan with one term per noise-free product (before merging): each product's own
    plan, their terms together. Before merging, the products without a modulator shared one
    term; every product of ``KERNEL`` has its gate's modulator, so the two agree here."""
    products = [f for f in factor_lists(kernel) if not any(factor.is_noise for factor in f)]
    plans = [grid_plan(product(factors), X) for factors in products]
    if not plans or any(plan is None for plan in plans):
        return None
    first = plans[0]
    terms = [term for plan in plans for term in plan.terms]  # type: ignore[union-attr]
    return GridPlan(first.k, first.size, first.length, terms, first.repeated)  # type: ignore[union-attr]


def unmerged_matvec(kernel: Kernel, X: np.ndarray) -> Operator | None:
    """V ↦ K V by ``unmerged_plan``."""
    plan = unmerged_plan(kernel, X)
    return None if plan is None else plan.matvec


@contextlib.contextmanager
def products_unmerged() -> Iterator[None]:
    """The upper bound's FFT products with one term per modulated product (before merging)."""
    saved = sparse_upper.grid_matvec
    sparse_upper.grid_matvec = unmerged_matvec
    try:
        yield
    finally:
        sparse_upper.grid_matvec = saved


def measure(n: int, m: int, repeats: int, score_repeats: int) -> list[dict[str, float | str]]:
    """One row per route (by product, by modulator): FFT terms, K·v seconds, the score's
    seconds, value, PCG products and certificate, and the K·v's largest difference from the
    first route's, relative to its largest entry."""
    kernel = parse_kernel(KERNEL)
    X = (np.arange(n) / YEAR_HOURS)[:, None]
    y = hourly_series(n).y
    y = (y - y.mean()) / y.std()
    v = np.random.default_rng(n).standard_normal(n)
    engine = SparseEngine(m=m)
    rows: list[dict[str, float | str]] = []
    reference = None
    for route, merge in (("by product (before)", False), ("by modulator (after)", True)):
        plan = grid_plan(kernel, X) if merge else unmerged_plan(kernel, X)
        assert plan is not None
        product = plan.matvec(v)
        reference = product if reference is None else reference
        diff = float(np.max(np.abs(product - reference)) / np.max(np.abs(reference)))
        matvec_s = best_time(lambda plan=plan: plan.matvec(v), repeats)
        with contextlib.ExitStack() as stack:
            if not merge:
                stack.enter_context(products_unmerged())
            bound = engine.upper_bound(kernel, X, y, constant_mean=True)
            score_s = best_time(
                lambda: engine.upper_bound(kernel, X, y, constant_mean=True), score_repeats
            )
        rows.append(
            {
                "route": route,
                "terms": len(plan.terms),
                "matvec": matvec_s,
                "diff": diff,
                "score": score_s,
                "value": bound.value,
                "products": bound.products,
                "certificate": bound.certificate,
            }
        )
        print(rows[-1], flush=True)
    return rows


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=8_760)
    p.add_argument("--m", type=int, default=500)
    p.add_argument("--repeats", type=int, default=20)
    p.add_argument("--score-repeats", type=int, default=2)
    p.add_argument("--out", type=Path, default=None)
    argv = sys.argv[1:] if argv is None else argv
    args = p.parse_args(argv)
    command = python_command("benchmarks.engines.bench_grid_modulators", argv)
    load_before = load_average()
    rows = measure(args.n, args.m, args.repeats, args.score_repeats)
    lines = [
        "# FFT products merged by modulator: one K·v and one skc score",
        "",
        f"Made by `OPENBLAS_NUM_THREADS=1 {command}`; {machine_line()} (it was {load_before}"
        " when the run began; the machine is shared, so times are indicative).",
        f"Kernel: Seattle's chosen structure with illustrative values"
        f" (`benchmarks/engines/bench_grid_modulators.py`), N = {args.n:,} hours (x in years),"
        f" y the synthetic hourly series standardised; K·v: one column, best of {args.repeats};"
        f" score: the PCG upper bound with a constant mean, m = {args.m}, best of"
        f" {args.score_repeats}.",
        "",
        "| route | FFT terms | one K·v (ms) | K·v difference / largest entry | skc score (s)"
        " | upper bound | PCG products | certificate |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for index, r in enumerate(rows):
        diff = "—" if index == 0 else f"{r['diff']:.1e}"
        lines.append(
            f"| {r['route']} | {r['terms']} | {1e3 * r['matvec']:.2f} | {diff}"
            f" | {r['score']:.2f} | {r['value']:.6f} | {r['products']} | {r['certificate']:.2e} |"
        )
    before, after = rows
    lines += [
        "",
        f"Speed-up: K·v {before['matvec'] / after['matvec']:.1f}×, score"
        f" {before['score'] / after['score']:.2f}×; the bounds differ by"
        f" {abs(before['value'] - after['value']):.1e} nats (each is a bound whatever PCG's"
        " vector; the rounding of the products moves PCG's path and where it stops).",
    ]
    print("\n".join(lines))
    if args.out:
        write_output(args.out, "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
