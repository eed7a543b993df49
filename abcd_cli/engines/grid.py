"""Products with the noise-free Gram K when the inputs (one dimension) lie on a regular grid:
O(T·L log L) by FFT instead of O(N²) in row blocks (``/work/shared/SCALING.md``, "Matrix-vector
products for PCG"), for the upper bound's conjugate gradients at large N.

In the sum-of-products form (``kernels.algebra.factor_lists``) each product of base kernels is
f(x) f(x') c(x - x'): its stationary factors (C, SE, RQ, Per, Cos) multiply into one function c
of the lag, its other factors are rank-one modulators (``modulator``: sd (x - location) for Lin,
the sigmoid weight of a changepoint's or window's gate). A product with a WN factor adds nothing
to K (white noise lives in the diagonal D). With x_i = x₀ + k_i h, c(x_i - x_j) = c((k_i - k_j) h)
is a symmetric Toeplitz matrix T on the G = max k + 1 grid points, and T is the top-left block
of a circulant of size L ≥ 2G - 1, which the FFT diagonalises:

    K v = Σ_t f_t ∘ P T_t Pᵀ (f_t ∘ v),

P the N×G matrix taking grid point k_i to observation i (Pᵀ sums repeated points). Products
whose modulators are the same rank-one factors share one T: with F(t) the multiset of product
t's modulating factors (each a frozen kernel: its class, parameters and input, so equal
factors give equal values f exactly) and c_m = Σ_{t: F(t) = m} c_t,

    K v = Σ_m f_m ∘ P T(c_m) Pᵀ (f_m ∘ v),

one FFT pair per distinct modulator set m instead of one per product (``GridPlan.terms``; the
products without a modulator are the set m = ∅, f = 1). The hourly temperatures' chosen kernel
has 16 products under one changewindow gate (``/work/shared/LONGSERIES.md``, "Costs").

The grid is found from the data (``grid_positions``); K is then evaluated at the grid's own
points x₀ + k_i h, which differ from the data's x by their rounding (at most ``GRID_TOLERANCE``
of a step). The FFT's rounding is relative 1e-13 or so of |K|·|v|.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import fft

from abcd_cli.kernels import Kernel
from abcd_cli.kernels.algebra import factor_lists
from abcd_cli.kernels.base import BaseKernel

#: How far (in steps) an input may lie from its grid point and still count as on it.
GRID_TOLERANCE = 1e-6
#: The grid may have at most this many points per observation (gaps are filled with zeros):
#: the refinement's subset of 10⁵ hourly points (10⁴ of them) is on a grid of 10 per point,
#: where a product by FFT still costs a hundredth of one in row blocks.
MAX_GRID_RATIO = 16.0

Operator = Callable[[np.ndarray], np.ndarray]


def grid_positions(x: np.ndarray) -> tuple[np.ndarray, float, float] | None:
    """(k, x₀, h) with x_i = x₀ + k_i h (k integers from 0), or None when x is not on such a
    grid of at most ``MAX_GRID_RATIO`` N points.

    h is first the smallest step between distinct values, which places every point; it is then
    taken from the whole span, (max x - x₀) / max k. A step read off one difference carries
    the rounding of the values it was taken from (dates as decimal years near 2015: relative
    4·10⁻⁹), which 10⁵ steps would add up to 4·10⁻⁴ of a step."""
    values = np.unique(x)
    if values.size < 2 or not np.all(np.isfinite(values)):
        return None
    x = np.asarray(x, dtype=float)
    x0 = float(values[0])
    k = np.rint((x - x0) / float(np.min(np.diff(values))))
    top = k.max()
    if top + 1 > MAX_GRID_RATIO * x.size:
        return None
    h = (float(values[-1]) - x0) / top
    if np.max(np.abs((x - x0) / h - k)) > GRID_TOLERANCE:
        return None
    return k.astype(np.int64), x0, h


ModulatorKey = frozenset[tuple[Kernel, int]]


def _product_on_grid(
    factors: list[Kernel], x: np.ndarray, lags: np.ndarray
) -> tuple[ModulatorKey, np.ndarray | None, np.ndarray] | None:
    """(key, f, c) of one product: the multiset of its modulating factors (each with its
    count), its modulator f = Π modulator(x) at the grid points of the data (None: none) and its
    lag function c at the grid's lags; None when a factor is neither stationary nor rank-one, or
    acts on another input."""
    f: np.ndarray | None = None
    c = np.ones(lags.size)
    origin = np.zeros((1, 1))
    modulating: list[Kernel] = []
    for factor in factors:
        if not isinstance(factor, BaseKernel) or factor.dim != 0:
            return None
        if factor.stationary:
            c *= factor.gram(lags[:, None], origin)[:, 0]  # distinct inputs: no white noise
        elif hasattr(factor, "modulator"):
            g = factor.modulator(x)
            f = g if f is None else f * g
            modulating.append(factor)
        else:
            return None
    return frozenset(Counter(modulating).items()), f, c


def _circulant_spectrum(c: np.ndarray, size: int) -> np.ndarray:
    """The eigenvalues (rfft) of the circulant of ``size`` whose top-left G×G block is the
    symmetric Toeplitz matrix with first column c."""
    column = np.zeros(size)
    column[: c.size] = c
    column[size - c.size + 1 :] = c[:0:-1]
    return fft.rfft(column)


@dataclass(frozen=True)
class GridPlan:
    """K on a grid as Σ_m f_m ∘ P T(c_m) Pᵀ (f_m ∘ ·): the data's grid points ``k``, the grid's
    size G, the circulant's length L, one (f_m or None, spectrum of T(c_m)) per term, and
    whether a grid point holds several observations."""

    k: np.ndarray
    size: int
    length: int
    terms: list[tuple[np.ndarray | None, np.ndarray]]
    repeated: bool

    def to_grid(self, W: np.ndarray) -> np.ndarray:
        """Pᵀ W: the rows of W summed onto their grid points."""
        if not self.repeated:
            out = np.zeros((self.size, W.shape[1]))
            out[self.k] = W
            return out
        return np.column_stack([np.bincount(self.k, weights=w, minlength=self.size) for w in W.T])

    def matvec(self, V: np.ndarray) -> np.ndarray:
        """K V for V of N rows (a vector or a matrix): one FFT pair per term."""
        V2 = V.reshape(V.shape[0], -1)
        out = np.zeros(V2.shape)
        for f, spectrum in self.terms:
            W = V2 if f is None else V2 * f[:, None]
            spectral = fft.rfft(self.to_grid(W), n=self.length, axis=0) * spectrum[:, None]
            R = fft.irfft(spectral, n=self.length, axis=0)[self.k]
            out += R if f is None else R * f[:, None]
        return out.reshape(V.shape)


def grid_plan(kernel: Kernel, X: np.ndarray) -> GridPlan | None:
    """The FFT plan of K on X (module docstring), or None when X is not one input on a regular
    grid or the kernel has a factor this form cannot take."""
    if X.ndim != 2 or X.shape[1] != 1:
        return None
    grid = grid_positions(X[:, 0])
    if grid is None:
        return None
    k, x0, h = grid
    size = int(k.max()) + 1
    lags = np.arange(size) * h
    x = x0 + k * h  # the data's grid points
    lag_sums: dict[ModulatorKey, tuple[np.ndarray | None, np.ndarray]] = {}
    for factors in factor_lists(kernel):
        if any(factor.is_noise for factor in factors):
            continue
        term = _product_on_grid(factors, x, lags)
        if term is None:
            return None
        key, f, c = term
        if key in lag_sums:
            lag_sums[key][1][:] += c
        else:
            lag_sums[key] = (f, c)
    length = fft.next_fast_len(2 * size - 1, real=True)
    terms = [(f, _circulant_spectrum(c, length)) for f, c in lag_sums.values() if np.any(c)]
    return GridPlan(k, size, length, terms, np.unique(k).size < k.size)


def grid_matvec(kernel: Kernel, X: np.ndarray) -> Operator | None:
    """V ↦ K V (K the noise-free Gram of ``kernel`` on X, V of N rows) by FFT, or None when X
    is not one input on a regular grid or the kernel has a factor this form cannot take."""
    plan = grid_plan(kernel, X)
    return None if plan is None else plan.matvec
