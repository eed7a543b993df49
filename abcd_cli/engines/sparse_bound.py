"""The variational lower bound on log p(y) (Titsias 2009; SKC paper §3.1, eq. 1) and its
analytic gradient, in O(N m²) time and O(N m) memory, never an N×N matrix.

With the white-noise diagonal D (it varies by point when WN sits in a product) and
Q = K_nz K_zz⁻¹ K_zn (``engines/nystrom.py``):
    LB = log N(y | 0, Q + D) - ½ tr(D⁻¹ (K - Q))
       = -½ [N log 2π + Σ log D_i + log|B| + ỹᵀỹ - |L_B⁻¹ A ỹ|² + Σ c_i/D_i - tr(A Aᵀ)],
c = diag of the noise-free K (only the diagonal of K is needed). With ``constant_mean`` the
flat-prior level is integrated out of N(y | β1, Q + D) as the exact engine does with K:
(N - 1) log 2π, the GLS quadratic and + log 1ᵀ(Q + D)⁻¹1 (``nystrom.Fit``); the result is still a
lower bound on the exact level-integrated likelihood (the bound holds for every β).

Gradient of F = -LB, with Σ = K_zz + K_zn D⁻¹ K_nz = L B Lᵀ and the data columns Ỹ (y, or
r = y - β̂1 and u = 1/√a, times D^(-1/2)), β = B⁻¹ A Ỹ, H = B⁻¹ + ββᵀ - I:
    ∂F/∂K_zz = ½ L⁻ᵀ (H + A Aᵀ) L⁻¹                (plus the jitter's share: ε ∝ tr K_zz),
    ∂F/∂K_nz, row i = [L⁻ᵀ (H a_i - β ỹ_i)]ᵀ / √D_i,
    ∂F/∂c_i = ½ / D_i,
    ∂F/∂D_i = [½ - ½|ỹ_i|² - ½ c_i/D_i - ½ a_iᵀ H a_i + ỹ_iᵀ βᵀ a_i] / D_i,
then through ``kernel.vjp(Z, Z')``, ``kernel.vjp(X_rows, Z)`` (row blocks) and
``kernel.diag_vjp(X)`` to theta. (From F = ½[Σ log D + log|Σ| - log|K_zz| + ỸᵀỸ - bᵀΣ⁻¹b
+ Σ c/D - tr(K_zz⁻¹ P)], P = K_zn D⁻¹ K_nz, b = K_zn D⁻¹ Y.)
"""

from __future__ import annotations

import math

import numpy as np
from scipy.linalg import LinAlgError

from abcd_cli.engines.base import FAILED_NLL, LOG_2PI
from abcd_cli.engines.nystrom import (
    KEEP_ELEMENTS,
    Fit,
    InducingFactor,
    Whitened,
    data_columns,
    factor_inducing,
    row_blocks,
    whitened_pass,
)
from abcd_cli.kernels import Kernel


def negative_bound(
    w: Whitened, fit: Fit, c: np.ndarray, d: np.ndarray, constant_mean: bool, jensen: bool = False
) -> float:
    """-LB from one whitened pass (see the module's formula). With ``jensen`` the trace term
    t = tr(D⁻¹(K - Q)) enters as N log(1 + t/N) (CGLB's log-determinant bound,
    ``engines/cglb.py``) instead of t."""
    n_free = d.size - (1 if constant_mean else 0)
    trace = trace_term(float(np.sum(c / d)) - float(np.trace(w.AAt)), d.size, jensen)
    logdet = float(np.sum(np.log(d))) + w.logdet_B  # log|Q + D|
    return 0.5 * (n_free * LOG_2PI + logdet + fit.log_a + fit.quad + trace)


def trace_term(t: float, n: int, jensen: bool) -> float:
    """t (Titsias), or N log(1 + t/N) ≥ log|I + D^(-1/2)(K - Q)D^(-1/2)| (Jensen, CGLB)."""
    return n * math.log1p(t / n) if jensen else t


def trace_weight(t: float, n: int, jensen: bool) -> float:
    """d(trace_term)/dt: 1, or 1/(1 + t/N)."""
    return 1.0 / (1.0 + t / n) if jensen else 1.0


def _finite(value: float, grad: np.ndarray | None = None) -> bool:
    return math.isfinite(value) and (grad is None or bool(np.all(np.isfinite(grad))))


def bound_value(
    kernel: Kernel, X: np.ndarray, y: np.ndarray, Z: np.ndarray, constant_mean: bool, jitter: float
) -> float:
    """-LB at the kernel's values; ``FAILED_NLL`` when it cannot be computed (no noise,
    K_zz not factorisable, numbers that break)."""
    try:
        with np.errstate(all="ignore"):
            c, d = kernel.diag_parts(X)
            if not np.all(d > 0):
                return FAILED_NLL
            factor = factor_inducing(kernel.gram(Z, Z.copy()), jitter)
            if factor is None:
                return FAILED_NLL
            w = whitened_pass(kernel, X, Z, factor, d, data_columns(y, constant_mean))
            value = negative_bound(w, Fit.from_gram(w.gram_inverse()), c, d, constant_mean)
    except (LinAlgError, ValueError, FloatingPointError):
        return FAILED_NLL
    return value if _finite(value) else FAILED_NLL


def bound_and_grad(
    theta: np.ndarray,
    kernel: Kernel,
    X: np.ndarray,
    y: np.ndarray,
    Z: np.ndarray,
    constant_mean: bool,
    jitter: float,
) -> tuple[float, np.ndarray]:
    """-LB at ``theta`` and its gradient in theta; (``FAILED_NLL``, 0) when it fails."""
    failed = FAILED_NLL, np.zeros(len(theta))
    k = kernel.with_theta(theta)
    try:
        with np.errstate(all="ignore"):
            result = nystrom_bound_and_grad(k, X, y, Z, constant_mean, jitter)
    except (LinAlgError, ValueError, FloatingPointError):
        return failed
    if result is None or not _finite(*result[:2]):
        return failed
    return result[:2]


def nystrom_bound_and_grad(
    k: Kernel,
    X: np.ndarray,
    y: np.ndarray,
    Z: np.ndarray,
    constant_mean: bool,
    jitter: float,
    jensen: bool = False,
) -> tuple[float, np.ndarray, np.ndarray] | None:
    """-LB, its gradient in theta with y held fixed, and s = (Q + D)⁻¹(y - β̂1) (the GLS
    residual through Q + D, what CGLB's gradient needs for its y); None when D or K_zz fails.
    With ``jensen`` the trace term is CGLB's N log(1 + t/N): its adjoints (the -I of H on
    K_nz and in a_iᵀHa_i, A Aᵀ on K_zz, c/D on c and D) are scaled by g = 1/(1 + t/N)."""
    c, d, diag_back = k.diag_vjp(X)
    if not np.all(d > 0):
        return None
    Kzz, zz_back = k.vjp(Z, Z.copy())
    factor = factor_inducing(Kzz, jitter)
    if factor is None:
        return None
    blocks = row_blocks(X.shape[0], factor.m)
    kept: dict[int, tuple] = {}
    # a small K_nz is evaluated once, with its reverse mode, kept for the backward pass
    cross = _keeping(k, X, Z, kept) if X.shape[0] * factor.m <= KEEP_ELEMENTS else None
    Y = data_columns(y, constant_mean)
    w = whitened_pass(k, X, Z, factor, d, Y, cross=cross)
    fit = Fit.from_gram(w.gram_inverse())
    value = negative_bound(w, fit, c, d, constant_mean, jensen)
    g = trace_weight(float(np.sum(c / d)) - float(np.trace(w.AAt)), d.size, jensen)

    Yg = Y @ fit.gradient_columns()  # the columns carrying the gradient
    beta = w.solve_B(w.AY @ fit.gradient_columns())
    H = w.solve_B(np.eye(factor.m)) + beta @ beta.T
    H -= g * np.eye(factor.m)
    grad = zz_back(_inducing_adjoint(factor, H + g * w.AAt + (g - 1.0) * np.eye(factor.m)))
    gd = np.empty_like(d)
    s = np.empty_like(d)
    isd = 1.0 / np.sqrt(d)
    for rows in blocks:
        W, back = kept.pop(rows.start) if kept else k.vjp(X[rows], Z)
        A = factor.solve_left(W.T)
        A *= isd[rows]
        Yt = Yg[rows] * isd[rows, None]
        HA = H @ A
        M = HA - beta @ Yt.T
        GWt = factor.solve_left_t(M)
        GWt *= isd[rows]
        grad += back(GWt.T)
        quad_i = np.sum(A * HA, axis=0)
        cross_i = np.sum(Yt * (A.T @ beta), axis=1)
        gd[rows] = 0.5 - 0.5 * np.sum(Yt * Yt, axis=1) - 0.5 * g * c[rows] / d[rows]
        gd[rows] += cross_i - 0.5 * quad_i
        gd[rows] /= d[rows]
        s[rows] = (Yt[:, 0] - A.T @ beta[:, 0]) * isd[rows]
    grad += diag_back(0.5 * g / d, gd)
    return value, grad, s


def _keeping(k: Kernel, X: np.ndarray, Z: np.ndarray, kept: dict[int, tuple]):
    """A ``cross`` for ``whitened_pass`` that makes K(X[rows], Z) by ``vjp`` and keeps the
    pair (K, its reverse mode) in ``kept[rows.start]``."""

    def cross(rows: slice) -> np.ndarray:
        kept[rows.start] = k.vjp(X[rows], Z)
        return kept[rows.start][0]

    return cross


def _inducing_adjoint(factor: InducingFactor, S: np.ndarray) -> np.ndarray:
    """∂F/∂K_zz = ½ L⁻ᵀ S L⁻¹ with S = H + A Aᵀ, plus the jitter's share: ε = rel·tr(K_zz)/m
    adds (rel/m)·tr(∂F/∂(K_zz + εI))·I."""
    G = 0.5 * factor.sandwich(S)
    G[np.diag_indices_from(G)] += factor.rel / factor.m * float(np.trace(G))
    return G
