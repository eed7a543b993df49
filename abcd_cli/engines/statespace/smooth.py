"""The squared exponential as a finite state-space model, and the rational quadratic as a few
of them.

SE (Hartikainen and Särkkä 2010, "Kalman filtering and smoothing solutions to temporal Gaussian
process regression models", §4): SE(τ) = σ² exp(−τ²/2ℓ²) has the spectral density
S(ω) = σ² √(2π) ℓ exp(−ℓ²ω²/2). Its reciprocal's Taylor series to order n,
exp(ℓ²ω²/2) ≈ P(ω²) = Σ_{k≤n} (ℓ²ω²/2)ᵏ / k!, gives a rational density σ²√(2π)ℓ / P(ω²). With
s = iω, P(−s²) has 2n roots in ± pairs; the n of negative real part make a monic stable
polynomial q(s) = sⁿ + a_{n−1}sⁿ⁻¹ + ... + a₀ with |q(iω)|² = 2ⁿ n! P(ω²) (at ℓ = 1), so the
companion-form SDE f⁽ⁿ⁾ + a_{n−1}f⁽ⁿ⁻¹⁾ + ... + a₀f = w with Qc = σ²√(2π) 2ⁿ n! has that
density. The form is built once per order at ℓ = 1, balanced (a diagonal similarity that
evens out the companion matrix's rows and columns, ``scipy.linalg.matrix_balance``), P∞
solved from the Lyapunov equation on the balanced F, and the state whitened (P∞ = I, so every
A(Δ) is a contraction); a lengthscale ℓ is a change of the time unit, F = F₁/ℓ, P∞ and H
unchanged. The truncated density integrates to slightly more than σ² (1/P ≥ exp(−x));
``NORMALISE_SE`` rescales H so that k(0) = σ² exactly.

RQ(τ) = σ² (1 + τ²/(2αℓ²))^(−α) = σ² E[exp(−ρ τ²/2ℓ²)], ρ ~ Gamma(α, rate α): a scale
mixture of SEs; ``rq_mixture`` takes it by generalised Gauss-Laguerre quadrature with a
given number of nodes, each node an SE of lengthscale ℓ/√ρᵢ and weight wᵢ.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from scipy.linalg import cholesky, matrix_balance, solve_continuous_lyapunov, solve_triangular
from scipy.special import gammaln, roots_genlaguerre

from abcd_cli.engines.statespace.dynamics import LinearSDE

#: Rescale the SE form's P∞ so that its variance is σ² exactly (measured: see the study).
NORMALISE_SE = True


@lru_cache(maxsize=32)
def unit_se(order: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """F, P∞ and H of the order-``order`` SE form at ℓ = 1, σ = 1, balanced; read-only."""
    if order < 1:
        raise ValueError("the SE form's order is at least 1")
    # P(−s²) = Σ_k (−s²/2)ᵏ / k!, highest power first for numpy.roots.
    coeffs = np.zeros(2 * order + 1)
    for k in range(order + 1):
        coeffs[2 * order - 2 * k] = (-0.5) ** k / math.factorial(k)
    roots = np.roots(coeffs)
    stable = roots[roots.real < 0]
    if stable.size != order:
        raise ArithmeticError(f"the order-{order} SE polynomial has roots on the axis")
    a = np.real(np.poly(stable))  # [1, a_{n-1}, ..., a_0]
    F = np.zeros((order, order))
    F[np.arange(order - 1), np.arange(1, order)] = 1.0
    F[-1, :] = -a[:0:-1]
    L = np.zeros(order)
    L[-1] = 1.0
    H = np.zeros(order)
    H[0] = 1.0
    _, (scale, _) = matrix_balance(F, permute=False, separate=True)
    F = F * scale[None, :] / scale[:, None]  # diag(1/s) F diag(s)
    L = L / scale
    H = H * scale
    qc = math.sqrt(2.0 * math.pi) * 2.0**order * math.factorial(order)
    P = solve_continuous_lyapunov(F, -qc * np.outer(L, L))
    # Whiten: with s = C z, C Cᵀ = P∞, the state z has P∞ = I, so that every A(Δ) is a
    # contraction (A Aᵀ + Q = I) and F is nearly normal (F + Fᵀ = −C⁻¹LQcLᵀC⁻ᵀ, rank one).
    C = cholesky(0.5 * (P + P.T), lower=True)
    F = solve_triangular(C, F @ C, lower=True)
    H = H @ C
    if NORMALISE_SE:
        H = H / math.sqrt(float(H @ H))
    P = np.eye(order)
    for m in (F, P, H):
        m.setflags(write=False)
    return F, P, H


def se_block(lengthscale: float, variance: float, order: int) -> tuple[LinearSDE, np.ndarray]:
    """The SE block σ²exp(−τ²/2ℓ²) of ``order`` states, and its observation row H."""
    F, P, H = unit_se(order)
    return LinearSDE(F / lengthscale, variance * P), H


def rq_mixture(lengthscale: float, alpha: float, nodes: int) -> list[tuple[float, float]]:
    """(lengthscale, weight) of each SE of the RQ's Gauss-Laguerre mixture (weights sum to 1).

    ∫ ρ^(α−1) e^(−αρ) αᵅ/Γ(α) g(ρ) dρ = Σ wᵢ g(xᵢ/α) / Γ(α) over the generalised Laguerre
    nodes xᵢ of parameter α − 1; g(ρ) = exp(−ρτ²/2ℓ²) is an SE of lengthscale ℓ/√ρ.
    """
    x, w = roots_genlaguerre(nodes, alpha - 1.0)
    w = w * math.exp(-gammaln(alpha))
    rho = x / alpha
    return [(lengthscale / math.sqrt(r), float(wi)) for r, wi in zip(rho, w, strict=True)]
