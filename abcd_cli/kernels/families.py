"""Base kernels: white noise, constant, linear, squared exponential, rational quadratic.

Formulas from the grammar appendix (``shared/papers/004``, eq. 1.1-1.4). Each class declares its
parameters once (``specs``), its role in the report and its words there; ``_eval`` gives K and
the forward-mode derivatives dK/dθ (θ = log of a positive parameter, the raw value of a
location), ``_diag`` the O(N) diagonal with the same arithmetic as the diagonal of ``_eval``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from abcd_cli.kernels.base import BaseKernel, Inputs, Matrices, Wording
from abcd_cli.kernels.params import (
    ALPHA,
    LENGTHSCALE,
    LEVEL_SD,
    NOISE_SD,
    OFFSET,
    SD,
    SLOPE_SD,
    Param,
    Role,
)


@dataclass(frozen=True)
class WN(BaseKernel):
    """White noise: WN(x, x') = sd² δ(x, x')  (eq. 1.1).

    The delta is on observations, not on values: repeated x values get independent noise,
    and the cross-covariance between two different input sets is zero.
    """

    symbol: ClassVar[str] = "WN"
    specs: ClassVar[tuple[Param, ...]] = (NOISE_SD,)
    role: ClassVar[Role] = "noise"
    searchable: ClassVar[bool] = True

    def _eval(self, inp: Inputs, grad: bool) -> tuple[np.ndarray, Matrices]:
        (sd,) = self.params
        n, m = inp.shape
        K = sd**2 * np.eye(n) if inp.same else np.zeros((n, m))
        return K, ([2.0 * K] if grad else [])

    def _diag(self, X: np.ndarray) -> np.ndarray:
        return np.full(X.shape[0], self.params[0] ** 2)

    def _diag_grad(self, X: np.ndarray) -> tuple[np.ndarray, Matrices]:
        d = self._diag(X)
        return d, [2.0 * d]

    def _diag_forward(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray, Any]:
        """All of WN's diagonal is noise: c = 0, n = sd²."""
        d, dd = self._diag_grad(X)
        return np.zeros_like(d), d, dd

    def _diag_backward(self, cache: Any, gc: np.ndarray, gn: np.ndarray) -> list[float]:
        return [float(gn @ d) for d in cache]


@dataclass(frozen=True)
class C(BaseKernel):
    """Constant: C(x, x') = sd²  (eq. 1.2)."""

    symbol: ClassVar[str] = "C"
    specs: ClassVar[tuple[Param, ...]] = (LEVEL_SD,)
    role: ClassVar[Role] = "constant"
    searchable: ClassVar[bool] = True

    def _eval(self, inp: Inputs, grad: bool) -> tuple[np.ndarray, Matrices]:
        (sd,) = self.params
        K = np.full(inp.shape, sd**2)
        return K, ([2.0 * K] if grad else [])

    def _diag(self, X: np.ndarray) -> np.ndarray:
        return np.full(X.shape[0], self.params[0] ** 2)


@dataclass(frozen=True)
class Lin(BaseKernel):
    """Linear: Lin(x, x') = sd² (x - location)(x' - location)  (eq. 1.3)."""

    symbol: ClassVar[str] = "Lin"
    specs: ClassVar[tuple[Param, ...]] = (SLOPE_SD, OFFSET)
    role: ClassVar[Role] = "linear"
    searchable: ClassVar[bool] = True
    stationary: ClassVar[bool] = False

    def _eval(self, inp: Inputs, grad: bool) -> tuple[np.ndarray, Matrices]:
        sd, loc = self.params
        a = inp.col(self.dim) - loc
        b = inp.col2(self.dim) - loc
        K = sd**2 * np.outer(a, b)
        if not grad:
            return K, []
        d_loc = -(sd**2) * (a[:, None] + b[None, :])
        return K, [2.0 * K, d_loc]

    def modulator(self, x: np.ndarray) -> np.ndarray:
        """f with Lin(x, x') = f(x) f(x'): sd (x - location), on this kernel's input values."""
        sd, loc = self.params
        return sd * (x - loc)

    def _diag(self, X: np.ndarray) -> np.ndarray:
        sd, loc = self.params
        a = X[:, self.dim] - loc
        return sd**2 * (a * a)

    def _diag_grad(self, X: np.ndarray) -> tuple[np.ndarray, Matrices]:
        sd, loc = self.params
        a = X[:, self.dim] - loc
        d = sd**2 * (a * a)
        return d, [2.0 * d, -2.0 * sd**2 * a]


@dataclass(frozen=True)
class SE(BaseKernel):
    """Squared exponential: SE(x, x') = sd² exp(-(x - x')² / (2 lengthscale²))  (eq. 1.4)."""

    symbol: ClassVar[str] = "SE"
    specs: ClassVar[tuple[Param, ...]] = (LENGTHSCALE, SD)
    role: ClassVar[Role] = "smooth"
    searchable: ClassVar[bool] = True
    noun: ClassVar[str] = "a smooth function"

    def shape_sentence(self, words: Wording) -> str:
        """How far apart its changes are: the component's lengthscale."""
        return f"It varies smoothly over about {words.span}."

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

    def _diag(self, X: np.ndarray) -> np.ndarray:
        return np.full(X.shape[0], self.params[1] ** 2)


@dataclass(frozen=True)
class RQ(BaseKernel):
    """Rational quadratic: RQ(x, x') = sd² (1 + (x - x')² / (2 alpha lengthscale²))^(-alpha)."""

    symbol: ClassVar[str] = "RQ"
    specs: ClassVar[tuple[Param, ...]] = (LENGTHSCALE, SD, ALPHA)
    role: ClassVar[Role] = "smooth"
    searchable: ClassVar[bool] = True
    noun: ClassVar[str] = "a smooth function"
    modifier: ClassVar[str] = "with variation on a mix of length scales"

    def shape_sentence(self, words: Wording) -> str:
        """The component's lengthscale and the mix of scales around it (the smaller α, the
        wider)."""
        alpha = words.number(self.param("alpha"))
        return (
            f"It varies smoothly over about {words.span}, with faster and slower changes mixed in "
            f"(the smaller the shape parameter α = {alpha}, the wider the mix)."
        )

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

    def _diag(self, X: np.ndarray) -> np.ndarray:
        return np.full(X.shape[0], self.params[1] ** 2)
