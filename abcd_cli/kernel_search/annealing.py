"""Data annealing for sequential Monte Carlo: the data in growing steps, and how much each step's
new points weigh a particle.

Sequential Monte Carlo over the data (Saad et al., ICML 2023) brings the observations in step by
step. At each step a particle (a kernel with its parameters) is reweighted by the predictive
density of the new points given the earlier ones,

    log p(y_new | y_old) = log p(y_old ∪ y_new) − log p(y_old),

two marginal likelihoods from the engine (its objective is −log p(y) on the exact engine).
The steps follow an order of the rows, given by the caller: a series' time order forecasts the
next stretch from the past (the sampler, ``smc``, uses the rows' own order for now).
"""

from __future__ import annotations

import math

import numpy as np

from abcd_cli.engines.base import Engine
from abcd_cli.kernel_search.evidence import log_likelihood
from abcd_cli.kernels import Kernel


def data_steps(n: int, steps: int, first: int, order: np.ndarray | None = None) -> list[np.ndarray]:
    """Nested sets of row positions: the first ``first`` rows of ``order`` (default: 0..n−1),
    then ``steps`` − 1 more sets growing evenly to all n rows (one step: all of them). Each set
    is sorted."""
    order = np.arange(n) if order is None else np.asarray(order)
    if sorted(order.tolist()) != list(range(n)):
        raise ValueError("order must hold each row position once")
    first = max(1, min(first, n))
    ends = np.unique(np.round(np.linspace(first, n, steps)).astype(int)) if steps > 1 else [n]
    return [np.sort(order[:end]) for end in ends]


def log_predictive(
    kernel: Kernel,
    X: np.ndarray,
    y: np.ndarray,
    old: np.ndarray,
    new: np.ndarray,
    engine: Engine,
    constant_mean: bool = False,
) -> float:
    """log p(y[new] | y[old]) under ``kernel`` (``old`` ⊂ ``new``, row positions), in the
    fitter's units; −inf when either marginal likelihood cannot be computed."""
    both = log_likelihood(engine, kernel, X[new], y[new], constant_mean)
    before = log_likelihood(engine, kernel, X[old], y[old], constant_mean) if old.size else 0.0
    return step_weight(before, both)


def step_weight(before: float, both: float) -> float:
    """log p(y_new | y_old) from log p(y_old) (``before``) and log p(y_old ∪ y_new)
    (``both``): their difference, −inf when either is not finite."""
    return both - before if math.isfinite(both) and math.isfinite(before) else -math.inf
