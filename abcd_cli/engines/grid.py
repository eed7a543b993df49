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
without a modulator share one T (their lag functions added).

The grid is found from the data (``grid_positions``); K is then evaluated at the grid's own
points x₀ + k_i h, which differ from the data's x by their rounding (at most ``GRID_TOLERANCE``
of a step). The FFT's rounding is relative 1e-13 or so of |K|·|v|.
"""

from __future__ import annotations

from collections.abc import Callable

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


def _product_on_grid(
    factors: list[Kernel], x: np.ndarray, lags: np.ndarray
) -> tuple[np.ndarray | None, np.ndarray] | None:
    """(f, c) of one product: its modulator at the grid points of the data (None: none) and
    its lag function at the grid's lags; None when a factor is neither stationary nor
    rank-one, or acts on another input."""
    f: np.ndarray | None = None
    c = np.ones(lags.size)
    origin = np.zeros((1, 1))
    for factor in factors:
        if not isinstance(factor, BaseKernel) or factor.dim != 0:
            return None
        if factor.stationary:
            c *= factor.gram(lags[:, None], origin)[:, 0]  # distinct inputs: no white noise
        elif hasattr(factor, "modulator"):
            g = factor.modulator(x)
            f = g if f is None else f * g
        else:
            return None
    return f, c


def _circulant_spectrum(c: np.ndarray, size: int) -> np.ndarray:
    """The eigenvalues (rfft) of the circulant of ``size`` whose top-left G×G block is the
    symmetric Toeplitz matrix with first column c."""
    column = np.zeros(size)
    column[: c.size] = c
    column[size - c.size + 1 :] = c[:0:-1]
    return fft.rfft(column)


def grid_matvec(kernel: Kernel, X: np.ndarray) -> Operator | None:
    """V ↦ K V (K the noise-free Gram of ``kernel`` on X, V of N rows) by FFT, or None when X
    is not one input on a regular grid or the kernel has a factor this form cannot take."""
    if X.ndim != 2 or X.shape[1] != 1:
        return None
    grid = grid_positions(X[:, 0])
    if grid is None:
        return None
    k, x0, h = grid
    size = int(k.max()) + 1
    lags = np.arange(size) * h
    x = x0 + k * h  # the data's grid points
    plain = np.zeros(size)
    modulated: list[tuple[np.ndarray, np.ndarray]] = []
    for factors in factor_lists(kernel):
        if any(factor.is_noise for factor in factors):
            continue
        term = _product_on_grid(factors, x, lags)
        if term is None:
            return None
        f, c = term
        if f is None:
            plain += c
        else:
            modulated.append((f, c))
    length = fft.next_fast_len(2 * size - 1, real=True)
    spectra = [(None, _circulant_spectrum(plain, length))] if np.any(plain) else []
    spectra += [(f, _circulant_spectrum(c, length)) for f, c in modulated]
    repeated = np.unique(k).size < k.size

    def to_grid(W: np.ndarray) -> np.ndarray:
        """Pᵀ W: the rows of W summed onto their grid points."""
        if not repeated:
            out = np.zeros((size, W.shape[1]))
            out[k] = W
            return out
        return np.column_stack([np.bincount(k, weights=w, minlength=size) for w in W.T])

    def matvec(V: np.ndarray) -> np.ndarray:
        V2 = V.reshape(V.shape[0], -1)
        out = np.zeros(V2.shape)
        for f, spectrum in spectra:
            W = V2 if f is None else V2 * f[:, None]
            spectral = fft.rfft(to_grid(W), n=length, axis=0) * spectrum[:, None]
            R = fft.irfft(spectral, n=length, axis=0)[k]
            out += R if f is None else R * f[:, None]
        return out.reshape(V.shape)

    return matvec
