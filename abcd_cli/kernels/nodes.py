"""Kernel expressions: base kernels, operators, Gram matrices and their gradients.

Formulas follow the grammar appendix (``shared/papers/004``, eq. 1.1-1.8). Every node is an
immutable, hashable, picklable dataclass. A node keeps its parameter values in natural units
(``NaN`` marks a value not known yet, to be initialised by the fitter). The optimiser sees one flat
vector ``theta``: the logarithm of every positive parameter, locations as they are, ordered as the
node's own parameters first, then its operands' from left to right.

``kernel.gram(X, X2)`` returns K(X, X2); ``kernel.gram_grad(X)`` returns K(X, X) and the stack of
dK/dtheta_i, one N x N slice per entry of ``theta``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from scipy.special import ive

Matrices = list[np.ndarray]


class Inputs:
    """Inputs of one Gram evaluation, with the pairwise differences cached per dimension."""

    def __init__(self, X: np.ndarray, X2: np.ndarray | None = None):
        self.X = _as_2d(X)
        self.same = X2 is None
        self.X2 = self.X if X2 is None else _as_2d(X2)
        self._diff: dict[int, np.ndarray] = {}

    @property
    def shape(self) -> tuple[int, int]:
        return self.X.shape[0], self.X2.shape[0]

    def col(self, dim: int) -> np.ndarray:
        return self.X[:, dim]

    def col2(self, dim: int) -> np.ndarray:
        return self.X2[:, dim]

    def diff(self, dim: int) -> np.ndarray:
        """x_i - x'_j on one input dimension."""
        if dim not in self._diff:
            self._diff[dim] = self.X[:, dim][:, None] - self.X2[:, dim][None, :]
        return self._diff[dim]


def _as_2d(X: np.ndarray) -> np.ndarray:
    X = np.asarray(X, dtype=float)
    return X[:, None] if X.ndim == 1 else X


def _fmt(value: float, digits: int | None) -> str:
    if digits is None:
        return repr(float(value))
    return f"{value:.{digits}g}"


@dataclass(frozen=True)
class Kernel:
    """Abstract kernel expression node."""

    symbol: ClassVar[str] = "?"
    stationary: ClassVar[bool] = False
    # How each own parameter changes with the units of x and y: "scale" (an sd of y),
    # "scale_per_x" (sd of y per unit of x), "length" (x units), "location" (a point on x),
    # "none" (unitless).
    units: ClassVar[tuple[str, ...]] = ()

    # --- structure -------------------------------------------------------------------------
    @property
    def operands(self) -> tuple[Kernel, ...]:
        return ()

    def with_operands(self, operands: Sequence[Kernel]) -> Kernel:
        return self

    # --- parameters ------------------------------------------------------------------------
    @property
    def own_values(self) -> tuple[float, ...]:
        return ()

    @property
    def own_names(self) -> tuple[str, ...]:
        return ()

    @property
    def own_positive(self) -> tuple[bool, ...]:
        return ()

    def with_own_values(self, values: Sequence[float]) -> Kernel:
        return self

    def nodes(self) -> Iterator[Kernel]:
        """This node and every node below it, in theta order (the node before its operands)."""
        yield self
        for k in self.operands:
            yield from k.nodes()

    @property
    def n_params(self) -> int:
        return sum(len(k.own_values) for k in self.nodes())

    def values(self) -> np.ndarray:
        """All parameter values in natural units, in theta order."""
        return np.array([v for k in self.nodes() for v in k.own_values], dtype=float)

    def positive_mask(self) -> np.ndarray:
        return np.array([p for k in self.nodes() for p in k.own_positive], dtype=bool)

    def param_names(self, path: str = "") -> list[str]:
        """Names in theta order, e.g. ``Per[1.0].period``: the kernel's symbol, its place in the
        tree (operand 1, then its operand 0; ``root`` for the top node) and the parameter."""
        names = [f"{self.symbol}[{path or 'root'}].{n}" for n in self.own_names]
        for i, k in enumerate(self.operands):
            names += k.param_names(f"{path}.{i}" if path else str(i))
        return names

    def theta(self) -> np.ndarray:
        """Optimiser coordinates: log of positive parameters, raw locations."""
        v = self.values()
        pos = self.positive_mask()
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(pos, np.log(np.where(pos, v, 1.0)), v)

    def with_values(self, values: Sequence[float]) -> Kernel:
        """The same structure with new natural-unit values (theta order)."""
        values = list(values)
        if len(values) != self.n_params:
            raise ValueError(f"{self.n_params} values expected, got {len(values)}")
        return self._take_values(iter(values))

    def _take_values(self, values: Iterator[float]) -> Kernel:
        """This node's own values, then each operand's, from one stream (theta order)."""
        own = [next(values) for _ in self.own_values]
        ops = [k._take_values(values) for k in self.operands]
        node = self.with_own_values(own) if own else self
        return node.with_operands(ops) if ops else node

    def with_theta(self, theta: np.ndarray) -> Kernel:
        theta = np.asarray(theta, dtype=float)
        pos = self.positive_mask()
        return self.with_values(np.where(pos, np.exp(theta), theta).tolist())

    @property
    def is_fitted(self) -> bool:
        return bool(np.all(np.isfinite(self.values())))

    def bases(self) -> list[BaseKernel]:
        """Base kernels in the expression, left to right."""
        return [k for k in self.nodes() if isinstance(k, BaseKernel)]

    # --- evaluation ------------------------------------------------------------------------
    def gram(self, X: np.ndarray, X2: np.ndarray | None = None) -> np.ndarray:
        """K(X, X2); with X2 omitted, the training covariance (white noise on the diagonal)."""
        return self._eval(Inputs(X, X2), grad=False)[0]

    def gram_grad(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """K(X, X) and dK/dtheta stacked as an array of shape (n_params, N, N)."""
        K, dK = self._eval(Inputs(X), grad=True)
        n = K.shape[0]
        return K, (np.stack(dK) if dK else np.zeros((0, n, n)))

    def diag(self, X: np.ndarray) -> np.ndarray:
        """Prior variance k(x, x) at each input (white noise included)."""
        X = _as_2d(X)
        return np.array([self.gram(X[i : i + 1])[0, 0] for i in range(X.shape[0])])

    def _eval(self, inp: Inputs, grad: bool) -> tuple[np.ndarray, Matrices]:
        raise NotImplementedError

    def vjp(self, X: np.ndarray) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
        """K(X, X) and a function G ↦ [Σ G ∘ ∂K/∂θ_i]_i (reverse mode, for symmetric G).

        This is what the likelihood gradient needs, tr(W ∂K/∂θ_i), without forming every
        ∂K/∂θ_i of a product: the adjoint G is passed down the tree instead.
        """
        inp = Inputs(X)
        K, cache = self._forward(inp)
        return K, lambda G: np.array(self._backward(cache, G), dtype=float)

    def _forward(self, inp: Inputs) -> tuple[np.ndarray, Any]:
        """K and what ``_backward`` needs (here: the forward-mode derivatives)."""
        return self._eval(inp, grad=True)

    def _backward(self, cache: Any, G: np.ndarray) -> list[float]:
        """[Σ G ∘ ∂K/∂θ_i] for this node's parameters, in theta order."""
        return [float(np.vdot(G, d)) for d in cache]

    # --- text ------------------------------------------------------------------------------
    def to_text(self, params: bool = True, digits: int | None = None) -> str:
        """Unambiguous text form; ``parse`` reads it back."""
        raise NotImplementedError

    def __str__(self) -> str:
        return self.to_text(params=False)

    @property
    def structure(self) -> str:
        return self.to_text(params=False)

    # --- building --------------------------------------------------------------------------
    def __add__(self, other: Kernel) -> Kernel:
        return Sum((self, other))

    def __mul__(self, other: Kernel) -> Kernel:
        return Product((self, other))


def _copy_with(node: Kernel, **changes: Any) -> Kernel:
    """A copy of a frozen node with some fields changed, skipping re-validation (hot path)."""
    new = object.__new__(type(node))
    new.__dict__.update(node.__dict__)
    new.__dict__.update(changes)
    return new


def _own_text(kernel: Kernel, digits: int | None) -> str:
    return ", ".join(
        f"{n}={_fmt(v, digits)}" for n, v in zip(kernel.own_names, kernel.own_values, strict=True)
    )


# ==========================================================================================
# Base kernels
# ==========================================================================================


class _NamedParams:
    """Own parameters held in ``params`` (natural units, NaN = unknown), named by ``names``."""

    params: tuple[float, ...]
    names: ClassVar[tuple[str, ...]]
    symbol: ClassVar[str]

    def __post_init__(self) -> None:
        if not self.params:
            object.__setattr__(self, "params", (math.nan,) * len(self.names))
        if len(self.params) != len(self.names):
            raise ValueError(f"{self.symbol} takes parameters {self.names}")
        object.__setattr__(self, "params", tuple(float(p) for p in self.params))

    @property
    def own_values(self) -> tuple[float, ...]:
        return self.params

    @property
    def own_names(self) -> tuple[str, ...]:
        return self.names

    def with_own_values(self, values: Sequence[float]) -> Kernel:
        return _copy_with(self, params=tuple(float(v) for v in values))  # type: ignore[arg-type]

    def param(self, name: str) -> float:
        return self.params[self.names.index(name)]


@dataclass(frozen=True)
class BaseKernel(_NamedParams, Kernel):
    """A kernel on one input dimension ``dim`` with named parameters ``params``."""

    params: tuple[float, ...] = ()
    dim: int = 0

    names: ClassVar[tuple[str, ...]] = ()
    positive: ClassVar[tuple[bool, ...]] = ()
    stationary: ClassVar[bool] = True
    units: ClassVar[tuple[str, ...]] = ()

    @property
    def own_positive(self) -> tuple[bool, ...]:
        return self.positive

    @property
    def head(self) -> str:
        return self.symbol if self.dim == 0 else f"{self.symbol}@{self.dim}"

    def to_text(self, params: bool = True, digits: int | None = None) -> str:
        if not params:
            return self.head
        return f"{self.head}({_own_text(self, digits)})"


@dataclass(frozen=True)
class WN(BaseKernel):
    """White noise: WN(x, x') = sd² δ(x, x')  (eq. 1.1).

    The delta is on observations, not on values: repeated x values get independent noise,
    and the cross-covariance between two different input sets is zero.
    """

    symbol: ClassVar[str] = "WN"
    names: ClassVar[tuple[str, ...]] = ("sd",)
    positive: ClassVar[tuple[bool, ...]] = (True,)
    units: ClassVar[tuple[str, ...]] = ("scale",)

    def _eval(self, inp: Inputs, grad: bool) -> tuple[np.ndarray, Matrices]:
        (sd,) = self.params
        n, m = inp.shape
        K = sd**2 * np.eye(n) if inp.same else np.zeros((n, m))
        return K, ([2.0 * K] if grad else [])


@dataclass(frozen=True)
class C(BaseKernel):
    """Constant: C(x, x') = sd²  (eq. 1.2)."""

    symbol: ClassVar[str] = "C"
    names: ClassVar[tuple[str, ...]] = ("sd",)
    positive: ClassVar[tuple[bool, ...]] = (True,)
    units: ClassVar[tuple[str, ...]] = ("scale",)

    def _eval(self, inp: Inputs, grad: bool) -> tuple[np.ndarray, Matrices]:
        (sd,) = self.params
        K = np.full(inp.shape, sd**2)
        return K, ([2.0 * K] if grad else [])


@dataclass(frozen=True)
class Lin(BaseKernel):
    """Linear: Lin(x, x') = sd² (x - location)(x' - location)  (eq. 1.3)."""

    symbol: ClassVar[str] = "Lin"
    names: ClassVar[tuple[str, ...]] = ("sd", "location")
    positive: ClassVar[tuple[bool, ...]] = (True, False)
    stationary: ClassVar[bool] = False
    units: ClassVar[tuple[str, ...]] = ("scale_per_x", "location")

    def _eval(self, inp: Inputs, grad: bool) -> tuple[np.ndarray, Matrices]:
        sd, loc = self.params
        a = inp.col(self.dim) - loc
        b = inp.col2(self.dim) - loc
        K = sd**2 * np.outer(a, b)
        if not grad:
            return K, []
        d_loc = -(sd**2) * (a[:, None] + b[None, :])
        return K, [2.0 * K, d_loc]


@dataclass(frozen=True)
class SE(BaseKernel):
    """Squared exponential: SE(x, x') = sd² exp(-(x - x')² / (2 lengthscale²))  (eq. 1.4)."""

    symbol: ClassVar[str] = "SE"
    names: ClassVar[tuple[str, ...]] = ("lengthscale", "sd")
    positive: ClassVar[tuple[bool, ...]] = (True, True)
    units: ClassVar[tuple[str, ...]] = ("length", "scale")

    def _eval(self, inp: Inputs, grad: bool) -> tuple[np.ndarray, Matrices]:
        ell, sd = self.params
        q = inp.diff(self.dim) / ell
        np.square(q, out=q)  # q = (x - x')² / lengthscale², in place: this is the hot path
        K = np.multiply(q, -0.5)
        np.exp(K, out=K)
        K *= sd**2
        if not grad:
            return K, []
        q *= K  # dK/dlog(lengthscale) = K q
        return K, [q, 2.0 * K]


@dataclass(frozen=True)
class RQ(BaseKernel):
    """Rational quadratic: RQ(x, x') = sd² (1 + (x - x')² / (2 alpha lengthscale²))^(-alpha)."""

    symbol: ClassVar[str] = "RQ"
    names: ClassVar[tuple[str, ...]] = ("lengthscale", "sd", "alpha")
    positive: ClassVar[tuple[bool, ...]] = (True, True, True)
    units: ClassVar[tuple[str, ...]] = ("length", "scale", "none")

    def _eval(self, inp: Inputs, grad: bool) -> tuple[np.ndarray, Matrices]:
        ell, sd, alpha = self.params
        q = np.square(inp.diff(self.dim) / ell) / (2.0 * alpha)
        base = 1.0 + q
        K = sd**2 * np.exp(-alpha * np.log1p(q))
        if not grad:
            return K, []
        d_ell = 2.0 * alpha * K * q / base
        d_alpha = alpha * K * (q / base - np.log1p(q))
        return K, [d_ell, 2.0 * K, d_alpha]


# Below this value of a = 1/lengthscale², the periodic kernel uses its series in a (the exact
# expression loses digits to cancellation as a -> 0); the truncation error is O(a³).
_PER_SERIES_BELOW = 1e-4


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
    names: ClassVar[tuple[str, ...]] = ("lengthscale", "period", "sd")
    positive: ClassVar[tuple[bool, ...]] = (True, True, True)
    units: ClassVar[tuple[str, ...]] = ("none", "length", "scale")  # lengthscale is unitless

    def _eval(self, inp: Inputs, grad: bool) -> tuple[np.ndarray, Matrices]:
        ell, period, sd = self.params
        phase = inp.diff(self.dim) * (2.0 * np.pi / period)
        u, sin = _cos_sin_of_differences(inp, self.dim, period)
        u -= 1.0  # u = c - 1
        a = 1.0 / ell**2
        if a < _PER_SERIES_BELOW:
            f, df_dc, df_da = _periodic_series(a, u)
            K = sd**2 * f
            if not grad:
                return K, []
            d_ell = (-2.0 * a * sd**2) * df_da  # da/dlog(ell) = -2a
            d_period = (sd**2 * df_dc) * sin * phase  # dc/dlog(period) = sin·phase
            return K, [d_ell, d_period, 2.0 * K]
        # f = (e - j0)/den with e = exp(a·u), den = 1 - j0, j0 = ive(0, a);
        # df/dc = a·e/den; df/da = (e/den)·(u + dj0/den) - (dj0/den)·(1 + j0/den).
        j0 = float(ive(0, a))
        dj0 = float(ive(1, a)) - j0  # d/da [exp(-a) I0(a)] = exp(-a)(I1(a) - I0(a))
        den = 1.0 - j0
        e = np.exp(a * u)
        K = e * (sd**2 / den)
        K -= sd**2 * j0 / den
        if not grad:
            return K, []
        d_ell = u + dj0 / den
        d_ell *= e
        d_ell *= -2.0 * a * sd**2 / den
        d_ell += 2.0 * a * sd**2 * (dj0 / den) * (1.0 + j0 / den)
        d_period = sin * phase
        d_period *= e
        d_period *= sd**2 * a / den
        return K, [d_ell, d_period, 2.0 * K]


def _cos_sin_of_differences(inp: Inputs, dim: int, period: float) -> tuple[np.ndarray, np.ndarray]:
    """cos and sin of 2π(x - x')/p from 2N trigonometric calls instead of 2N²:
    cos(a - b) = cos a cos b + sin a sin b, sin(a - b) = sin a cos b - cos a sin b."""
    w = 2.0 * np.pi / period
    a, b = w * inp.col(dim), w * inp.col2(dim)
    ca, sa, cb, sb = np.cos(a), np.sin(a), np.cos(b), np.sin(b)
    cos = np.outer(ca, cb)
    cos += np.outer(sa, sb)
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
    names: ClassVar[tuple[str, ...]] = ("period", "sd")
    positive: ClassVar[tuple[bool, ...]] = (True, True)
    units: ClassVar[tuple[str, ...]] = ("length", "scale")

    def _eval(self, inp: Inputs, grad: bool) -> tuple[np.ndarray, Matrices]:
        period, sd = self.params
        phase = 2.0 * np.pi * inp.diff(self.dim) / period
        K = sd**2 * np.cos(phase)
        if not grad:
            return K, []
        return K, [sd**2 * np.sin(phase) * phase, 2.0 * K]


# ==========================================================================================
# Gates: the sigmoid of a changepoint and the window of a changewindow
# ==========================================================================================


def _sigmoid_down(x: np.ndarray, loc: float, s: float) -> tuple[np.ndarray, np.ndarray]:
    """σ(x) = ½(1 + tanh((loc - x)/s)): 1 well before loc, 0 well after (eq. 1.6).

    Returns σ and its derivatives with respect to (loc, log s), shape (2, N).
    """
    z = (loc - x) / s
    t = np.tanh(z)
    g = 0.5 * (1.0 + t)
    dg_dz = 0.5 * (1.0 - t**2)
    return g, np.stack([dg_dz / s, -dg_dz * z])


def _changepoint_gate(x: np.ndarray, values: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """Weight of the first operand of CP: σ(x), with derivatives w.r.t. (location, log s)."""
    loc, s = values
    return _sigmoid_down(x, loc, s)


def _changewindow_gate(x: np.ndarray, values: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """Weight of the first operand of CW: 1 - w(x), w the window between loc ∓ width/2.

    w(x) = σ_up(x) σ_down(x): σ_up = ½(1 + tanh((x - start)/s)), σ_down = ½(1 + tanh((end - x)/s)),
    start = loc - width/2, end = loc + width/2. Derivatives w.r.t. (loc, log width, log s).
    """
    loc, width, s = values
    start, end = loc - 0.5 * width, loc + 0.5 * width
    up, d_up = _sigmoid_down(-x, -start, s)  # ½(1 + tanh((x - start)/s)); d/d(-start)
    down, d_down = _sigmoid_down(x, end, s)
    w = up * down
    d_loc = -d_up[0] * down + up * d_down[0]
    d_width = (d_up[0] * down + up * d_down[0]) * 0.5 * width
    d_s = d_up[1] * down + up * d_down[1]
    return 1.0 - w, -np.stack([d_loc, d_width, d_s])


_GATES = {"CP": _changepoint_gate, "CW": _changewindow_gate}


@dataclass(frozen=True)
class ChangeOperator(_NamedParams, Kernel):
    """Common form of CP and CW:  K = g g'ᵀ ∘ K1 + (1-g)(1-g')ᵀ ∘ K2  (eq. 1.6-1.7).

    For CP, g = σ: ``first`` applies before ``location`` and ``second`` after it.
    For CW, g = 1 - w: ``first`` applies outside the window, ``second`` inside it.
    """

    first: Kernel = None  # type: ignore[assignment]
    second: Kernel = None  # type: ignore[assignment]
    params: tuple[float, ...] = ()
    dim: int = 0

    names: ClassVar[tuple[str, ...]] = ()

    @property
    def operands(self) -> tuple[Kernel, ...]:
        return (self.first, self.second)

    def with_operands(self, operands: Sequence[Kernel]) -> Kernel:
        first, second = operands
        return _copy_with(self, first=first, second=second)

    @property
    def own_positive(self) -> tuple[bool, ...]:
        return (False,) + (True,) * (len(self.names) - 1)

    def gate(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return _GATES[self.symbol](x, self.params)

    def _eval(self, inp: Inputs, grad: bool) -> tuple[np.ndarray, Matrices]:
        g1, dg1 = self.gate(inp.col(self.dim))
        g2, dg2 = (g1, dg1) if inp.same else self.gate(inp.col2(self.dim))
        w_first = np.outer(g1, g2)
        w_second = np.outer(1.0 - g1, 1.0 - g2)
        K1, dK1 = self.first._eval(inp, grad)
        K2, dK2 = self.second._eval(inp, grad)
        K = w_first * K1 + w_second * K2
        if not grad:
            return K, []
        own = []
        for j in range(len(self.params)):
            d_first = np.outer(dg1[j], g2) + np.outer(g1, dg2[j])
            d_second = -np.outer(dg1[j], 1.0 - g2) - np.outer(1.0 - g1, dg2[j])
            own.append(d_first * K1 + d_second * K2)
        return K, own + [w_first * d for d in dK1] + [w_second * d for d in dK2]

    def _forward(self, inp: Inputs) -> tuple[np.ndarray, Any]:
        g, dg = self.gate(inp.col(self.dim))
        K1, c1 = self.first._forward(inp)
        K2, c2 = self.second._forward(inp)
        w_first, w_second = np.outer(g, g), np.outer(1.0 - g, 1.0 - g)
        return w_first * K1 + w_second * K2, (g, dg, K1, c1, K2, c2, w_first, w_second)

    def _backward(self, cache: Any, G: np.ndarray) -> list[float]:
        # Σ G ∘ (dg gᵀ + g dgᵀ) ∘ K1 = 2 dgᵀ (G ∘ K1) g for symmetric G and K1.
        g, dg, K1, c1, K2, c2, w_first, w_second = cache
        H1, H2 = (G * K1) @ g, (G * K2) @ (1.0 - g)
        own = [2.0 * float(d @ H1) - 2.0 * float(d @ H2) for d in dg]
        return own + self.first._backward(c1, G * w_first) + self.second._backward(c2, G * w_second)

    def to_text(self, params: bool = True, digits: int | None = None) -> str:
        head = self.symbol if self.dim == 0 else f"{self.symbol}@{self.dim}"
        args = [self.first.to_text(params, digits), self.second.to_text(params, digits)]
        if params:
            args.append(_own_text(self, digits))
        return f"{head}({', '.join(args)})"


@dataclass(frozen=True)
class CP(ChangeOperator):
    """Changepoint CP(k1, k2): k1 before ``location``, k2 after; ``steepness`` is the sigmoid's
    scale s in x units (the switch takes about 2s)."""

    symbol: ClassVar[str] = "CP"
    names: ClassVar[tuple[str, ...]] = ("location", "steepness")
    units: ClassVar[tuple[str, ...]] = ("location", "length")


@dataclass(frozen=True)
class CW(ChangeOperator):
    """Changewindow CW(k1, k2): k1 outside the window [location ∓ width/2], k2 inside it."""

    symbol: ClassVar[str] = "CW"
    names: ClassVar[tuple[str, ...]] = ("location", "width", "steepness")
    units: ClassVar[tuple[str, ...]] = ("location", "length", "length")


@dataclass(frozen=True)
class Gate(BaseKernel):
    """A changepoint or changewindow factor as a kernel of its own, g(x) g(x').

    These appear only in the sum-of-products form, where CP(k1, k2) = k1 × Before + k2 × After
    and CW(k1, k2) = k1 × Outside + k2 × Inside; their parameters copy the operator's.
    """

    stationary: ClassVar[bool] = False
    operator: ClassVar[str] = "CP"
    first_side: ClassVar[bool] = True

    def _weight(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        g, dg = _GATES[self.operator](x, self.params)
        return (g, dg) if self.first_side else (1.0 - g, -dg)

    def weight(self, x: np.ndarray) -> np.ndarray:
        """g(x): how strongly the factor is switched on at x (0 to 1)."""
        return self._weight(np.asarray(x, dtype=float))[0]

    def _eval(self, inp: Inputs, grad: bool) -> tuple[np.ndarray, Matrices]:
        g1, dg1 = self._weight(inp.col(self.dim))
        g2, dg2 = (g1, dg1) if inp.same else self._weight(inp.col2(self.dim))
        K = np.outer(g1, g2)
        if not grad:
            return K, []
        return K, [np.outer(dg1[j], g2) + np.outer(g1, dg2[j]) for j in range(len(self.params))]


@dataclass(frozen=True)
class Before(Gate):
    """σ(x)σ(x'): on before a changepoint."""

    symbol: ClassVar[str] = "Before"
    names: ClassVar[tuple[str, ...]] = CP.names
    units: ClassVar[tuple[str, ...]] = CP.units
    positive: ClassVar[tuple[bool, ...]] = (False, True)


@dataclass(frozen=True)
class After(Gate):
    """(1-σ(x))(1-σ(x')): on after a changepoint."""

    symbol: ClassVar[str] = "After"
    names: ClassVar[tuple[str, ...]] = CP.names
    units: ClassVar[tuple[str, ...]] = CP.units
    positive: ClassVar[tuple[bool, ...]] = (False, True)
    first_side: ClassVar[bool] = False


@dataclass(frozen=True)
class Outside(Gate):
    """(1-w(x))(1-w(x')): on outside a window."""

    symbol: ClassVar[str] = "Outside"
    names: ClassVar[tuple[str, ...]] = CW.names
    units: ClassVar[tuple[str, ...]] = CW.units
    positive: ClassVar[tuple[bool, ...]] = (False, True, True)
    operator: ClassVar[str] = "CW"


@dataclass(frozen=True)
class Inside(Gate):
    """w(x)w(x'): on inside a window."""

    symbol: ClassVar[str] = "Inside"
    names: ClassVar[tuple[str, ...]] = CW.names
    units: ClassVar[tuple[str, ...]] = CW.units
    positive: ClassVar[tuple[bool, ...]] = (False, True, True)
    operator: ClassVar[str] = "CW"
    first_side: ClassVar[bool] = False


# ==========================================================================================
# Sum and product
# ==========================================================================================


@dataclass(frozen=True)
class Combination(Kernel):
    """A sum or product of two or more operands."""

    terms: tuple[Kernel, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        object.__setattr__(self, "terms", tuple(self.terms))
        if len(self.terms) < 2:
            raise ValueError(f"{type(self).__name__} needs at least two operands")

    @property
    def operands(self) -> tuple[Kernel, ...]:
        return self.terms

    @property
    def stationary(self) -> bool:  # type: ignore[override]
        return all(k.stationary for k in self.terms)

    def with_operands(self, operands: Sequence[Kernel]) -> Kernel:
        terms = tuple(operands)
        if len(terms) < 2:
            raise ValueError(f"{type(self).__name__} needs at least two operands")
        return _copy_with(self, terms=terms)

    def to_text(self, params: bool = True, digits: int | None = None) -> str:
        parts = []
        for k in self.terms:
            text = k.to_text(params, digits)
            if isinstance(k, (type(self), Sum)):
                text = f"({text})"
            parts.append(text)
        return f" {self.symbol} ".join(parts)


@dataclass(frozen=True)
class Sum(Combination):
    """k1 + k2 + ...: K = Σ K_i, and dK/dθ is the operand's own dK_i/dθ."""

    symbol: ClassVar[str] = "+"

    def _eval(self, inp: Inputs, grad: bool) -> tuple[np.ndarray, Matrices]:
        K = None
        dK: Matrices = []
        for k in self.terms:
            Ki, dKi = k._eval(inp, grad)
            K = Ki if K is None else K + Ki
            dK += dKi
        return K, dK

    def _forward(self, inp: Inputs) -> tuple[np.ndarray, Any]:
        parts = [k._forward(inp) for k in self.terms]
        K = parts[0][0].copy()
        for Ki, _ in parts[1:]:
            K += Ki
        return K, [c for _, c in parts]

    def _backward(self, cache: Any, G: np.ndarray) -> list[float]:
        return [v for k, c in zip(self.terms, cache, strict=True) for v in k._backward(c, G)]


@dataclass(frozen=True)
class Product(Combination):
    """k1 × k2 × ...: K = Π K_i; product rule dK/dθ = dK_j/dθ ∘ Π_{i≠j} K_i."""

    symbol: ClassVar[str] = "*"

    def _eval(self, inp: Inputs, grad: bool) -> tuple[np.ndarray, Matrices]:
        parts = [k._eval(inp, grad) for k in self.terms]
        Ks = [p[0] for p in parts]
        if not grad:
            K = Ks[0]
            for Ki in Ks[1:]:
                K = K * Ki
            return K, []
        K, others = _product_and_others(Ks)
        dK: Matrices = []
        for j, (_, dKj) in enumerate(parts):
            dK += [d * others[j] for d in dKj]
        return K, dK

    def _forward(self, inp: Inputs) -> tuple[np.ndarray, Any]:
        parts = [k._forward(inp) for k in self.terms]
        K, others = _product_and_others([Ki for Ki, _ in parts])
        return K, (others, [c for _, c in parts])

    def _backward(self, cache: Any, G: np.ndarray) -> list[float]:
        others, caches = cache
        out: list[float] = []
        for k, c, rest in zip(self.terms, caches, others, strict=True):
            out += k._backward(c, G * rest)
        return out


def _product_and_others(Ks: list[np.ndarray]) -> tuple[np.ndarray, list[np.ndarray]]:
    """Π K_i and, for each j, Π_{i≠j} K_i (from prefix and suffix products, no division)."""
    m = len(Ks)
    prefix = [Ks[0]]
    for Ki in Ks[1:-1]:
        prefix.append(prefix[-1] * Ki)
    others: list[np.ndarray] = [Ks[0]] * m
    suffix = Ks[-1]
    others[m - 1] = prefix[m - 2]
    for j in range(m - 2, 0, -1):
        others[j] = prefix[j - 1] * suffix
        suffix = suffix * Ks[j]
    others[0] = suffix
    return suffix * Ks[0], others


BASE_KERNELS: dict[str, type[BaseKernel]] = {
    cls.symbol: cls for cls in (WN, C, Lin, SE, RQ, Per, Cos, Before, After, Outside, Inside)
}
OPERATORS: dict[str, type[ChangeOperator]] = {"CP": CP, "CW": CW}


def total(kernels: Sequence[Kernel]) -> Kernel:
    """The sum of several kernels (the kernel itself when there is one)."""
    kernels = list(kernels)
    return kernels[0] if len(kernels) == 1 else Sum(tuple(kernels))


def product(kernels: Sequence[Kernel]) -> Kernel:
    """The product of several kernels (the kernel itself when there is one)."""
    kernels = list(kernels)
    return kernels[0] if len(kernels) == 1 else Product(tuple(kernels))
