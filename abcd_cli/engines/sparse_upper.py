"""Upper bounds on log p(y) (SKC paper §3.2): the Nyström log-determinant plus a quadratic term.

log p(y) = -½ log|K + D| - ½ yᵀ(K + D)⁻¹y - (N/2) log 2π  (eq. 2), and
    -½ log|K + D| ≤ -½ log|Q + D|                         (eq. 3: K - Q ⪰ 0),
    -½ yᵀ(K + D)⁻¹y ≤ ½ αᵀ(K + D)α - αᵀy   for every α     (eq. 4).
``upper_bound`` takes α from PCG on K + D (preconditioner Q + D by Woodbury, products with K + D
in row blocks of K, never N×N): O(N²) per product, or O(T·N log N) by FFT when the inputs lie
on a regular grid (``engines.grid``, T the kernel's distinct modulator sets). Its value
½ αᵀ(K + D)α - αᵀy = -½ αᵀ(y + r) uses the true final residual r = y - (K + D)α, so it is a
bound whatever α is; the certificate ½ rᵀ(Q + D)⁻¹r says how far above the exact quadratic it
can be (``engines/pcg.py``).
``cheap_upper_bound`` (O(N m²), as GPflow's SGPR ``upper_bound``): K - Q ⪯ t I with
t = tr(K - Q), so -½ yᵀ(K + D)⁻¹y ≤ -½ yᵀ(Q + D + tI)⁻¹y.

With a constant mean whose flat prior is integrated out, -log p(y) has ½ log|K + D| +
½ log 1ᵀ(K + D)⁻¹1 = ½ lim_{s→∞} [log|K + D + s11ᵀ| - log s] and the GLS quadratic
min_β (y - β1)ᵀ(K + D)⁻¹(y - β1): both bounds carry over, the first because
K + D + s11ᵀ ⪰ Q + D + s11ᵀ, the second for every β and so for the best one (in eq. 4 with
1ᵀα = 0, where β drops out: α = α_y - κ α_1, κ = 1ᵀα_y / 1ᵀα_1, from the solves for y and 1;
its certificate is ½ min_β (r - β1)ᵀ(Q + D)⁻¹(r - β1)).
No prior on the kernel's parameters enters any bound.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from abcd_cli.engines.base import LOG_2PI
from abcd_cli.engines.grid import grid_matvec
from abcd_cli.engines.nystrom import (
    SQUARE_BLOCK_ELEMENTS,
    Fit,
    Whitened,
    data_columns,
    factor_inducing,
    row_blocks,
    whitened_pass,
)
from abcd_cli.engines.pcg import pcg
from abcd_cli.kernels import Kernel

#: From this many points on, products with K on a regular grid of inputs go by FFT (below it a
#: product in row blocks costs milliseconds).
GRID_FROM = 1000
#: PCG restarts with tighter column tolerances before a constant-mean run gives up.
_LEVEL_ROUNDS = 4


@dataclass(frozen=True)
class UpperBound:
    """log p(y) ≤ ``value`` = ``logdet`` + ``quadratic`` - (N_free/2) log 2π.

    ``logdet``: -½ log|Q + D| (- ½ log 1ᵀ(Q + D)⁻¹1 with a level); ``quadratic``: φ(α), at
    most ``certificate`` above the exact -½ yᵀ(K + D)⁻¹y; ``products``: products with K + D."""

    value: float
    logdet: float
    quadratic: float
    certificate: float
    products: int
    converged: bool


class _Nystrom:
    """One kernel's Nyström factorisation on the data, with what both bounds need."""

    def __init__(
        self,
        kernel: Kernel,
        X: np.ndarray,
        Z: np.ndarray,
        constant_mean: bool,
        y: np.ndarray,
        jitter: float,
        keep_A: bool,
    ):
        self.c, self.d = kernel.diag_parts(X)
        if not np.all(self.d > 0):
            raise ValueError("the kernel has no white noise at some point")
        factor = factor_inducing(kernel.gram(Z, Z.copy()), jitter)
        if factor is None:
            raise ValueError("the inducing covariance cannot be factorised")
        self.factor = factor
        self.Y = data_columns(y, constant_mean)
        self.w: Whitened = whitened_pass(kernel, X, Z, factor, self.d, self.Y, keep_A=keep_A)
        self.fit = Fit.from_gram(self.w.gram_inverse())
        self.n_free = X.shape[0] - (1 if constant_mean else 0)

    def logdet_term(self, fit: Fit | None = None) -> float:
        """-½ log|Q + D| (- ½ log 1ᵀ(Q + D)⁻¹1)."""
        log_a = (fit or self.fit).log_a
        return -0.5 * (float(np.sum(np.log(self.d))) + self.w.logdet_B + log_a)

    def precondition(self, R: np.ndarray) -> np.ndarray:
        """(Q + D)⁻¹ R (needs A kept)."""
        return self.w.precondition(R, self.d)

    def fit_of(self, r: np.ndarray) -> Fit:
        """The quadratic form of the data column r (with the ones under a level) in Q + D."""
        R = data_columns(r, self.Y.shape[1] == 2)
        return Fit.from_gram(R.T @ self.precondition(R))


@dataclass(frozen=True)
class NystromSolve:
    """A PCG solve of (K + D)v = y preconditioned by Q + D: v (1ᵀv = 0 under a level), the true
    residual r = y - (K + D)v, the certificate ½ rᵀ(Q + D)⁻¹r (½ min_β over r - β1), the
    products made, the raw columns (warm start of the next solve) and the Nyström pieces."""

    nystrom: _Nystrom
    v: np.ndarray
    residual: np.ndarray
    certificate: float
    products: int
    converged: bool
    raw_alpha: np.ndarray


def cheap_upper_bound(
    kernel: Kernel, X: np.ndarray, y: np.ndarray, Z: np.ndarray, constant_mean: bool, jitter: float
) -> float:
    """-½ log|Q + D| - ½ yᵀ(Q + D + tI)⁻¹y - (N/2) log 2π, t = tr(K - Q), in O(N m²) (two
    passes over the data); with a level, its log 1ᵀ(Q + D)⁻¹1 and GLS quadratic. ValueError or
    LinAlgError when the factorisations fail."""
    ny = _Nystrom(kernel, X, Z, constant_mean, y, jitter, keep_A=False)
    t = max(float(np.sum(ny.c)) - ny.w.trace_q, 0.0)
    shifted = whitened_pass(kernel, X, Z, ny.factor, ny.d + t, ny.Y)
    quad = Fit.from_gram(shifted.gram_inverse()).quad
    return ny.logdet_term() - 0.5 * quad - 0.5 * ny.n_free * LOG_2PI


def kernel_matvec(kernel: Kernel, X: np.ndarray, d: np.ndarray):
    """V ↦ (K + D) V with K = k(X, X') the noise-free Gram: by FFT from ``GRID_FROM`` points
    on inputs on a regular grid (``engines.grid``), else made in row blocks (never N×N)."""
    n = X.shape[0]
    on_grid = grid_matvec(kernel, X) if n >= GRID_FROM else None
    if on_grid is not None:
        return lambda V: V * d[:, None] + on_grid(V)
    blocks = row_blocks(n, n, SQUARE_BLOCK_ELEMENTS)

    def matvec(V: np.ndarray) -> np.ndarray:
        out = V * d[:, None]
        for rows in blocks:
            out[rows] += kernel.gram(X[rows], X) @ V
        return out

    return matvec


def upper_bound(
    kernel: Kernel,
    X: np.ndarray,
    y: np.ndarray,
    Z: np.ndarray,
    constant_mean: bool,
    jitter: float,
    tol: float,
    max_products: int,
) -> UpperBound:
    """The Nyström log-determinant plus PCG's quadratic bound (module docstring)."""
    sol = solve_with_nystrom(kernel, X, y, Z, constant_mean, jitter, tol, max_products)
    return upper_from_solve(sol, y)


def upper_from_solve(sol: NystromSolve, y: np.ndarray) -> UpperBound:
    """The upper bound from a solve: -½ log|Q + D| + φ(v) - (N_free/2) log 2π."""
    quadratic = -0.5 * float(sol.v @ (y + sol.residual))
    logdet = sol.nystrom.logdet_term()
    value = logdet + quadratic - 0.5 * sol.nystrom.n_free * LOG_2PI
    return UpperBound(value, logdet, quadratic, sol.certificate, sol.products, sol.converged)


def solve_with_nystrom(
    kernel: Kernel,
    X: np.ndarray,
    y: np.ndarray,
    Z: np.ndarray,
    constant_mean: bool,
    jitter: float,
    tol: float,
    max_products: int,
    alpha0: np.ndarray | None = None,
) -> NystromSolve:
    """PCG on (K + D)v = y (with a level: on y and 1, combined so that 1ᵀv = 0), preconditioned
    by Q + D, from ``alpha0`` (a previous solve's ``raw_alpha``) when its shape fits."""
    ny = _Nystrom(kernel, X, Z, constant_mean, y, jitter, keep_A=True)
    matvec = kernel_matvec(kernel, X, ny.d)
    if alpha0 is not None and alpha0.shape != ny.Y.shape:
        alpha0 = None
    if constant_mean:
        v, r, cert, products, converged, raw = _level_solve(
            matvec, ny.precondition, ny.Y, ny.fit.beta, tol, max_products, alpha0
        )
    else:
        sol = pcg(matvec, ny.precondition, ny.Y, tol, max_products, alpha0)
        v, r, raw = sol.alpha[:, 0], sol.residual[:, 0], sol.alpha
        cert, products, converged = float(sol.certificate[0]), sol.products, sol.converged
    return NystromSolve(ny, v, r, cert, products, converged, raw)


def _level_solve(
    matvec,
    precond,
    Y: np.ndarray,
    beta: float,
    tol: float,
    max_products: int,
    alpha0: np.ndarray | None = None,
):
    """α with 1ᵀα = 0 minimising ½αᵀ(K + D)α - αᵀy: from the solves for y and 1 together,
    α = α_y - κ α_1, κ = 1ᵀα_y / 1ᵀα_1; r = y - (K + D)α = r_y - κ r_1 + κ1 (no extra
    product). Column tolerances tol/4 and tol/(4κ²) make ½|r_y - κ r_1|²_M⁻¹ ≤ tol; the
    certificate is ½ min_β (r - β1)ᵀ M⁻¹ (r - β1), checked, and tightened if need be."""
    ones = Y[:, 1]
    kappa = beta  # the GLS level under Q + D: a good first guess of κ
    spent = 0
    target = tol
    for _ in range(_LEVEL_ROUNDS):
        # the ones column to at least tol/4 itself: with κ near 0 a looser one could stop at
        # α_1 = 0, and κ = 1ᵀα_y / 1ᵀα_1 would not exist
        col_tol = np.array([tol / 4.0, tol / (4.0 * max(kappa * kappa, 1.0))])
        sol = pcg(matvec, precond, Y, col_tol, max(max_products - spent, 0), alpha0)
        spent += sol.products
        a_y, a_1 = sol.alpha[:, 0], sol.alpha[:, 1]
        kappa = float(ones @ a_y) / float(ones @ a_1)
        alpha = a_y - kappa * a_1
        s = sol.residual[:, 0] - kappa * sol.residual[:, 1]
        Ms = precond(np.column_stack([s, ones]))
        cert = 0.5 * (float(s @ Ms[:, 0]) - float(ones @ Ms[:, 0]) ** 2 / float(ones @ Ms[:, 1]))
        if cert <= target or spent >= max_products:
            break
        tol /= 2.0
        alpha0 = sol.alpha
    return alpha, s + kappa * ones, cert, spent, cert <= target, sol.alpha
