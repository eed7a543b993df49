"""Exact −log p(y) of a stationary kernel on a complete regular grid by the Durbin-Levinson
recursion: O(N²) time, O(N) memory, no N×N matrix (issue 65, "Cheaper products").

When x_i = x₀ + k_i h with the k_i a permutation of 0 … N−1 (no gap, no repeated point) and the
kernel is stationary (``Kernel.stationary``, declared once on each kernel class: false for Lin
and the changepoint and changewindow operators and gates, for sums and products when any part
is), then in grid order K_ij = t_|i−j| with
    t_0 = k(x, x)  (white noise included),   t_l = k(l·h, 0)  (l ≥ 1):
K is the symmetric Toeplitz matrix with first column t. The Durbin-Levinson recursion (Golub &
Van Loan, "Matrix Computations", §4.7, Durbin's algorithm; Brockwell & Davis, "Time Series:
Theory and Methods", §5.2) gives the best linear predictor of each value from those before it,
coefficients φ_{n,1…n}, and its error variance v_n:
    v_0 = t_0,
    φ_{n,n} = (t_n − Σ_{j<n} φ_{n−1,j} t_{n−j}) / v_{n−1},
    φ_{n,j} = φ_{n−1,j} − φ_{n,n} φ_{n−1,n−j}   (j < n),
    v_n = v_{n−1} (1 − φ_{n,n}) (1 + φ_{n,n}).
The innovations e_n = y_n − Σ_{j≤n} φ_{n,j} y_{n−j} are uncorrelated with variances v_n
(K = L diag(v) Lᵀ, L unit lower triangular; Brockwell & Davis §8.7, the Gaussian likelihood from
one-step prediction errors), so
    log|K| = Σ log v_n,   yᵀK⁻¹y = Σ e_n² / v_n.
With ``constant_mean`` (flat prior on the level, integrated out as in ``engines/exact.py``) the
innovations of the vector of ones, u_n, come from the same φ:
    a = 1ᵀK⁻¹1 = Σ u_n² / v_n,   β̂ = (Σ u_n e_n / v_n) / a,
    rᵀK⁻¹r = Σ (e_n − β̂ u_n)² / v_n   (r = y − β̂1),
and −log p(y) = ½ rᵀK⁻¹r + ½ log|K| + ½ log a + ((N − 1)/2) log 2π (without a level: ½ yᵀK⁻¹y
+ ½ log|K| + (N/2) log 2π). These are the exact engine's numbers (the Cholesky factor's
diagonal is √v_n), computed in about 2N² multiply-adds. The kernel is evaluated at the grid's
own lags l·h, which differ from the data's differences by their rounding (``grid_positions``'s
tolerance). A recursion that meets v_n ≤ 0 (K not numerically positive definite) gives None:
the caller falls back to its own route.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from abcd_cli.engines.base import LOG_2PI
from abcd_cli.engines.grid import grid_positions
from abcd_cli.kernels import Kernel


def toeplitz_form(kernel: Kernel, X: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """(order, t): the permutation that puts the rows of X in grid order and K's first column
    t there; None unless the kernel is stationary and X is one input on a complete regular
    grid (every grid point observed once)."""
    if X.ndim != 2 or X.shape[1] != 1 or X.shape[0] < 2 or not kernel.stationary:
        return None
    grid = grid_positions(X[:, 0])
    if grid is None:
        return None
    positions, _, step = grid
    n = positions.size
    if int(positions.max()) + 1 != n or np.unique(positions).size != n:
        return None
    origin = np.zeros((1, 1))
    lags = (np.arange(n) * step)[:, None]
    column = np.array(kernel.gram(lags, origin)[:, 0], dtype=float)  # distinct: no white noise
    column[0] = float(kernel.diag(origin)[0])  # k(x, x), white noise included
    if not np.all(np.isfinite(column)):
        return None
    return np.argsort(positions, kind="stable"), column


@njit(cache=True, nogil=True)
def _innovations(column: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:
    """(v, e, ok): the Durbin-Levinson error variances v_n and the innovations e_n of each
    column of ``values`` (N×r, in grid order); ok is False when some v_n ≤ 0."""
    n = column.size
    r = values.shape[1]
    phi = np.zeros(n)  # φ_{m,j} at index j (index 0 unused)
    variances = np.empty(n)
    errors = np.empty((n, r))
    variances[0] = column[0]
    if not variances[0] > 0.0:
        return variances, errors, False
    for c in range(r):
        errors[0, c] = values[0, c]
    for m in range(1, n):
        acc = column[m]
        for j in range(1, m):
            acc -= phi[j] * column[m - j]
        kappa = acc / variances[m - 1]
        for j in range(1, m // 2 + 1):  # φ_{m,j} and φ_{m,m−j} from the pair of order m − 1
            low = phi[j]
            high = phi[m - j]
            if j == m - j:
                phi[j] = low - kappa * low
            else:
                phi[j] = low - kappa * high
                phi[m - j] = high - kappa * low
        phi[m] = kappa
        variances[m] = variances[m - 1] * (1.0 - kappa) * (1.0 + kappa)
        if not variances[m] > 0.0:
            return variances, errors, False
        for c in range(r):
            s = values[m, c]
            for j in range(1, m + 1):
                s -= phi[j] * values[m - j, c]
            errors[m, c] = s
    return variances, errors, True


def toeplitz_nll(column: np.ndarray, y: np.ndarray, constant_mean: bool) -> float | None:
    """−log p(y) for y (in grid order) ~ N(0, T) (or N(β1, T), β integrated out) with T the
    symmetric Toeplitz matrix of first column ``column`` (module docstring); None when the
    recursion breaks down or the numbers are not finite."""
    y = np.asarray(y, dtype=float)
    values = np.column_stack([y, np.ones_like(y)]) if constant_mean else y[:, None]
    variances, errors, ok = _innovations(np.ascontiguousarray(column, dtype=float), values)
    if not ok:
        return None
    logdet = float(np.sum(np.log(variances)))
    if constant_mean:
        e, u = errors[:, 0], errors[:, 1]
        a = float(np.sum(u * u / variances))
        if not a > 0:
            return None
        beta = float(np.sum(u * e / variances)) / a
        quadratic = float(np.sum((e - beta * u) ** 2 / variances))
        nll = 0.5 * (quadratic + logdet + math.log(a) + (y.size - 1) * LOG_2PI)
    else:
        quadratic = float(np.sum(errors[:, 0] ** 2 / variances))
        nll = 0.5 * (quadratic + logdet + y.size * LOG_2PI)
    return nll if math.isfinite(nll) else None


def grid_exact_nll(
    kernel: Kernel, X: np.ndarray, y: np.ndarray, constant_mean: bool = False
) -> float | None:
    """The exact −log p(y) by Durbin-Levinson when the kernel is stationary and X a complete
    regular grid (``toeplitz_form``), else None (as when the recursion breaks down)."""
    form = toeplitz_form(kernel, np.asarray(X, dtype=float))
    if form is None:
        return None
    order, column = form
    with np.errstate(all="ignore"):
        return toeplitz_nll(column, np.asarray(y, dtype=float)[order], constant_mean)
