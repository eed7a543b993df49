"""Periodic base kernels: the periodic kernel without its DC part and its cosine limit, with
their words in the report.

Formulas from the grammar appendix (``shared/papers/004``, eq. 1.5 and 1.8).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from scipy.special import ive

from abcd_cli.kernels.base import BaseKernel, Inputs, Matrices, Wording
from abcd_cli.kernels.params import PERIOD, PERIODIC_SMOOTHNESS, SD, Param, Role

# Below this value of a = 1/lengthscale², the periodic kernel uses its series in a (the exact
# expression loses digits to cancellation as a -> 0); the truncation error is O(a³).
_PER_SERIES_BELOW = 1e-4

#: A periodic kernel with a lengthscale above this (unitless) is nearly a sinusoid.
SINUSOID_LENGTHSCALE = 2.0

#: Below this, the shape within a period is sharp and spiky.
SPIKY_LENGTHSCALE = 0.5


@dataclass(frozen=True)
class Per(BaseKernel):
    """Periodic kernel with its constant (DC) part removed  (eq. 1.5).

    With a = 1/lengthscale² and c = cos(2π(x - x')/period):
        Per(x, x') = sd² (exp(a c) - I0(a)) / (exp(a) - I0(a))
                   = sd² (exp(a (c - 1)) - ive(a)) / (1 - ive(a)),      ive(a) = exp(-a) I0(a),
    the second form never overflows. As lengthscale -> ∞ (a -> 0) it tends to the cosine kernel
    sd² cos(2π(x - x')/period)  (eq. 1.8); below a = 1e-4 a second-order series in a is used,
    which equals the cosine kernel exactly at a = 0.
    """

    symbol: ClassVar[str] = "Per"
    # The lengthscale is unitless (relative to the period).
    specs: ClassVar[tuple[Param, ...]] = (PERIODIC_SMOOTHNESS, PERIOD, SD)
    role: ClassVar[Role] = "periodic"
    searchable: ClassVar[bool] = True
    noun: ClassVar[str] = "a periodic function"
    approximate_noun: ClassVar[str] = "an approximately periodic function"

    def feature_length(self) -> float:
        """Its unitless lengthscale in x units: for short lags Per behaves like an SE with
        lengthscale ℓ·period/(2π)."""
        return self.param("lengthscale") * self.param("period") / (2.0 * math.pi)

    def shape_sentence(self, words: Wording) -> str:
        """The shape within a period, from the lengthscale: near a sinusoid, spiky, or between."""
        ell = self.param("lengthscale")
        detail = words.length(self.feature_length())
        if ell > SINUSOID_LENGTHSCALE:
            return "Within each period its shape is very smooth, close to a pure sinusoid."
        if ell < SPIKY_LENGTHSCALE:
            return (
                "Within each period it has a sharp, spiky shape, with features only about "
                f"{detail} wide."
            )
        return (
            "Within each period its shape is smooth but not a plain sinusoid; its features "
            f"are about {detail} wide."
        )

    def _eval(self, inp: Inputs, grad: bool) -> tuple[np.ndarray, Matrices]:
        ell, period, sd = self.params
        u, sin = _cos_sin_of_differences(inp.col(self.dim), inp.col2(self.dim), period, grad)
        u -= 1.0  # u = c - 1
        a = 1.0 / ell**2
        K, parts = _periodic_value(a, u, sd)
        if sin is None:
            return K, []
        phase = inp.diff(self.dim) * (2.0 * np.pi / period)
        if a < _PER_SERIES_BELOW:
            df_dc, df_da = parts
            d_ell = (-2.0 * a * sd**2) * df_da  # da/dlog(ell) = -2a
            d_period = (sd**2 * df_dc) * sin * phase  # dc/dlog(period) = sin·phase
            return K, [d_ell, d_period, 2.0 * K]
        # df/dc = a·e/den; df/da = (e/den)·(u + dj0/den) - (dj0/den)·(1 + j0/den).
        e, j0, den = parts
        dj0 = float(ive(1, a)) - j0  # d/da [exp(-a) I0(a)] = exp(-a)(I1(a) - I0(a))
        d_ell = u + dj0 / den
        d_ell *= e
        d_ell *= -2.0 * a * sd**2 / den
        d_ell += 2.0 * a * sd**2 * (dj0 / den) * (1.0 + j0 / den)
        d_period = sin * phase
        d_period *= e
        d_period *= sd**2 * a / den
        return K, [d_ell, d_period, 2.0 * K]

    def _diag(self, X: np.ndarray) -> np.ndarray:
        ell, period, sd = self.params
        w = 2.0 * np.pi / period
        t = w * X[:, self.dim]
        c, s = np.cos(t), np.sin(t)
        u = c * c  # cos² + sin² as the Gram matrix computes it (1 up to rounding)
        u += s * s
        u -= 1.0
        return _periodic_value(1.0 / ell**2, u, sd)[0]

    def _diag_grad(self, X: np.ndarray) -> tuple[np.ndarray, Matrices]:
        """Per(x, x) = sd² f(a, c = 1) = sd² for every a and period: only sd moves it."""
        d = self._diag(X)
        return d, [np.zeros_like(d), np.zeros_like(d), 2.0 * d]


def _periodic_value(a: float, u: np.ndarray, sd: float) -> tuple[np.ndarray, tuple]:
    """Per = sd² f(a, c) from u = c - 1, and what its derivatives reuse: (df/dc, df/da) on the
    series branch, (e, j0, den) on the exact one, f = (e - j0)/den, e = exp(a·u), j0 = ive(0, a),
    den = 1 - j0."""
    if a < _PER_SERIES_BELOW:
        f, df_dc, df_da = _periodic_series(a, u)
        return sd**2 * f, (df_dc, df_da)
    j0 = float(ive(0, a))
    den = 1.0 - j0
    e = np.exp(a * u)
    K = e * (sd**2 / den)
    K -= sd**2 * j0 / den
    return K, (e, j0, den)


def _cos_sin_of_differences(
    x: np.ndarray, x2: np.ndarray, period: float, with_sin: bool = True
) -> tuple[np.ndarray, np.ndarray | None]:
    """cos and sin (None unless ``with_sin``) of 2π(x - x')/p from 2N trigonometric calls
    instead of 2N²: cos(a - b) = cos a cos b + sin a sin b,
    sin(a - b) = sin a cos b - cos a sin b."""
    w = 2.0 * np.pi / period
    a, b = w * x, w * x2
    ca, sa, cb, sb = np.cos(a), np.sin(a), np.cos(b), np.sin(b)
    cos = np.outer(ca, cb)
    cos += np.outer(sa, sb)
    if not with_sin:
        return cos, None
    sin = np.outer(sa, cb)
    sin -= np.outer(ca, sb)
    return cos, sin


def _periodic_series(a: float, u: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """f(a, c) = (exp(a(c-1)) - ive(a)) / (1 - ive(a)) for small a, with df/dc and df/da.

    N/a = c + a·A + a²·B and D/a = 1 - 3a/4 + 5a²/12, with u = c - 1, A = u²/2 - 3/4,
    B = u³/6 + 5/12 (Taylor series of exp and of ive about a = 0).
    """
    c = u + 1.0
    A = 0.5 * u**2 - 0.75
    B = u * u * u / 6.0 + 5.0 / 12.0  # not u**3: numpy's pow is 30× slower per element
    num = c + a * A + a**2 * B
    den = 1.0 - 0.75 * a + (5.0 / 12.0) * a**2
    dnum_dc = 1.0 + a * u + 0.5 * a**2 * u**2
    dnum_da = A + 2.0 * a * B
    dden_da = -0.75 + (5.0 / 6.0) * a
    return num / den, dnum_dc / den, (dnum_da * den - num * dden_da) / den**2


@dataclass(frozen=True)
class Cos(BaseKernel):
    """Cosine: Cos(x, x') = sd² cos(2π(x - x')/period), the limit of Per (eq. 1.8)."""

    symbol: ClassVar[str] = "Cos"
    specs: ClassVar[tuple[Param, ...]] = (PERIOD, SD)
    role: ClassVar[Role] = "periodic"
    noun: ClassVar[str] = "a sinusoid"
    approximate_noun: ClassVar[str] = "an approximately sinusoidal function"

    def shape_sentence(self, words: Wording) -> str:
        """A cosine is exactly sinusoidal."""
        return "Within each period its shape is an exact sinusoid."

    def _eval(self, inp: Inputs, grad: bool) -> tuple[np.ndarray, Matrices]:
        period, sd = self.params
        phase = 2.0 * np.pi * inp.diff(self.dim) / period
        K = sd**2 * np.cos(phase)
        if not grad:
            return K, []
        return K, [sd**2 * np.sin(phase) * phase, 2.0 * K]

    def _diag(self, X: np.ndarray) -> np.ndarray:
        return np.full(X.shape[0], self.params[1] ** 2)
