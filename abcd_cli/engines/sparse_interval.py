"""An interval on the exact -log p(y) for a finalist: deterministic, with no stochastic estimate.

-log p(y) = ½[N_free log 2π + log|K̂| + log 1ᵀK̂⁻¹1 + min_β (y - β1)ᵀK̂⁻¹(y - β1)] (the last two
with a constant mean; without, log 1ᵀK̂⁻¹1 is absent and the quadratic is yᵀK̂⁻¹y), each term in
an interval:
* log|K̂| = log|Q + D| + log|M|, log|M| from block Lanczos (``engines/lanczos.py``), k grown
  until its width is below ``width`` nats or ``max_steps`` vectors;
* the quadratic from the PCG vector v (1ᵀv = 0 with a level) and r = y - K̂v (``cglb``):
  2vᵀy - vᵀK̂v ≤ quadratic ≤ 2vᵀy - vᵀK̂v + min_β (r - β1)ᵀP⁻¹(r - β1) (the lower end is
  max_u 2uᵀy - uᵀK̂u = yᵀK̂⁻¹y at one u; the upper is CGLB's), a width of twice the certificate;
* 1ᵀK̂⁻¹1 likewise from u = the PCG vector for 1 and r₁ = 1 - K̂u:
  2uᵀ1 - uᵀK̂u ≤ 1ᵀK̂⁻¹1 ≤ min(1ᵀP⁻¹1, 2uᵀ1 - uᵀK̂u + r₁ᵀP⁻¹r₁).
The result is intersected with skc's own ends [-UB, -CGLB] (both hold, so does their overlap).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from abcd_cli.engines.base import LOG_2PI, NLLBounds
from abcd_cli.engines.cglb import value_from_solve
from abcd_cli.engines.lanczos import (
    LogdetInterval,
    PreconditionedResidual,
    residual_logdet_interval,
)
from abcd_cli.engines.sparse_upper import kernel_matvec, solve_with_nystrom, upper_from_solve
from abcd_cli.kernels import Kernel

#: The width (nats) at which the Lanczos steps stop, and their cap. Only the finalists' interval
#: runs them (candidates are scored by skc's own ends). On seattle-temps' chosen model (8,759
#: points, m = 500) 400 vectors left 12.8 nats; with this cap the steps stopped at the target
#: after 576 (4.7 nats, 36 s against 16 s; docs/findings.md). Memory: two N×k blocks (the
#: basis and its images), 112 MB at N = 8,759 and 1.3 GB at N = 10⁵.
TARGET_WIDTH = 5.0
MAX_STEPS = 800
#: The CG's budget of products for a finalist (it stops at its certificate first): near
#: noise-free data with gaps took 233 products where the search's 200 left a 16-nat quadratic.
FINAL_PRODUCTS = 2000


@dataclass(frozen=True)
class LikelihoodInterval:
    """low ≤ -log p(y) ≤ high, with its parts: log|Q + D| (``logdet_p``), the Lanczos interval
    on log|M| = log|K̂| - log|Q + D| (``logdet``), the quadratic's interval (``quadratic``:
    yᵀK̂⁻¹y or its GLS form) and the products with K̂ made in all."""

    bounds: NLLBounds
    logdet: LogdetInterval
    products: int
    logdet_p: float
    quadratic: tuple[float, float]


def likelihood_interval(
    kernel: Kernel,
    X: np.ndarray,
    y: np.ndarray,
    Z: np.ndarray,
    constant_mean: bool,
    jitter: float,
    tol: float,
    max_products: int,
    width: float = TARGET_WIDTH,
    max_steps: int = MAX_STEPS,
) -> LikelihoodInterval:
    """The interval of the module's docstring. ValueError or LinAlgError when a factorisation
    fails."""
    sol = solve_with_nystrom(kernel, X, y, Z, constant_mean, jitter, tol, max_products)
    ny = sol.nystrom
    matvec = kernel_matvec(kernel, X, ny.d)
    op = PreconditionedResidual(matvec, ny.w, ny.c, ny.d)
    logdet = residual_logdet_interval(op, width, max_steps)
    products = sol.products + logdet.products
    quad_low = float(sol.v @ y) + float(sol.v @ sol.residual)  # 2vᵀy - vᵀK̂v, K̂v = y - r
    quad_high = quad_low + ny.fit_of(sol.residual).quad
    log_a_low = log_a_high = 0.0
    if constant_mean:
        u = sol.raw_alpha[:, 1]
        ones = np.ones_like(y)
        r1 = ones - matvec(u[:, None])[:, 0]
        products += 1
        a_low = float(u @ ones) + float(u @ r1)
        a_high = min(ny.fit.a, a_low + float(r1 @ ny.precondition(r1[:, None])[:, 0]))
        log_a_low = math.log(a_low) if a_low > 0 else -math.inf  # then skc's own low end
        log_a_high = math.log(a_high)
    logdet_p = float(np.sum(np.log(ny.d))) + ny.w.logdet_B
    common = ny.n_free * LOG_2PI + logdet_p
    low = 0.5 * (common + logdet.low + log_a_low + quad_low)
    high = 0.5 * (common + logdet.high + log_a_high + quad_high)
    own_low = -upper_from_solve(sol, y).value
    own_high = value_from_solve(sol, y)
    low, high = max(low, own_low), min(high, own_high)
    return LikelihoodInterval(
        NLLBounds(min(low, high), high, products), logdet, products, logdet_p, (quad_low, quad_high)
    )
