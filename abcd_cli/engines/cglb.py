"""CGLB: the conjugate-gradient lower bound on log p(y) (Artemev, Burt & van der Wilk, ICML
2021), skc's objective, and its gradient with the CG vector held fixed.

With K̂ = K + D (K the noise-free Gram, D the white-noise diagonal), P = Q + D ⪯ K̂ (Nyström,
``engines/nystrom.py``) and any vector v, r = y - K̂v:
    yᵀK̂⁻¹y = 2vᵀy - vᵀK̂v + rᵀK̂⁻¹r ≤ 2vᵀy - vᵀK̂v + rᵀP⁻¹r           (P⁻¹ ⪰ K̂⁻¹),
    log|K̂| = log|P| + log|I + E| ≤ log|P| + N log(1 + tr E/N)          (Jensen; E ⪰ 0),
    tr E = tr(P⁻¹(K - Q)) ≤ t = tr(D⁻¹(K - Q))                         (P ⪰ D),
so -log p(y) ≤ F = ½[N log 2π + log|P| + N log(1 + t/N) + 2vᵀy - vᵀK̂v + rᵀP⁻¹r]. With a
constant mean under a flat prior (integrated out as the exact engine does): v with 1ᵀv = 0
makes 2vᵀ(y - β1) = 2vᵀy for every β, so the GLS quadratic min_β (y - β1)ᵀK̂⁻¹(y - β1) is at
most 2vᵀy - vᵀK̂v + min_β (r - β1)ᵀP⁻¹(r - β1), and log 1ᵀK̂⁻¹1 ≤ log 1ᵀP⁻¹1; N - 1 replaces
N in the 2π term. The bound is F with r as the data column of the Nyström bound
(``sparse_bound.nystrom_bound_and_grad`` with the Jensen trace term) plus ½(2vᵀy - vᵀK̂v).

v comes from PCG on K̂v = y preconditioned by P (``sparse_upper``), warm-started from the
previous v of the same kernel object on the same data (an L-BFGS run's evaluations), and is
held fixed in the gradient: with s = P⁻¹(r - β̂1) and w = v + s,
    dF = [Nyström part, r fixed] - ½ vᵀdK̂v - sᵀdK̂v,
i.e. the adjoint -½(vvᵀ + svᵀ + vsᵀ) on K (row blocks of k(X, X'), never N×N) and
-½v² - s∘v on D. At the CG solution v* the bound is stationary in v, so the gradient with v
fixed is the bound's gradient up to the CG tolerance; for the fixed v it is exact.
"""

from __future__ import annotations

import math
import weakref
from dataclasses import dataclass

import numpy as np
from scipy.linalg import LinAlgError

from abcd_cli.engines.base import FAILED_NLL, LOG_2PI
from abcd_cli.engines.nystrom import SQUARE_BLOCK_ELEMENTS, row_blocks
from abcd_cli.engines.sparse_bound import nystrom_bound_and_grad
from abcd_cli.engines.sparse_upper import NystromSolve, solve_with_nystrom
from abcd_cli.kernels import Kernel

#: How many kernels' CG vectors are kept for warm starts (per process).
WARM_KEPT = 16
_WARM: dict[int, tuple[weakref.ref, tuple, np.ndarray]] = {}


@dataclass(frozen=True)
class CGLBSettings:
    """The CG's stopping certificate (nats) and budget of products with K̂."""

    jitter: float
    tol: float
    max_products: int

    def as_tuple(self) -> tuple[float, float, int]:
        return self.jitter, self.tol, self.max_products


def _fingerprint(
    X: np.ndarray, y: np.ndarray, Z: np.ndarray, constant_mean: bool, settings: CGLBSettings
) -> tuple:
    """What tells one problem from another for a warm start (any v gives a valid bound; this
    only keeps a start from another problem from slowing the CG)."""
    data = (float(X[0, 0]), float(X[-1, 0]), float(np.sum(y)), float(np.sum(Z)))
    return (X.shape, Z.shape, constant_mean, settings, *data)


def _warm_start(kernel: Kernel, key: tuple) -> np.ndarray | None:
    entry = _WARM.get(id(kernel))
    if entry is None or entry[0]() is not kernel or entry[1] != key:
        return None
    return entry[2]


def _remember(kernel: Kernel, key: tuple, alpha: np.ndarray) -> None:
    if len(_WARM) >= WARM_KEPT:
        _WARM.pop(next(iter(_WARM)))
    _WARM[id(kernel)] = (weakref.ref(kernel), key, alpha)


def cg_vector(
    kernel: Kernel,
    X: np.ndarray,
    y: np.ndarray,
    Z: np.ndarray,
    constant_mean: bool,
    settings: CGLBSettings,
    warm_from: Kernel | None = None,
) -> NystromSolve:
    """v (with 1ᵀv = 0 under a constant mean) and r = y - K̂v by PCG preconditioned with Q + D,
    started from the last v kept for ``warm_from`` on these data."""
    key = _fingerprint(X, y, Z, constant_mean, settings)
    alpha0 = None if warm_from is None else _warm_start(warm_from, key)
    sol = solve_with_nystrom(
        kernel, X, y, Z, constant_mean, settings.jitter, settings.tol, settings.max_products, alpha0
    )
    if warm_from is not None:
        _remember(warm_from, key, sol.raw_alpha)
    return sol


def cglb_value(
    kernel: Kernel,
    X: np.ndarray,
    y: np.ndarray,
    Z: np.ndarray,
    constant_mean: bool,
    settings: CGLBSettings,
) -> float:
    """-CGLB at the kernel's values (cold CG start); ``FAILED_NLL`` when it cannot be computed."""
    try:
        with np.errstate(all="ignore"):
            sol = cg_vector(kernel, X, y, Z, constant_mean, settings)
            value = value_from_solve(sol, y)
    except (LinAlgError, ValueError, FloatingPointError, ZeroDivisionError):
        return FAILED_NLL
    return value if math.isfinite(value) else FAILED_NLL


def value_from_solve(sol: NystromSolve, y: np.ndarray) -> float:
    """F = -CGLB from a solve: the Nyström part on r (Jensen trace) plus ½(2vᵀy - vᵀK̂v)."""
    ny = sol.nystrom
    r = sol.residual
    fit = ny.fit_of(r)
    n = y.size
    t = max(float(np.sum(ny.c / ny.d)) - float(np.trace(ny.w.AAt)), 0.0)
    quad = 2.0 * float(sol.v @ y) - float(sol.v @ (y - r)) + fit.quad
    return -ny.logdet_term(fit) + 0.5 * (quad + n * math.log1p(t / n) + ny.n_free * LOG_2PI)


def cglb_and_grad(
    theta: np.ndarray,
    kernel: Kernel,
    X: np.ndarray,
    y: np.ndarray,
    Z: np.ndarray,
    constant_mean: bool,
    settings: CGLBSettings,
) -> tuple[float, np.ndarray]:
    """-CGLB at ``theta`` and its gradient with v fixed; (``FAILED_NLL``, 0) when it fails. The
    CG starts from the v of the previous call with the same ``kernel`` object and data."""
    failed = FAILED_NLL, np.zeros(len(theta))
    k = kernel.with_theta(theta)
    try:
        with np.errstate(all="ignore"):
            sol = cg_vector(k, X, y, Z, constant_mean, settings, warm_from=kernel)
            result = _grad_from(k, sol, X, y, Z, constant_mean, settings.jitter)
    except (LinAlgError, ValueError, FloatingPointError, ZeroDivisionError):
        return failed
    if result is None or not (math.isfinite(result[0]) and np.all(np.isfinite(result[1]))):
        return failed
    return result


def _grad_from(
    k: Kernel,
    sol: NystromSolve,
    X: np.ndarray,
    y: np.ndarray,
    Z: np.ndarray,
    constant_mean: bool,
    jitter: float,
) -> tuple[float, np.ndarray] | None:
    v, r = sol.v, sol.residual
    part = nystrom_bound_and_grad(k, X, r, Z, constant_mean, jitter, jensen=True)
    if part is None:
        return None
    value, grad, s = part
    value += float(v @ y) - 0.5 * float(v @ (y - r))  # ½(2vᵀy - vᵀK̂v), K̂v = y - r
    _, _, diag_back = k.diag_vjp(X)
    grad += diag_back(np.zeros_like(v), -0.5 * v * v - s * v)
    grad += _square_vjp(k, X, v, s)
    return value, grad


def _square_vjp(k: Kernel, X: np.ndarray, v: np.ndarray, s: np.ndarray) -> np.ndarray:
    """Σ_ij G_ij ∂K_ij/∂θ for G = -½(vvᵀ + svᵀ + vsᵀ), K = k(X, X') noise-free, in row blocks."""
    n = X.shape[0]
    total = np.zeros(len(k.theta()))
    w = v + s
    for rows in row_blocks(n, n, SQUARE_BLOCK_ELEMENTS):
        _, back = k.vjp(X[rows], X)
        # -½(vvᵀ + svᵀ + vsᵀ) = -½(w wᵀ - s sᵀ)
        G = np.outer(w[rows], w) - np.outer(s[rows], s)
        total += back(-0.5 * G)
    return total
