"""A deterministic interval on the log-determinant that the Nyström preconditioner leaves:
log|K̂| = log|P| + log|M|, M = S⁻¹K̂S⁻ᵀ = I + E, with K̂ = K + D, P = Q + D = S Sᵀ and
E = S⁻¹(K - Q)S⁻ᵀ ⪰ 0 (``engines/nystrom.py``: Q ⪯ K), from k block-Lanczos steps.

S = D^(1/2)(I + AᵀA)^(1/2) with A the whitened m×N cross-covariance: S Sᵀ = D + D^(1/2)AᵀAD^(1/2)
= P, and (I + AᵀA)^(-1/2) = I + U[(1 + σ²)^(-1/2) - 1]Uᵀ from the thin SVD Aᵀ = UΣWᵀ, so a
product with M is one product with K̂ plus O(N m).

For any N×k matrix V with orthonormal columns (here a block-Krylov basis of M, fully
reorthogonalised) and T = VᵀMV:
* lower end, log|M| ≥ log|T|: the eigenvalues μ_1 ≥ … ≥ μ_k of T (Ritz values) satisfy
  μ_j ≤ λ_j(M) (Cauchy interlacing), and every other eigenvalue of M is ≥ 1 (E ⪰ 0), so its
  log is ≥ 0;
* upper end, log|M| ≤ log|T| + (N - k) log(1 + (τ - tr(T - I))/(N - k)), τ = tr E: with V⊥
  completing V, Fischer's inequality for the positive definite M gives
  |M| ≤ |VᵀMV|·|V⊥ᵀMV⊥|, and by AM-GM |V⊥ᵀMV⊥| ≤ (tr(V⊥ᵀMV⊥)/(N - k))^(N-k) with
  tr(V⊥ᵀMV⊥) = tr M - tr T = (N - k) + τ - tr(T - I): the exact trace of the residual.
Both ends hold for any orthonormal V; Krylov steps only make them close (the width is at most
τ - tr(T - I), the trace the Ritz values have not yet caught). τ = tr(P⁻¹(K - Q)) is exact:
with K̃ = D^(-1/2)KD^(-1/2), AᵀA = UΣ²Uᵀ and R² = (I + AᵀA)⁻¹ = I - U diag(w) Uᵀ,
w_j = σ_j²/(1 + σ_j²),
    τ = tr(R²(K̃ - AᵀA)) = tr(D⁻¹(K - Q)) - Σ_j w_j (u_jᵀK̃u_j - σ_j²),
whose K̃U costs m products with K (one batched product).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from abcd_cli.engines.nystrom import Whitened

Operator = Callable[[np.ndarray], np.ndarray]

#: Columns per block-Lanczos step (one batched product with K̂ each).
BLOCK = 16
#: The seed of the starting block: one problem gives one interval.
START_SEED = 0


@dataclass(frozen=True)
class LogdetInterval:
    """low ≤ log|I + E| ≤ high after ``steps`` Lanczos vectors; ``products``: batched products
    with K̂ made (the trace's included); ``trace``: τ = tr E."""

    low: float
    high: float
    steps: int
    products: int
    trace: float

    @property
    def width(self) -> float:
        return self.high - self.low


class PreconditionedResidual:
    """M = S⁻¹K̂S⁻ᵀ applied to N×b blocks, and τ = tr(M - I)."""

    def __init__(self, matvec: Operator, w: Whitened, c: np.ndarray, d: np.ndarray):
        assert w.A is not None
        self.matvec, self.w, self.c, self.d = matvec, w, c, d
        self.isd = 1.0 / np.sqrt(d)
        U, sigma, _ = np.linalg.svd(w.A.T, full_matrices=False)
        self.U = U
        self.sigma2 = sigma * sigma
        self.shrink = 1.0 / np.sqrt(1.0 + self.sigma2) - 1.0

    @property
    def n(self) -> int:
        return self.d.size

    def _root(self, V: np.ndarray) -> np.ndarray:
        """(I + AᵀA)^(-1/2) V."""
        return V + self.U @ (self.shrink[:, None] * (self.U.T @ V))

    def apply(self, V: np.ndarray) -> np.ndarray:
        """M V = R D^(-1/2) K̂ D^(-1/2) R V, R = (I + AᵀA)^(-1/2)."""
        X = self._root(V) * self.isd[:, None]
        return self._root(self.matvec(X) * self.isd[:, None])

    def trace(self) -> float:
        """τ = tr(R²(K̃ - AᵀA)) = t - Σ_j w_j (u_jᵀK̃u_j - σ_j²), w_j = σ_j²/(1 + σ_j²),
        t = tr(D⁻¹(K - Q)) (module docstring): one batched product with K̂ of m columns
        (K = K̂ - D). Each bracket is a small difference of numbers of size σ_j²; the equal
        tr(B⁻¹(A K̃ Aᵀ - (AAᵀ)²)) subtracts matrices of size σ⁴ and lost 1.5·10⁻⁶ of a τ of
        0.0036 at 2,000 points (enough to put the upper end below the exact value)."""
        Ut = self.U * self.isd[:, None]  # D^(-1/2) U
        KUt = self.matvec(Ut) - Ut * self.d[:, None]
        uku = np.sum(Ut * KUt, axis=0)  # u_jᵀ K̃ u_j
        s2 = self.sigma2
        t = float(np.sum(self.c / self.d)) - float(np.sum(s2))
        # each bracket rounds by about ε·σ_j²: τ is raised by 64 ε Σσ², so that the upper end
        # stays an upper bound (1.6·10⁻⁸ low without it on σ² ~ 10⁶, test_lanczos)
        allowance = 64.0 * float(np.finfo(float).eps) * float(np.sum(s2))
        return t - float(np.sum(s2 / (1.0 + s2) * (uku - s2))) + allowance


def _ends(T: np.ndarray, n: int, tau: float) -> tuple[float, float]:
    """(log|T|, log|T| + (N - k) log(1 + (τ - tr(T - I))/(N - k)))."""
    k = T.shape[0]
    mu = np.linalg.eigvalsh(0.5 * (T + T.T))
    low = float(np.sum(np.log(np.maximum(mu, 1e-300))))
    rest = max(tau - (float(np.trace(T)) - k), 0.0)
    high = low + ((n - k) * float(np.log1p(rest / (n - k))) if k < n else 0.0)
    return low, high


def residual_logdet_interval(
    op: PreconditionedResidual, width: float, max_steps: int, block: int = BLOCK
) -> LogdetInterval:
    """[low, high] ∋ log|M| from block Lanczos with full reorthogonalisation, grown one block at
    a time until high - low < ``width`` or ``max_steps`` vectors (module docstring)."""
    n = op.n
    tau = op.trace()
    products = 1
    low, high = 0.0, n * float(np.log1p(max(tau, 0.0) / n))  # k = 0: Jensen on the whole
    if high - low < width:
        return LogdetInterval(low, high, 0, products, tau)
    rng = np.random.default_rng(START_SEED)
    basis = np.zeros((n, 0))
    images = np.zeros((n, 0))
    Qj = np.linalg.qr(rng.standard_normal((n, min(block, n))))[0]
    while True:
        images = np.column_stack([images, op.apply(Qj)])
        products += 1
        basis = np.column_stack([basis, Qj])
        T = basis.T @ images
        low, high = _ends(T, n, tau)
        k = basis.shape[1]
        if high - low < width or k >= min(max_steps, n):
            return LogdetInterval(low, high, k, products, tau)
        Qj = _next_block(basis, images[:, -Qj.shape[1] :], rng, min(block, n - k))


def _next_block(basis: np.ndarray, W: np.ndarray, rng: np.random.Generator, b: int) -> np.ndarray:
    """The next orthonormal block: M Q_j orthogonalised twice against the basis; directions lost
    to breakdown (an invariant subspace, or the basis near N columns) are refilled with random
    ones, and the block is orthogonalised once more, so the basis stays orthonormal to rounding
    (both ends need it)."""
    W = W[:, :b].copy()
    norms = np.linalg.norm(W, axis=0)
    for _ in range(2):
        W -= basis @ (basis.T @ W)
    Q, R = np.linalg.qr(W)
    weak = np.abs(np.diag(R)) <= 1e-8 * max(float(norms.max()), 1e-300)
    if weak.any():
        Q[:, weak] = rng.standard_normal((W.shape[0], int(weak.sum())))
    for _ in range(2):
        Q -= basis @ (basis.T @ Q)
        Q = np.linalg.qr(Q)[0]
    return Q
