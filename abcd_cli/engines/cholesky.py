"""Dense linear algebra of the exact engine: a Cholesky factor that survives near-singular
matrices, K⁻¹ from it, and the generalised least-squares level of a constant mean.

Rasmussen & Williams (2006) alg. 2.1: L = chol(K), α = K⁻¹y = Lᵀ\\(L\\y).
A flat-prior constant mean β (R&W §2.7 with B⁻¹ → 0, one basis function h(x) = 1):
    v = K⁻¹1,  a = 1ᵀv,  β̂ = vᵀy / a,  posterior of β: N(β̂, 1/a)  (R&W eq. 2.42).
A factorisation that fails is retried with growing jitter on the diagonal.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.linalg import LinAlgError, cho_solve, cholesky, solve_triangular
from scipy.linalg.lapack import dpotri

# Relative jitter (times the mean prior variance) tried in turn when a Cholesky factorisation fails.
JITTERS = (0.0, 1e-10, 1e-8, 1e-6, 1e-4)


def cholesky_factor(K: np.ndarray) -> np.ndarray | None:
    """Lower Cholesky factor of K, adding jitter if needed; None when it cannot be factorised."""
    if not np.all(np.isfinite(K)):
        return None
    scale = float(np.mean(np.diag(K)))
    if not scale > 0:
        return None
    for jitter in JITTERS:
        A = K if jitter == 0.0 else K + (jitter * scale) * np.eye(K.shape[0])
        try:
            return cholesky(A, lower=True, check_finite=False)
        except LinAlgError:
            continue
    return None


def inverse_from_cholesky(L: np.ndarray) -> np.ndarray:
    """K⁻¹ from its lower Cholesky factor (LAPACK potri, half the work of solving for I)."""
    inv, info = dpotri(L, lower=1)  # fills the lower triangle; L's upper one is zero
    if info != 0:
        raise LinAlgError(f"potri failed with info={info}")
    inv += np.tril(inv, -1).T
    return inv


def solve(L: np.ndarray, b: np.ndarray) -> np.ndarray:
    """K⁻¹b from K's lower Cholesky factor."""
    return cho_solve((L, True), b, check_finite=False)


def forward(L: np.ndarray, b: np.ndarray) -> np.ndarray:
    """L⁻¹b (so that bᵀK⁻¹b = |L⁻¹b|²)."""
    return solve_triangular(L, b, lower=True, check_finite=False)


@dataclass(frozen=True)
class Level:
    """The generalised least-squares estimate of a constant mean with a flat prior.

    v = K⁻¹1, a = 1ᵀv, β̂ = vᵀy / a; the posterior of β is N(β̂, 1/a) (R&W eq. 2.42).
    """

    v: np.ndarray
    a: float
    beta: float

    @classmethod
    def estimate(cls, L: np.ndarray, y: np.ndarray) -> Level:
        v = solve(L, np.ones(y.size))
        a = float(np.sum(v))
        if not a > 0:
            raise LinAlgError("1ᵀK⁻¹1 is not positive")
        return cls(v, a, float(v @ y) / a)


def residual_and_level(
    L: np.ndarray, y: np.ndarray, constant_mean: bool
) -> tuple[np.ndarray, Level | None]:
    """r = y - β̂1 and the level (r = y and no level without ``constant_mean``).

    Everything downstream solves with r, not K⁻¹y - β̂v, so a far level costs no precision."""
    level = Level.estimate(L, y) if constant_mean else None
    return (y if level is None else y - level.beta), level


def weights(
    L: np.ndarray, y: np.ndarray, constant_mean: bool
) -> tuple[np.ndarray, np.ndarray, Level | None]:
    """r = y - β̂1, α = K⁻¹r and the level (see ``residual_and_level``)."""
    r, level = residual_and_level(L, y, constant_mean)
    return r, solve(L, r), level
