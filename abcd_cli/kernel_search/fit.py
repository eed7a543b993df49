"""Multi-start optimisation of a kernel's parameters through an engine's objective.

L-BFGS-B minimises ``engine.objective`` (exact engine: −log p(y)) over theta (log of positive
parameters, raw locations) within ``theta_bounds``, from starting points drawn by
``initial_values``; the best run wins. An optimiser error in one start is counted, never raised.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
from scipy.linalg import LinAlgError
from scipy.optimize import minimize

from abcd_cli.arrays import as_2d
from abcd_cli.data.summary import InputSummaries, Summary
from abcd_cli.engines import get_engine
from abcd_cli.engines.base import FAILED_NLL, Engine
from abcd_cli.kernel_search.init import initial_values, theta_bounds
from abcd_cli.kernels import Kernel

#: The engine a search uses unless told otherwise: the registry's default (the exact GP).
DEFAULT_ENGINE = get_engine()


@dataclass(frozen=True)
class FitResult:
    """The best of several optimiser runs; ``nll``: the engine's objective there."""

    kernel: Kernel
    nll: float
    n_starts: int
    n_failed: int
    n_evaluations: int

    @property
    def ok(self) -> bool:
        return self.nll < FAILED_NLL


def minimise(
    theta: np.ndarray,
    kernel: Kernel,
    X: np.ndarray,
    y: np.ndarray,
    bounds: list[tuple[float, float]],
    max_iter: int,
    ftol: float | None = None,
    constant_mean: bool = False,
    engine: Engine = DEFAULT_ENGINE,
) -> tuple[np.ndarray, float, int]:
    """One L-BFGS-B run of ``engine``'s objective from ``theta`` within ``bounds`` (the
    optimiser coordinates of ``kernel``'s structure, as ``theta_bounds`` gives them), at most
    ``max_iter`` iterations: (theta reached, objective there, evaluations); the objective is
    FAILED_NLL and theta the start when the optimiser broke. ``fit`` is several of these from
    drawn starts; the engine benchmark's studies call it to try other multi-start strategies.

    ``ftol``: L-BFGS-B's relative-reduction stopping rule; None keeps scipy's default."""
    options: dict[str, float] = {"maxiter": max_iter}
    if ftol is not None:
        options["ftol"] = ftol
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = minimize(
                engine.objective,
                theta,
                args=(kernel, X, y, constant_mean),
                jac=True,
                method="L-BFGS-B",
                bounds=bounds,
                options=options,
            )
    except (ValueError, LinAlgError, ArithmeticError):
        return theta, FAILED_NLL, 0
    nll = float(res.fun)
    return res.x, (nll if math.isfinite(nll) else FAILED_NLL), int(res.nfev)


def fit(
    kernel: Kernel,
    X: np.ndarray,
    y: np.ndarray,
    rng: np.random.Generator,
    restarts: int = 10,
    summary: Summary | None = None,
    max_iter: int = 200,
    polish: int | None = None,
    also_from: tuple[Kernel, ...] = (),
    constant_mean: bool = False,
    engine: Engine = DEFAULT_ENGINE,
) -> FitResult:
    """Minimise ``engine``'s objective with L-BFGS-B from several starting points.

    The first start keeps every known (finite) value of ``kernel`` and draws the unknown (NaN)
    ones; later starts draw the unknown ones again. A kernel with nothing unknown is started once.
    ``also_from``: fully known kernels of the same structure, added as further starts.

    With ``polish`` = None every start is optimised (up to ``max_iter`` iterations). With
    ``polish`` = m, the starts are first ranked by the objective and only the best m are
    optimised (the search's economical mode).
    ``constant_mean``: a flat-prior constant mean integrated out of the likelihood.
    """
    X = as_2d(X)
    y = np.asarray(y, dtype=float)
    summary = summary or InputSummaries.from_data(X, y)
    bounds = theta_bounds(kernel, summary)
    n_drawn = max(1, restarts) if not kernel.is_fitted else 1
    # initial_values draws what is unknown and puts every value inside its bounds
    starts = [
        k.with_values(initial_values(k, summary, rng)).theta()
        for k in [kernel] * n_drawn + list(also_from)
    ]
    n_starts = len(starts)
    n_evals = 0
    if polish is not None and polish < n_starts:
        first_look = [
            engine.objective_value(kernel.with_theta(t), X, y, constant_mean) for t in starts
        ]
        n_evals += n_starts
        starts = [starts[i] for i in np.argsort(first_look, kind="stable")[: max(1, polish)]]
    runs = [
        minimise(t, kernel, X, y, bounds, max_iter, constant_mean=constant_mean, engine=engine)
        for t in starts
    ]
    n_evals += sum(r[2] for r in runs)
    ok = [r for r in runs if r[1] < FAILED_NLL]
    n_failed = len(runs) - len(ok)
    if not ok:
        return FitResult(kernel, FAILED_NLL, n_starts, max(n_failed, 1), n_evals)
    theta, nll, _ = min(ok, key=lambda r: r[1])
    return FitResult(kernel.with_theta(theta), nll, n_starts, n_failed, n_evals)
