"""Changepoints and changewindows: the operators CP and CW, and their gates as factors.

Formulas from the grammar appendix (``shared/papers/004``, eq. 1.6-1.7).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar, NamedTuple

import numpy as np

from abcd_cli.kernels.base import (
    OPERATORS,
    BaseKernel,
    Declared,
    Inputs,
    Kernel,
    Matrices,
    copy_with,
    own_text,
)
from abcd_cli.kernels.params import CHANGE_LOCATION, STEEPNESS, WIDTH, Param, Role

GateFunction = Callable[[np.ndarray, Sequence[float]], tuple[np.ndarray, np.ndarray]]
#: An interval of x where a gate is on: (low, high, steepness at low, steepness at high); an
#: infinite end has steepness 0.
Span = tuple[float, float, float, float]


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


class _CrossCache(NamedTuple):
    """What the reverse mode of a change operator keeps for a rectangular K(X, Z)."""

    g1: np.ndarray
    dg1: np.ndarray
    g2: np.ndarray
    dg2: np.ndarray
    K1: np.ndarray
    c1: Any
    K2: np.ndarray
    c2: Any
    w_first: np.ndarray
    w_second: np.ndarray


@dataclass(frozen=True)
class ChangeOperator(Declared, Kernel):
    """Common form of CP and CW:  K = g g'ᵀ ∘ K1 + (1-g)(1-g')ᵀ ∘ K2  (eq. 1.6-1.7).

    For CP, g = σ: ``first`` applies before ``location`` and ``second`` after it.
    For CW, g = 1 - w: ``first`` applies outside the window, ``second`` inside it.
    A subclass declares ``symbol``, ``specs`` and its ``gate``; defining it registers it in
    ``OPERATORS``.
    """

    first: Kernel = None  # type: ignore[assignment]
    second: Kernel = None  # type: ignore[assignment]
    params: tuple[float, ...] = ()
    dim: int = 0

    weight_of_first: ClassVar[GateFunction]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "symbol" in cls.__dict__:
            OPERATORS[cls.symbol] = cls

    @property
    def operands(self) -> tuple[Kernel, ...]:
        return (self.first, self.second)

    def with_operands(self, operands: Sequence[Kernel]) -> Kernel:
        first, second = operands
        return copy_with(self, first=first, second=second)

    def gate(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """g(x) and its derivatives with respect to this node's theta, shape (n_own, N)."""
        return type(self).weight_of_first(x, self.params)

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

    def _diag(self, X: np.ndarray) -> np.ndarray:
        g = self.gate(X[:, self.dim])[0]
        h = 1.0 - g
        return (g * g) * self.first._diag(X) + (h * h) * self.second._diag(X)

    def _diag_forward(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray, Any]:
        """c = g² c1 + h² c2 and n = g² n1 + h² n2, h = 1 - g."""
        g, dg = self.gate(X[:, self.dim])
        h = 1.0 - g
        g2, h2 = g * g, h * h
        c1, n1, cache1 = self.first._diag_forward(X)
        c2, n2, cache2 = self.second._diag_forward(X)
        c = g2 * c1 + h2 * c2
        n = g2 * n1 + h2 * n2
        return c, n, (g, dg, c1, n1, cache1, c2, n2, cache2)

    def _diag_backward(self, cache: Any, gc: np.ndarray, gn: np.ndarray) -> list[float]:
        """Own: Σ 2 dg_j [g (gc c1 + gn n1) - h (gc c2 + gn n2)]; operands: the adjoints
        times g² and h²."""
        g, dg, c1, n1, cache1, c2, n2, cache2 = cache
        h = 1.0 - g
        s = 2.0 * (g * (gc * c1 + gn * n1) - h * (gc * c2 + gn * n2))
        own = [float(d @ s) for d in dg]
        g2, h2 = g * g, h * h
        return (
            own
            + self.first._diag_backward(cache1, gc * g2, gn * g2)
            + self.second._diag_backward(cache2, gc * h2, gn * h2)
        )

    def _forward(self, inp: Inputs) -> tuple[np.ndarray, _CrossCache]:
        g1, dg1 = self.gate(inp.col(self.dim))
        g2, dg2 = (g1, dg1) if inp.same else self.gate(inp.col2(self.dim))
        K1, c1 = self.first._forward(inp)
        K2, c2 = self.second._forward(inp)
        w_first, w_second = np.outer(g1, g2), np.outer(1.0 - g1, 1.0 - g2)
        K = w_first * K1 + w_second * K2
        return K, _CrossCache(g1, dg1, g2, dg2, K1, c1, K2, c2, w_first, w_second)

    def _backward(self, c: _CrossCache, G: np.ndarray) -> list[float]:
        if c.g2 is not c.g1:
            return self._backward_cross(c, G)
        # Σ G ∘ (dg gᵀ + g dgᵀ) ∘ K1 = 2 dgᵀ (G ∘ K1) g for symmetric G and K1.
        H1, H2 = (G * c.K1) @ c.g1, (G * c.K2) @ (1.0 - c.g1)
        own = [2.0 * float(d @ H1) - 2.0 * float(d @ H2) for d in c.dg1]
        return (
            own
            + self.first._backward(c.c1, G * c.w_first)
            + self.second._backward(c.c2, G * c.w_second)
        )

    def _backward_cross(self, c: _CrossCache, G: np.ndarray) -> list[float]:
        """Σ G ∘ (dg1 g2ᵀ + g1 dg2ᵀ) ∘ K1 = dg1ᵀ (G ∘ K1) g2 + g1ᵀ (G ∘ K1) dg2, and the same
        with 1 - g and a minus sign for K2."""
        A1, A2 = G * c.K1, G * c.K2
        h1, h2 = 1.0 - c.g1, 1.0 - c.g2
        first = _pair_contract(A1, c.dg1, c.g2, c.g1, c.dg2)
        second = _pair_contract(A2, c.dg1, h2, h1, c.dg2)
        own = [float(a - b) for a, b in zip(first, second, strict=True)]
        return (
            own
            + self.first._backward(c.c1, G * c.w_first)
            + self.second._backward(c.c2, G * c.w_second)
        )

    def to_text(
        self, params: bool = True, digits: int | None = None, names: Sequence[str] = ()
    ) -> str:
        head = self.label(names)
        args = [
            self.first.to_text(params, digits, names),
            self.second.to_text(params, digits, names),
        ]
        if params:
            args.append(own_text(self, digits))
        return f"{head}({', '.join(args)})"


def _pair_contract(
    A: np.ndarray, d_left: np.ndarray, right: np.ndarray, left: np.ndarray, d_right: np.ndarray
) -> np.ndarray:
    """[d_left_j ᵀ A right + left ᵀ A d_right_j]_j: Σ A ∘ ∂(left rightᵀ)/∂θ_j for every j."""
    return d_left @ (A @ right) + d_right @ (A.T @ left)


@dataclass(frozen=True)
class CP(ChangeOperator):
    """Changepoint CP(k1, k2): k1 before ``location``, k2 after; ``steepness`` is the sigmoid's
    scale s in x units (the switch takes about 2s)."""

    symbol: ClassVar[str] = "CP"
    specs: ClassVar[tuple[Param, ...]] = (CHANGE_LOCATION, STEEPNESS)
    weight_of_first: ClassVar[GateFunction] = staticmethod(_changepoint_gate)  # type: ignore[assignment]


@dataclass(frozen=True)
class CW(ChangeOperator):
    """Changewindow CW(k1, k2): k1 outside the window [location ∓ width/2], k2 inside it."""

    symbol: ClassVar[str] = "CW"
    specs: ClassVar[tuple[Param, ...]] = (CHANGE_LOCATION, WIDTH, STEEPNESS)
    weight_of_first: ClassVar[GateFunction] = staticmethod(_changewindow_gate)  # type: ignore[assignment]


# ==========================================================================================
# Gates: a change operator's weights as factors of the sum-of-products form
# ==========================================================================================


def _gate_specs(operator: type[ChangeOperator]) -> tuple[Param, ...]:
    """The operator's specs; a gate's location is not checked (only the operator's is)."""
    return tuple(replace(p, check=None) for p in operator.specs)


@dataclass(frozen=True)
class Gate(BaseKernel):
    """A changepoint or changewindow factor as a kernel of its own, g(x) g(x').

    These appear only in the sum-of-products form, where CP(k1, k2) = k1 × Before + k2 × After
    and CW(k1, k2) = k1 × Outside + k2 × Inside; their parameters copy the operator's. Each
    says where it is on (``switched_on``), which the report words.
    """

    stationary: ClassVar[bool] = False
    role: ClassVar[Role] = "gate"
    operator: ClassVar[str] = "CP"
    first_side: ClassVar[bool] = True

    def _weight(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        g, dg = OPERATORS[self.operator].weight_of_first(x, self.params)
        return (g, dg) if self.first_side else (1.0 - g, -dg)

    def modulator(self, x: np.ndarray) -> np.ndarray:
        """g with this gate's kernel g(x) g(x'), on its input values."""
        return self._weight(x)[0]

    def switched_on(self) -> list[Span]:
        """Where the gate is on, as intervals of x with the steepness of each switch."""
        raise NotImplementedError

    def _window(self) -> tuple[float, float, float]:
        """A window's start and end (location ∓ width/2) and its steepness."""
        loc, width, s = self.params
        return loc - 0.5 * width, loc + 0.5 * width, s

    def _eval(self, inp: Inputs, grad: bool) -> tuple[np.ndarray, Matrices]:
        g1, dg1 = self._weight(inp.col(self.dim))
        g2, dg2 = (g1, dg1) if inp.same else self._weight(inp.col2(self.dim))
        K = np.outer(g1, g2)
        if not grad:
            return K, []
        return K, [np.outer(dg1[j], g2) + np.outer(g1, dg2[j]) for j in range(len(self.params))]

    def _diag(self, X: np.ndarray) -> np.ndarray:
        g = self._weight(X[:, self.dim])[0]
        return g * g

    def _diag_grad(self, X: np.ndarray) -> tuple[np.ndarray, Matrices]:
        g, dg = self._weight(X[:, self.dim])
        return g * g, [2.0 * g * d for d in dg]


@dataclass(frozen=True)
class Before(Gate):
    """σ(x)σ(x'): on before a changepoint."""

    symbol: ClassVar[str] = "Before"
    specs: ClassVar[tuple[Param, ...]] = _gate_specs(CP)

    def switched_on(self) -> list[Span]:
        loc, s = self.params
        return [(-math.inf, loc, 0.0, s)]


@dataclass(frozen=True)
class After(Gate):
    """(1-σ(x))(1-σ(x')): on after a changepoint."""

    symbol: ClassVar[str] = "After"
    specs: ClassVar[tuple[Param, ...]] = _gate_specs(CP)
    first_side: ClassVar[bool] = False

    def switched_on(self) -> list[Span]:
        loc, s = self.params
        return [(loc, math.inf, s, 0.0)]


@dataclass(frozen=True)
class Outside(Gate):
    """(1-w(x))(1-w(x')): on outside a window."""

    symbol: ClassVar[str] = "Outside"
    specs: ClassVar[tuple[Param, ...]] = _gate_specs(CW)
    operator: ClassVar[str] = "CW"

    def switched_on(self) -> list[Span]:
        start, end, s = self._window()
        return [(-math.inf, start, 0.0, s), (end, math.inf, s, 0.0)]


@dataclass(frozen=True)
class Inside(Gate):
    """w(x)w(x'): on inside a window."""

    symbol: ClassVar[str] = "Inside"
    specs: ClassVar[tuple[Param, ...]] = _gate_specs(CW)
    operator: ClassVar[str] = "CW"
    first_side: ClassVar[bool] = False

    def switched_on(self) -> list[Span]:
        start, end, s = self._window()
        return [(start, end, s, s)]
