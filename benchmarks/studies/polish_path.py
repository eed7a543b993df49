"""One full-data model's fit continued by L-BFGS-B on a chosen skc objective, scored at given
iterations of the same run by the Titsias bound, by CGLB and exactly (``level_split``'s
``--polish-at``).

Each objective's value F is an upper bound on −log p(y), so BIC_F = 2·F + p·log N (user units)
is at least the exact BIC; BIC_F − BIC_exact is how loose the objective is at that fit.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np
from scipy.optimize import minimize

from abcd_cli.engines.sparse import SparseEngine
from abcd_cli.kernel_search.init import theta_bounds
from abcd_cli.kernels import Kernel
from abcd_cli.kernels.algebra import count_params
from abcd_cli.model import bic

if TYPE_CHECKING:
    from abcd_cli.kernel_search.greedy import Search


def objective_bic(search: Search, engine: SparseEngine, kernel: Kernel) -> float:
    """BIC = 2·F + p·log N in the user's units, F = ``engine``'s objective (−LB)."""
    data = search.data
    value = engine.objective_value(kernel, data.X, data.Y, data.constant_mean)
    nll = data.scaling.nll_out(value, data.n - data.constant_mean)
    return bic(nll, count_params(kernel), data.n)


@dataclass(frozen=True)
class PathPoint:
    """One iterate of a polish run: the run's cost so far and the fit's three BICs."""

    iteration: int
    evaluations: int
    wall: float
    cpu: float
    bic_titsias: float
    bic_cglb: float
    bic_exact: float
    interval: tuple[float, float] | None = None  # the finalists' BIC interval, when scored


def polish_path(
    search: Search,
    kernel: Kernel,
    engine: SparseEngine,
    at: list[int],
    exact_bic: Callable[[Search, Kernel], float],
    scale: float = 1.0,
    interval_bic: Callable[[Search, Kernel], tuple[float, float]] | None = None,
) -> list[PathPoint]:
    """Run L-BFGS-B on ``engine``'s objective from ``kernel`` for max(``at``) iterations on all
    the data, keeping the iterate at each iteration in ``at`` (0: the start; the last one if
    the run stops early), and score each kept fit by the Titsias bound, CGLB and
    ``exact_bic``, with the evaluations, wall and CPU seconds the run had used by then.
    ``scale`` s: the run is over u with θ = θ₀ + s·u (gradient s·∇F), so that L-BFGS-B's first
    step, of length 1 in u, is s long in θ (its default, s = 1, overshoots on a stiff
    objective). ``interval_bic``: also each kept fit's BIC interval (the finalists' score)."""
    data = search.data
    start = kernel.theta()
    bounds = [
        ((lo - t) / scale if lo is not None else None, (hi - t) / scale if hi is not None else None)
        for (lo, hi), t in zip(theta_bounds(kernel, data.full_summary), start, strict=True)
    ]
    kept: dict[int, tuple[np.ndarray, int, float, float]] = {0: (start, 0, 0.0, 0.0)}
    calls = [0]
    started, cpu = time.perf_counter(), time.process_time()

    def counted(u: np.ndarray, *args: object) -> tuple[float, np.ndarray]:
        calls[0] += 1
        value, grad = engine.objective(start + scale * u, *args)  # type: ignore[arg-type]
        return value, scale * grad

    def noted(xk: np.ndarray) -> None:
        iteration = noted.iterations + 1  # type: ignore[attr-defined]
        noted.iterations = iteration  # type: ignore[attr-defined]
        if iteration in at:
            wall, used = time.perf_counter() - started, time.process_time() - cpu
            kept[iteration] = (start + scale * np.array(xk), calls[0], wall, used)

    noted.iterations = 0  # type: ignore[attr-defined]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = minimize(
            counted,
            np.zeros_like(start),
            args=(kernel, data.X, data.Y, data.constant_mean),
            jac=True,
            method="L-BFGS-B",
            bounds=bounds,
            options={"maxiter": max(at)},
            callback=noted,
        )
    stopped = noted.iterations  # type: ignore[attr-defined]
    if stopped < max(at):  # converged (or stopped) early: its end stands for the rest
        wall, used = time.perf_counter() - started, time.process_time() - cpu
        kept[stopped] = (start + scale * np.array(res.x), calls[0], wall, used)
    titsias, cglb = replace(engine, bound="titsias"), replace(engine, bound="cglb")
    points = []
    for iteration in sorted(kept):
        theta, evaluations, wall, used = kept[iteration]
        k = kernel.with_theta(theta)
        points.append(
            PathPoint(
                iteration,
                evaluations,
                wall,
                used,
                objective_bic(search, titsias, k),
                objective_bic(search, cglb, k),
                exact_bic(search, k),
                interval_bic(search, k) if interval_bic else None,
            )
        )
    return points


def shown_path(label: str, bound: str, points: list[PathPoint]) -> None:
    """Print a polish run's path as ``level_split`` reports it."""
    print(f"{bound} polish of {label} ({points[-1].iteration} iterations):")
    print("   iter  evals   wall s    CPU s   BIC Titsias      BIC CGLB     BIC exact  interval")
    for p in points:
        shown = f" [{p.interval[0]:.2f}, {p.interval[1]:.2f}]" if p.interval else ""
        print(
            f"  {p.iteration:5d} {p.evaluations:6d} {p.wall:8.1f} {p.cpu:8.1f}"
            f" {p.bic_titsias:13.2f} {p.bic_cglb:13.2f} {p.bic_exact:13.2f}{shown}",
            flush=True,
        )
