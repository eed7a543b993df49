"""Stationary linear time-invariant state dynamics, and their sums and products.

A block is the stationary solution of the SDE  ds/dx = F s + L w(x),  w white with spectral
density Qc: its stationary covariance P∞ solves F P∞ + P∞ Fᵀ + L Qc Lᵀ = 0, and its covariance
function is Cov(s(x + Δ), s(x)) = expm(F Δ) P∞ for Δ ≥ 0. Between two inputs Δ apart the exact
discrete model is s' = A s + q with A = expm(F Δ), q ~ N(0, Q), Q = P∞ − A P∞ Aᵀ (Särkkä and
Solin 2019, "Applied stochastic differential equations", §6.2).

* A **sum** of independent blocks stacks their states: F, P∞, A and Q block-diagonal.
* A **product** of independent blocks takes the Kronecker product of their states: the process
  s₁ ⊗ s₂ has covariance function (A₁P₁) ⊗ (A₂P₂), so F = F₁ ⊕ F₂ = F₁ ⊗ I + I ⊗ F₂,
  P∞ = P₁ ⊗ P₂, A = A₁ ⊗ A₂ and Q = P₁ ⊗ P₂ − (A₁P₁A₁ᵀ) ⊗ (A₂P₂A₂ᵀ) = Q₁ ⊗ M₂ + P₁ ⊗ Q₂ with
  M₂ = P₂ − Q₂ = A₂P₂A₂ᵀ: a sum of two positive semi-definite Kronecker products, so a block
  whose Q is exactly zero (a harmonic oscillator) keeps it exactly zero.

``transitions(deltas)`` returns A and Q for every Δ at once, shape (U, d, d).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from functools import cached_property

import numpy as np

Transitions = tuple[np.ndarray, np.ndarray]

#: Terms of the Taylor series of exp(M) for ‖M‖₁ ≤ ½ (remainder below ½¹⁹/19! ≈ 1.6·10⁻²³).
TAYLOR_TERMS = 18


def batched_expm(F: np.ndarray, deltas: np.ndarray) -> np.ndarray:
    """expm(F Δ) for every Δ, (U, d, d): scaling and squaring, exp(M) = exp(M/2ˢ)^(2ˢ) with
    ‖M/2ˢ‖₁ ≤ ½ and the Taylor series there (Moler and Van Loan 2003, method 3), batched over
    the gaps that share s (scipy's expm takes milliseconds per matrix on a stack of small ones)."""
    deltas = np.asarray(deltas, dtype=float)
    d = F.shape[0]
    out = np.empty((deltas.size, d, d))
    norm = float(np.max(np.sum(np.abs(F), axis=0))) if d else 0.0
    with np.errstate(divide="ignore"):
        squarings = np.maximum(0, np.ceil(np.log2(np.maximum(norm * deltas, 1e-300) / 0.5)))
    squarings = squarings.astype(np.int64)
    eye = np.eye(d)
    for s in np.unique(squarings):
        pick = squarings == s
        M = (deltas[pick] / 2.0**s)[:, None, None] * F[None]
        E = np.broadcast_to(eye, M.shape).copy()
        for k in range(TAYLOR_TERMS, 0, -1):
            E = eye + (M @ E) / k
        for _ in range(int(s)):
            E = E @ E
        out[pick] = E
    return out


class Dynamics(ABC):
    """A stationary LTI state model of ``size`` states."""

    @property
    @abstractmethod
    def size(self) -> int: ...

    @abstractmethod
    def drift(self) -> np.ndarray:
        """F, (d, d)."""

    def nonzeros(self) -> int:
        """An upper bound on the nonzero entries of A (what one step of the filter costs,
        with d: about nnz(A)·d multiplications); a general block's A is dense."""
        return self.size * self.size

    @abstractmethod
    def stationary(self) -> np.ndarray:
        """P∞, (d, d)."""

    @abstractmethod
    def transitions(self, deltas: np.ndarray) -> Transitions:
        """A = expm(F Δ) and Q = P∞ − A P∞ Aᵀ for each Δ ≥ 0, both (U, d, d)."""

    def diffusion(self) -> np.ndarray:
        """L Qc Lᵀ = −(F P∞ + P∞ Fᵀ), (d, d)."""
        F, P = self.drift(), self.stationary()
        return -(F @ P + P @ F.T)


@dataclass(frozen=True, eq=False)
class Constant(Dynamics):
    """One state that never changes: F = 0, P∞ = variance, A = 1, Q = 0 (C, Lin, gates)."""

    variance: float = 1.0

    @property
    def size(self) -> int:
        return 1

    def drift(self) -> np.ndarray:
        return np.zeros((1, 1))

    def nonzeros(self) -> int:
        return 1

    def stationary(self) -> np.ndarray:
        return np.full((1, 1), self.variance)

    def transitions(self, deltas: np.ndarray) -> Transitions:
        u = len(deltas)
        return np.ones((u, 1, 1)), np.zeros((u, 1, 1))


@dataclass(frozen=True, eq=False)
class Oscillator(Dynamics):
    """A harmonic oscillator of angular frequency ω: F = [[0, −ω], [ω, 0]], P∞ = variance·I,
    A = the rotation by ωΔ, Q = 0 (no noise drives it). Observed through its first state it
    has the covariance function variance·cos(ωΔ) (Solin and Särkkä 2014)."""

    frequency: float
    variance: float

    @property
    def size(self) -> int:
        return 2

    def nonzeros(self) -> int:
        return 4

    def drift(self) -> np.ndarray:
        w = self.frequency
        return np.array([[0.0, -w], [w, 0.0]])

    def stationary(self) -> np.ndarray:
        return self.variance * np.eye(2)

    def transitions(self, deltas: np.ndarray) -> Transitions:
        phase = self.frequency * np.asarray(deltas, dtype=float)
        c, s = np.cos(phase), np.sin(phase)
        A = np.empty((len(phase), 2, 2))
        A[:, 0, 0], A[:, 0, 1], A[:, 1, 0], A[:, 1, 1] = c, -s, s, c
        return A, np.zeros_like(A)


@dataclass(frozen=True, eq=False)
class LinearSDE(Dynamics):
    """A general block: F and P∞ given (F stable); A by the matrix exponential (batched over
    all Δ), Q = P∞ − A P∞ Aᵀ symmetrised."""

    F: np.ndarray
    P: np.ndarray

    @property
    def size(self) -> int:
        return self.F.shape[0]

    def drift(self) -> np.ndarray:
        return self.F

    def stationary(self) -> np.ndarray:
        return self.P

    def transitions(self, deltas: np.ndarray) -> Transitions:
        deltas = np.asarray(deltas, dtype=float)
        A = batched_expm(self.F, deltas)
        Q = self.P[None] - A @ self.P[None] @ np.swapaxes(A, 1, 2)
        Q = 0.5 * (Q + np.swapaxes(Q, 1, 2))
        return A, Q


@dataclass(frozen=True, eq=False)
class Stack(Dynamics):
    """Independent blocks side by side (a sum of kernels): everything block-diagonal."""

    parts: tuple[Dynamics, ...]

    @cached_property
    def size(self) -> int:  # type: ignore[override]
        return sum(p.size for p in self.parts)

    def _diagonal(self, blocks: list[np.ndarray]) -> np.ndarray:
        lead = blocks[0].shape[:-2]
        out = np.zeros((*lead, self.size, self.size))
        i = 0
        for b in blocks:
            k = b.shape[-1]
            out[..., i : i + k, i : i + k] = b
            i += k
        return out

    def nonzeros(self) -> int:
        return sum(p.nonzeros() for p in self.parts)

    def drift(self) -> np.ndarray:
        return self._diagonal([p.drift() for p in self.parts])

    def stationary(self) -> np.ndarray:
        return self._diagonal([p.stationary() for p in self.parts])

    def transitions(self, deltas: np.ndarray) -> Transitions:
        pairs = [p.transitions(deltas) for p in self.parts]
        return self._diagonal([a for a, _ in pairs]), self._diagonal([q for _, q in pairs])


def kron(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The Kronecker product of the last two axes, batched over the leading ones."""
    lead = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    m, n = a.shape[-2:]
    p, q = b.shape[-2:]
    out = a[..., :, None, :, None] * b[..., None, :, None, :]
    return out.reshape(*lead, m * p, n * q)


@dataclass(frozen=True, eq=False)
class Kronecker(Dynamics):
    """The product of independent blocks (a product of kernels): states s₁ ⊗ s₂ ⊗ ...,
    F = F₁ ⊕ F₂, P∞ = P₁ ⊗ P₂, A = A₁ ⊗ A₂, Q = Q₁ ⊗ M₂ + P₁ ⊗ Q₂ (M₂ = A₂P₂A₂ᵀ)."""

    parts: tuple[Dynamics, ...]

    @cached_property
    def size(self) -> int:  # type: ignore[override]
        return int(np.prod([p.size for p in self.parts]))

    def nonzeros(self) -> int:
        return int(np.prod([p.nonzeros() for p in self.parts]))

    def drift(self) -> np.ndarray:
        F = self.parts[0].drift()
        for p in self.parts[1:]:
            Fp = p.drift()
            F = np.kron(F, np.eye(Fp.shape[0])) + np.kron(np.eye(F.shape[0]), Fp)
        return F

    def stationary(self) -> np.ndarray:
        P = self.parts[0].stationary()
        for p in self.parts[1:]:
            P = np.kron(P, p.stationary())
        return P

    def transitions(self, deltas: np.ndarray) -> Transitions:
        A, Q = self.parts[0].transitions(deltas)
        P = self.parts[0].stationary()
        for p in self.parts[1:]:
            A2, Q2 = p.transitions(deltas)
            P2 = p.stationary()
            Q = kron(Q, P2[None] - Q2) + kron(P[None], Q2)
            A = kron(A, A2)
            P = np.kron(P, P2)
        return A, Q
