"""From a kernel expression to its state-space form: stationary dynamics, input-dependent
observation weights and a diagonal observation noise.

The kernel is written as a sum of products (``kernels.algebra.factor_lists``: products
distributed over sums, CP and CW split into their two sides with their gates). In each product:

* a **noise** factor (WN) makes the whole product white noise, a diagonal: the noise of the
  form is the kernel's own white-noise diagonal (``Kernel.diag_parts``), heteroscedastic when a
  product scales it (Lin × WN, a gate × WN);
* a **constant** factor (C) multiplies the product by its value k(x, x);
* a factor of the form m(x)m(x') (the ``modulator`` of a linear kernel, σ(x − c), or of a
  gate, g(x)) multiplies the product's observation weight by m(x);
* **SE** factors are merged first (SE_ℓ₁ × SE_ℓ₂ = SE_ℓ with 1/ℓ² = 1/ℓ₁² + 1/ℓ₂², variances
  multiplied): one block instead of their Kronecker product;
* every other stationary factor is a block (``SHAPES``: SE, Per, Cos, RQ) and the product's
  state is their Kronecker product (``dynamics.Kronecker``); a product of constants and
  modulators alone is one constant state.

A product's term is then f(x) = w(x) hᵀ s(x), w(x) = √(constants) Π m(x), h the Kronecker
product of the blocks' observation rows; the terms' states are stacked (``dynamics.Stack``).
So k(x, x') = Σ_t w_t(x) w_t(x') h_tᵀ expm(F_t (x − x')) P∞_t h_t (x ≥ x') + noise(x) δ.

Exact for C, Lin, WN, gates, Cos and their sums and products; SE, Per and RQ are
approximations of a stated order (``Orders``). A kernel this module cannot hold (another input
than the first, an additive kernel, a periodic kernel that needs too many harmonics, a base
kernel without a shape here) raises ``NoStateSpaceForm``, on which an engine falls back.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from abcd_cli.engines.statespace.dynamics import Constant, Dynamics, Kronecker, Oscillator, Stack
from abcd_cli.engines.statespace.periodic import bessel_weights, harmonics
from abcd_cli.engines.statespace.smooth import rq_mixture, se_block
from abcd_cli.kernels import RQ, SE, BaseKernel, Cos, Kernel, Per
from abcd_cli.kernels.algebra import factor_lists

#: Roles whose kernels are m(x)m(x') with a declared ``modulator``.
MODULATED_ROLES = ("linear", "gate")


class NoStateSpaceForm(ValueError):
    """The kernel has no state-space form here; an engine falls back to another method."""


@dataclass(frozen=True)
class Orders:
    """The approximations' orders, chosen by measurement (the study
    ``benchmarks/studies/statespace_likelihood.py``): the smallest giving |Δ log p| < 0.01 nats
    at N = 500 for lengthscale / spacing 1-100 (SE), unitless lengthscales 0.3-5 (Per) and
    noise sd 0.1, 0.03 and 0.01 of the signal's.

    ``se``: states of each SE block (Taylor order of its spectral density): order 22, largest
    error 0.007 nats (order 16: 0.11, order 12: 0.95). ``per_tolerance``: the periodic kernel
    keeps the fewest harmonics whose dropped weight (a bound on its error relative to σ²) is at
    most this: 1e-10, largest error 5·10⁻⁵ nats (1e-8: 0.014; 1e-6: 0.49), 5-24 harmonics for
    lengthscales 5-0.3; ``max_harmonics``: more are refused. ``rq_nodes``: SE blocks of the
    rational quadratic's quadrature, within 0.01 nats for α ≥ ``rq_min_alpha`` (largest error
    0.0096 at α = 5; 0.036 at α = 3 and 0.13 at α = 2, heavier tails needing many more nodes:
    1.3 nats at α = 0.3 with 4, 0.2 with 16); an RQ of smaller α is refused. The error grows
    with N (it is a sum over points) and as the noise falls.
    """

    se: int = 22
    per_tolerance: float = 1e-10
    max_harmonics: int = 40
    rq_nodes: int = 4
    rq_min_alpha: float = 5.0


Block = tuple[Dynamics, np.ndarray]  # a block and its observation row h


def _se(k: Kernel, orders: Orders) -> Block:
    return se_block(k.param("lengthscale"), k.param("sd") ** 2, orders.se)


def _per(k: Kernel, orders: Orders, count: int | None = None) -> Block:
    """Per as ``count`` harmonics (None: the fewest whose dropped weight is within the
    tolerance)."""
    ell, period, sd = k.param("lengthscale"), k.param("period"), k.param("sd")
    if count is None:
        count = harmonics(ell, orders.per_tolerance)
    if count > orders.max_harmonics:
        raise NoStateSpaceForm(
            f"Per with lengthscale {ell:.3g} needs {count} harmonics for a dropped weight of"
            f" {orders.per_tolerance:g} (at most {orders.max_harmonics})"
        )
    q = bessel_weights(ell, count)
    w0 = 2.0 * math.pi / period
    parts = tuple(Oscillator(j * w0, sd**2 * qj) for j, qj in enumerate(q, start=1))
    return _stacked(parts, [np.array([1.0, 0.0])] * count)


def _cos(k: Kernel, orders: Orders) -> Block:
    w0 = 2.0 * math.pi / k.param("period")
    return Oscillator(w0, k.param("sd") ** 2), np.array([1.0, 0.0])


def _rq(k: Kernel, orders: Orders) -> Block:
    alpha = k.param("alpha")
    if alpha < orders.rq_min_alpha:
        raise NoStateSpaceForm(
            f"RQ with alpha {alpha:.3g} needs more than {orders.rq_nodes} SE blocks"
            f" (alpha at least {orders.rq_min_alpha:g})"
        )
    variance = k.param("sd") ** 2
    blocks = [
        se_block(ell, variance * w, orders.se)
        for ell, w in rq_mixture(k.param("lengthscale"), alpha, orders.rq_nodes)
    ]
    return _stacked(tuple(b for b, _ in blocks), [h for _, h in blocks])


def _stacked(parts: tuple[Dynamics, ...], rows: list[np.ndarray]) -> Block:
    if len(parts) == 1:
        return parts[0], rows[0]
    return Stack(parts), np.concatenate(rows)


#: The stationary base kernels with a state-space form: class → (kernel, orders) → block.
SHAPES: dict[type[BaseKernel], Callable[[Kernel, Orders], Block]] = {
    SE: _se,
    Per: _per,
    Cos: _cos,
    RQ: _rq,
}


@dataclass(frozen=True, eq=False)
class Term:
    """One product of the sum of products without white noise: f(x) = w(x) hᵀ s(x),
    w(x) = √scale · Π m(x) over ``modulators``."""

    dynamics: Dynamics
    h: np.ndarray
    scale: float
    modulators: tuple[Kernel, ...]

    def weight(self, x: np.ndarray) -> np.ndarray | float:
        """w(x) at the inputs x (a vector), or a number when no modulator depends on x."""
        w: np.ndarray | float = math.sqrt(self.scale)
        for m in self.modulators:
            w = w * m.modulator(x)  # type: ignore[attr-defined]
        return w


def _merged_se(factors: list[Kernel]) -> Kernel | None:
    """SE × SE × ... as one SE: 1/ℓ² = Σ 1/ℓᵢ², sd = Π sdᵢ (None without an SE)."""
    ses = [k for k in factors if type(k) is SE]
    if not ses:
        return None
    if len(ses) == 1:
        return ses[0]
    inv = sum(1.0 / k.param("lengthscale") ** 2 for k in ses)
    sd = math.prod(k.param("sd") for k in ses)
    return SE((1.0 / math.sqrt(inv), sd))


def _term(factors: list[Kernel], orders: Orders, counts: _HarmonicCounts) -> Term | None:
    """The term of one product of base kernels; None when it is white noise."""
    for k in factors:
        if not isinstance(k, BaseKernel):
            raise NoStateSpaceForm(f"{k.symbol} has no state-space form")
        if k.dim != 0:
            raise NoStateSpaceForm("the state-space form reads one input only")
    if any(k.is_noise for k in factors):
        return None
    scale = 1.0
    modulators: list[Kernel] = []
    shaped: list[Kernel] = []
    for k in factors:
        role = getattr(k, "role", None)
        if role == "constant":
            scale *= float(k.diag(np.zeros((1, 1)))[0])
        elif role in MODULATED_ROLES:
            modulators.append(k)
        elif type(k) in SHAPES:
            shaped.append(k)
        else:
            raise NoStateSpaceForm(f"{k.symbol} has no state-space form")
    se = _merged_se(shaped)
    shaped = [k for k in shaped if type(k) is not SE] + ([se] if se is not None else [])
    blocks = [_block(k, orders, counts) for k in shaped]
    if not blocks:
        return Term(Constant(1.0), np.ones(1), scale, tuple(modulators))
    if len(blocks) == 1:
        dynamics, h = blocks[0]
    else:
        dynamics = Kronecker(tuple(b for b, _ in blocks))
        h = blocks[0][1]
        for _, hb in blocks[1:]:
            h = np.kron(h, hb)
    return Term(dynamics, h, scale, tuple(modulators))


class _HarmonicCounts:
    """The harmonics of each periodic block, in the order the form builds them: chosen by the
    tolerance (and recorded in ``used``), or replayed from ``given``."""

    def __init__(self, given: Sequence[int] | None):
        self.given = None if given is None else list(given)
        self.used: list[int] = []

    def next(self) -> int | None:
        if self.given is None:
            return None
        if len(self.used) >= len(self.given):
            raise ValueError("fewer harmonic counts given than the kernel has periodic blocks")
        return self.given[len(self.used)]

    def record(self, block: Block) -> Block:
        self.used.append(block[0].size // 2)
        return block


def _block(k: Kernel, orders: Orders, counts: _HarmonicCounts) -> Block:
    """The block of one stationary factor (a periodic one's harmonics counted in ``counts``)."""
    if type(k) is Per:
        return counts.record(_per(k, orders, counts.next()))
    return SHAPES[type(k)](k, orders)


@dataclass(frozen=True, eq=False)
class StateSpaceForm:
    """A kernel's state-space form: its terms' stacked dynamics, their observation weights and
    the kernel's white-noise diagonal. ``dynamics`` is None when the kernel is white noise
    alone. ``harmonics``: each periodic block's harmonics, in build order (a form of the same
    kernel with other values and these counts has the same shape: ``state_space_form``)."""

    kernel: Kernel
    terms: tuple[Term, ...]
    harmonics: tuple[int, ...] = ()

    @cached_property
    def dynamics(self) -> Dynamics | None:
        if not self.terms:
            return None
        if len(self.terms) == 1:
            return self.terms[0].dynamics
        return Stack(tuple(t.dynamics for t in self.terms))

    @property
    def size(self) -> int:
        """The state size d."""
        return sum(t.dynamics.size for t in self.terms)

    def observation(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The observation rows at the inputs x (a vector) on the states they can touch:
        ``columns`` (n_h,) and ``values`` (N, n_h), or (1, n_h) when no term's weight depends
        on x; row i of the full (N, d) matrix is zero outside ``columns``."""
        columns, values = [], []
        offset = 0
        varying = False
        for t in self.terms:
            nz = np.flatnonzero(t.h)
            w = t.weight(x)
            varying |= np.ndim(w) > 0
            columns.append(offset + nz)
            values.append(np.multiply.outer(np.atleast_1d(w), t.h[nz]))
            offset += t.dynamics.size
        rows = len(x) if varying else 1
        full = [np.broadcast_to(v, (rows, v.shape[1])) for v in values]
        return np.concatenate(columns).astype(np.int64), np.ascontiguousarray(np.hstack(full))

    def noise(self, X: np.ndarray) -> np.ndarray:
        """The white-noise variance at each input (the kernel's own ``diag_parts``)."""
        return self.kernel.diag_parts(X)[1]


def state_space_form(
    kernel: Kernel, orders: Orders | None = None, harmonics: Sequence[int] | None = None
) -> StateSpaceForm:
    """The kernel's state-space form; ``NoStateSpaceForm`` when it has none here.
    ``harmonics``: the periodic blocks' counts to use (another form's ``harmonics``) instead
    of those the tolerance chooses."""
    orders = orders or Orders()
    if not kernel.is_fitted:
        raise ValueError("the kernel's parameters are not all known")
    counts = _HarmonicCounts(harmonics)
    terms = [
        t for factors in factor_lists(kernel) if (t := _term(factors, orders, counts)) is not None
    ]
    return StateSpaceForm(kernel, tuple(terms), tuple(counts.used))
