"""The periodic kernel as a sum of harmonic oscillators (Solin and Särkkä 2014, "Explicit link
between periodic covariance functions and state space models", AISTATS).

The grammar's periodic kernel has its constant (DC) part removed (``kernels/periodic.py``):
with a = 1/ℓ², c = cos(ω₀τ), ω₀ = 2π/period,
    Per(τ) = σ² (exp(a c) − I₀(a)) / (exp(a) − I₀(a)).
The generating function exp(a cos θ) = I₀(a) + 2 Σ_{j≥1} I_j(a) cos(jθ) makes the numerator
2 Σ_{j≥1} I_j(a) cos(jω₀τ) and the denominator its value at τ = 0, so
    Per(τ) = σ² Σ_{j≥1} q_j cos(jω₀τ),   q_j = I_j(a) / Σ_{k≥1} I_k(a),   Σ q_j = 1:
a sum of oscillators (2 states each) at the harmonics jω₀ with weights q_j; the DC term j = 0
is exactly what the kernel removed. The weights come from exponentially scaled Bessel functions
(``ive``, no overflow at large a) normalised by their own sum (no cancellation at small a,
where the kernel tends to the cosine kernel, q₁ → 1).

Truncated to J harmonics the kernel loses weight Σ_{j>J} q_j of its variance at every lag, a
bound on the largest error of the covariance function; ``harmonics`` picks the smallest J whose
dropped weight is at most a tolerance, and the kept weights are used as they are (the
truncated kernel is the first J terms of the exact series, its variance σ²(1 − tail)).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import ive


def bessel_weights(lengthscale: float, count: int | None = None) -> np.ndarray:
    """q_1, q_2, ... (all that matter, or the first ``count``) of a unitless lengthscale."""
    a = 1.0 / lengthscale**2
    # I_j(a)/I_0(a) ≈ exp(−j²/2a) at large a and (a/2)ʲ/j! at small a: beyond 12√a + 30
    # harmonics the weights are below 1e-30.
    total = int(math.ceil(12.0 * math.sqrt(a) + 30.0))
    if count is not None:
        total = max(total, count)
    j = np.arange(1, total + 1)
    w = ive(j, a)
    w = w / w.sum()
    return w if count is None else w[:count]


def harmonics(lengthscale: float, tolerance: float) -> int:
    """The smallest J whose dropped weight Σ_{j>J} q_j is at most ``tolerance``."""
    q = bessel_weights(lengthscale)
    tail = 1.0 - np.cumsum(q)
    return int(np.argmax(tail <= tolerance)) + 1 if np.any(tail <= tolerance) else len(q)


def dropped_weight(lengthscale: float, count: int) -> float:
    """Σ_{j>J} q_j for J = ``count``: the truncation's largest error of Per/σ² at any lag."""
    return float(max(0.0, 1.0 - bessel_weights(lengthscale)[:count].sum()))
