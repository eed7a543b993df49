"""The search's chosen model polished once on all the data, before the report: L-BFGS-B on the
engine's polishing objective (skc: CGLB, Artemev, Burt and van der Wilk 2021, eq. 9 with its
gradient at a fixed CG vector, ``engines.cglb``), from the search's fit, with its first step
shortened.

The first step: L-BFGS-B's first iterate moves a length 1 along −∇F in its coordinates. On
Seattle's hourly temperatures F turns upward along −∇F within 1e-5 to 1e-4 in θ (log
parameters; the first periodic term's period makes F stiff), so a run over θ backtracked ten
times and stopped without moving (benchmarks/studies/outputs/cglb_polish.md). The run is over
u with θ = θ₀ + s·u (gradient s·∇F), s = ``FIRST_STEP``: a uniform scale changes only that first
step's length, since L-BFGS-B's later steps take their scale from the secant pairs it collects.

The polished fit is kept only when its BIC (the upper end of ``likelihood_interval``, the
finalists' score) is below the chosen model's, so the chosen model's score never gets worse.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.linalg import LinAlgError
from scipy.optimize import minimize

from abcd_cli.engines.base import Engine
from abcd_cli.kernel_search.init import theta_bounds
from abcd_cli.kernel_search.scoring import Scored
from abcd_cli.kernel_search.search_data import SearchData

#: The first step's length in θ: inside the region where the objectives fell along −∇F on
#: Seattle's hourly temperatures (1e-5, at the fits of two finalists; cglb_polish.md).
FIRST_STEP = 1e-5
#: The polish's iterations when the settings leave it to the engine: 25 took 3-4 CPU minutes
#: on 8,759 points (cglb_final.md).
DEFAULT_ITERATIONS = 25


@dataclass(frozen=True)
class FinalPolish:
    """What the polish did: the chosen model's BIC interval before and after (``after`` None
    when the run broke), its iterations and objective evaluations, and whether it was kept."""

    before: tuple[float, float]
    after: tuple[float, float] | None
    iterations: int
    evaluations: int
    kept: bool


def polished(
    chosen: Scored,
    data: SearchData,
    engine: Engine,
    iterations: int,
    started: Callable[[int], None] | None = None,
) -> tuple[Scored, FinalPolish | None]:
    """``chosen`` after up to ``iterations`` L-BFGS-B iterations of ``engine``'s polishing
    objective F on all the data from θ₀ = its θ, over u with θ = θ₀ + FIRST_STEP·u; the
    polished fit when its BIC (``likelihood_interval``'s upper end) is lower, else ``chosen``.
    None for the record when the engine has no polishing objective or ``iterations`` is 0.
    ``started`` is told the iterations as the polish begins (the search's progress line)."""
    polisher = engine.polishing_engine()
    if polisher is None or iterations < 1:
        return chosen, None
    if started is not None:
        started(iterations)
    kernel, scale = chosen.kernel, FIRST_STEP
    start = kernel.theta()
    bounds = [
        ((lo - t) / scale if lo is not None else None, (hi - t) / scale if hi is not None else None)
        for (lo, hi), t in zip(theta_bounds(kernel, data.full_summary), start, strict=True)
    ]

    def scaled(u: np.ndarray) -> tuple[float, np.ndarray]:
        """F(θ₀ + s·u) and its gradient in u, s·∇F."""
        value, grad = polisher.objective(
            start + scale * u, kernel, data.X, data.Y, data.constant_mean
        )
        return value, scale * grad

    before = (chosen.low, chosen.bic)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = minimize(
                scaled,
                np.zeros_like(start),
                jac=True,
                method="L-BFGS-B",
                bounds=bounds,
                options={"maxiter": iterations},
            )
        moved = kernel.with_theta(start + scale * np.asarray(res.x))
        interval = engine.likelihood_interval(moved, data.X, data.Y, data.constant_mean)
    except (ValueError, LinAlgError, ArithmeticError):
        return chosen, FinalPolish(before, None, 0, 0, False)
    scored = data.scorer.scored(moved, interval.high, data.n, interval)
    after = (scored.low, scored.bic)
    kept = bool(np.isfinite(scored.bic) and scored.bic < chosen.bic)
    record = FinalPolish(before, after, int(res.nit), int(res.nfev), kept)
    return (scored if kept else chosen), record
