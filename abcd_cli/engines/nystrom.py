"""The Nyström pieces the sparse engine's bounds and posterior share, all in O(N m²) time and
O(N m) memory at most (SKC paper §3.1 and appendix D; Titsias 2009).

Notation: X the N inputs, Z the m inducing inputs (a subset of X), K_nz = k(X, Z) and
K_zz = k(Z, Z') the noise-free cross-covariances (Z' a distinct copy of Z, so white noise adds
nothing), D the white-noise diagonal, Q = K_nz K_zz⁻¹ K_zn the Nyström approximation of the
noise-free K. With L = chol(K_zz + εI) and A = L⁻¹ K_zn D^(-1/2) (m×N, "whitened"):
    B = I + A Aᵀ,                   log|Q + D| = Σ log D_i + log|B|,
    (Q + D)⁻¹ = D^(-1/2) (I - Aᵀ B⁻¹ A) D^(-1/2)    (Woodbury, appendix D, lemma 1),
    diag(Q)_i = D_i |a_i|²          (a_i the i-th column of A).
A never exists whole on the bounds' path: K_nz is made in row blocks and only A Aᵀ, A Ỹ (Ỹ the
data columns times D^(-1/2)) and Σ D_i |a_i|² are kept.

The jitter ε = rel · tr(K_zz)/m keeps the factorisation alive when inducing inputs nearly
coincide. Both bounds stay valid with it: Q_ε = K_nz (K_zz + εI)⁻¹ K_zn ⪯ Q ⪯ K, and the
variational bound holds for inducing variables observed with noise ε.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.linalg import LinAlgError, cho_solve, cholesky, solve_triangular

from abcd_cli.kernels import Kernel

#: Elements of one row block of K_nz (1 MiB of float64): what bounds the memory of every pass
#: over the data. Small enough that a block's kernel temporaries stay in a core's cache: at
#: N = 10⁴, m = 500 one bound with its gradient takes 1.3 s in 1 MiB blocks against 1.7-2.2 s
#: in 16 MiB ones (``benchmarks/long_series/outputs/long_series_notes.md``).
BLOCK_ELEMENTS = 2**17
#: Largest K_nz (in elements) whose reverse-mode caches the lower bound keeps from its forward
#: pass for its backward one instead of evaluating the kernel twice (above it, evaluating twice
#: in cache-sized blocks is faster than keeping caches that spill out of the cache).
KEEP_ELEMENTS = 2**19
#: Elements of one row block of the square K(X, X) that the upper bound's products make
#: (16 MiB): rows of N elements, so blocks must hold more of them to keep Python's per-block
#: overhead small at large N.
SQUARE_BLOCK_ELEMENTS = 2**21
#: How far the relative jitter may grow when the inducing covariance does not factorise.
MAX_JITTER = 1e-4


def inducing_indices(X: np.ndarray, m: int, seed: int) -> np.ndarray:
    """m row indices of X: the points in x order (first input) cut into m blocks of about N/m
    consecutive points, one point drawn from each with ``seed`` (no gaps longer than two
    blocks); every index, in the data's order, when m ≥ N."""
    n = X.shape[0]
    if m >= n:
        return np.arange(n)
    order = np.argsort(X[:, 0], kind="stable")
    edges = (np.arange(m + 1) * n) // m
    offsets = np.floor(np.random.default_rng(seed).random(m) * np.diff(edges)).astype(int)
    return order[edges[:-1] + offsets]


def row_blocks(n: int, width: int, elements: int | None = None) -> list[slice]:
    """Consecutive row ranges of an n × width matrix, each of at most ``elements`` (default
    ``BLOCK_ELEMENTS``)."""
    rows = max(1, (elements or BLOCK_ELEMENTS) // max(width, 1))
    return [slice(i, min(i + rows, n)) for i in range(0, n, rows)]


@dataclass(frozen=True)
class InducingFactor:
    """L = chol(K_zz + εI), ε = rel · tr(K_zz)/m (``rel`` the jitter that worked)."""

    L: np.ndarray
    rel: float

    @property
    def m(self) -> int:
        return self.L.shape[0]

    def solve_left(self, M: np.ndarray) -> np.ndarray:
        """L⁻¹ M."""
        return solve_triangular(self.L, M, lower=True, check_finite=False)

    def solve_left_t(self, M: np.ndarray) -> np.ndarray:
        """L⁻ᵀ M."""
        return solve_triangular(self.L, M, lower=True, trans="T", check_finite=False)

    def sandwich(self, S: np.ndarray) -> np.ndarray:
        """L⁻ᵀ S L⁻¹ for a symmetric S (an adjoint in whitened coordinates back to K_zz's)."""
        T = self.solve_left_t(S)
        return self.solve_left_t(T.T).T


def factor_inducing(Kzz: np.ndarray, jitter: float) -> InducingFactor | None:
    """chol(K_zz + εI) with the smallest relative jitter from ``jitter`` up (×100 each time,
    at most ``MAX_JITTER``) that factorises; None when none does or K_zz is not finite. A zero
    K_zz (a kernel without a noise-free part) gets ε = ``jitter``: then A = 0 and Q = K = 0."""
    if not np.all(np.isfinite(Kzz)):
        return None
    m = Kzz.shape[0]
    scale = float(np.trace(Kzz)) / m
    if not np.any(Kzz):  # no noise-free part (white noise alone): Q = 0, exactly as K
        scale = 1.0
    if not scale > 0:
        return None
    rel = jitter
    while rel <= MAX_JITTER * (1 + 1e-12):
        try:
            L = cholesky(Kzz + (rel * scale) * np.eye(m), lower=True, check_finite=False)
            return InducingFactor(L, rel)
        except LinAlgError:
            rel *= 100.0
    return None


@dataclass(frozen=True)
class Whitened:
    """One pass over the data: A Aᵀ, A Ỹ, Σ_i D_i |a_i|² (= tr Q), Ỹᵀ Ỹ, and chol(B).

    ``Y`` holds data columns (y, and the vector of ones for a constant mean); Ỹ = D^(-1/2) Y.
    ``A`` is kept (m×N) only when asked for (the preconditioner needs it)."""

    factor: InducingFactor
    AAt: np.ndarray
    AY: np.ndarray
    YY: np.ndarray
    trace_q: float
    LB: np.ndarray
    A: np.ndarray | None = None

    @property
    def logdet_B(self) -> float:
        return 2.0 * float(np.sum(np.log(np.diag(self.LB))))

    def solve_B(self, M: np.ndarray) -> np.ndarray:
        """B⁻¹ M."""
        return cho_solve((self.LB, True), M, check_finite=False)

    def gram_inverse(self) -> np.ndarray:
        """Yᵀ (Q + D)⁻¹ Y = ỸᵀỸ - (L_B⁻¹ A Ỹ)ᵀ (L_B⁻¹ A Ỹ), k×k."""
        C = solve_triangular(self.LB, self.AY, lower=True, check_finite=False)
        return self.YY - C.T @ C

    def precondition(self, R: np.ndarray, d: np.ndarray) -> np.ndarray:
        """(Q + D)⁻¹ R = D^(-1/2) (R̃ - Aᵀ B⁻¹ A R̃), R̃ = D^(-1/2) R (needs ``A``)."""
        assert self.A is not None
        isd = 1.0 / np.sqrt(d)
        Rt = R * isd[:, None]
        return (Rt - self.A.T @ self.solve_B(self.A @ Rt)) * isd[:, None]


CrossBlock = Callable[[slice], np.ndarray]


def whitened_pass(
    kernel: Kernel,
    X: np.ndarray,
    Z: np.ndarray,
    factor: InducingFactor,
    d: np.ndarray,
    Y: np.ndarray,
    keep_A: bool = False,
    cross: CrossBlock | None = None,
) -> Whitened:
    """Accumulate A Aᵀ, A Ỹ and tr Q over row blocks of K_nz (``cross(rows)`` gives one block;
    default k(X[rows], Z)). O(N m²) time; O(block · m) memory, O(N m) with ``keep_A``."""
    n, m = X.shape[0], factor.m
    isd = 1.0 / np.sqrt(d)
    Yt = Y * isd[:, None]
    AAt = np.zeros((m, m))
    AY = np.zeros((m, Y.shape[1]))
    trace_q = 0.0
    A_all = np.empty((m, n)) if keep_A else None
    for rows in row_blocks(n, m):
        W = kernel.gram(X[rows], Z) if cross is None else cross(rows)
        A = factor.solve_left(W.T)
        A *= isd[rows]
        AAt += A @ A.T
        AY += A @ Yt[rows]
        trace_q += float(np.sum(np.sum(A * A, axis=0) * d[rows]))
        if A_all is not None:
            A_all[:, rows] = A
    B = AAt + np.eye(m)
    LB = cholesky(B, lower=True, check_finite=False)
    return Whitened(factor, AAt, AY, Yt.T @ Yt, trace_q, LB, A_all)


def data_columns(y: np.ndarray, constant_mean: bool) -> np.ndarray:
    """The data as columns: y alone, or y and the vector of ones (a constant mean's basis)."""
    return np.column_stack([y, np.ones_like(y)]) if constant_mean else y[:, None]


@dataclass(frozen=True)
class Fit:
    """The data's quadratic form in a matrix M from G = Yᵀ M⁻¹ Y (``gram_inverse``).

    Without a level: quad = yᵀM⁻¹y. With a flat-prior constant mean integrated out (R&W §2.7,
    as in ``engines/cholesky.py``): a = 1ᵀM⁻¹1, β̂ = 1ᵀM⁻¹y / a and
    quad = min_β (y - β1)ᵀ M⁻¹ (y - β1) = yᵀM⁻¹y - (1ᵀM⁻¹y)² / a; ``log_a`` = log a (0 without).
    """

    quad: float
    beta: float = 0.0
    a: float = 0.0

    @property
    def log_a(self) -> float:
        return float(np.log(self.a)) if self.a > 0 else 0.0

    @classmethod
    def from_gram(cls, G: np.ndarray) -> Fit:
        if G.shape[0] == 1:
            return cls(float(G[0, 0]))
        a = float(G[1, 1])
        if not a > 0:
            raise LinAlgError("1ᵀ(Q + D)⁻¹1 is not positive")
        return cls(float(G[0, 0] - G[0, 1] ** 2 / a), float(G[0, 1]) / a, a)

    def gradient_columns(self) -> np.ndarray:
        """T with Y T = the columns whose quadratic forms carry the gradient: y alone, or
        r = y - β̂1 and u = 1/√a (d quad = rᵀ d(M⁻¹) r by the envelope theorem, d log a =
        uᵀ d(M⁻¹) u)."""
        if self.a == 0.0:
            return np.ones((1, 1))
        return np.array([[1.0, 0.0], [-self.beta, 1.0 / np.sqrt(self.a)]])
