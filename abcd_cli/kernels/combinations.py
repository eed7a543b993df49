"""Sums and products of kernels (thesis ch. 2: sums and products of kernels are kernels)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from abcd_cli.kernels.base import Inputs, Kernel, Matrices, copy_with


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
        return copy_with(self, terms=terms)

    def to_text(
        self, params: bool = True, digits: int | None = None, names: Sequence[str] = ()
    ) -> str:
        parts = []
        for k in self.terms:
            text = k.to_text(params, digits, names)
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

    def _diag(self, X: np.ndarray) -> np.ndarray:
        d = self.terms[0]._diag(X)
        for k in self.terms[1:]:
            d = d + k._diag(X)
        return d

    def _forward(self, inp: Inputs) -> tuple[np.ndarray, Any]:
        parts = [k._forward(inp) for k in self.terms]
        K = parts[0][0].copy()
        for Ki, _ in parts[1:]:
            K += Ki
        return K, [c for _, c in parts]

    def _backward(self, cache: Any, G: np.ndarray) -> list[float]:
        return [v for k, c in zip(self.terms, cache, strict=True) for v in k._backward(c, G)]

    def _diag_forward(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray, Any]:
        """c = Σ c_i, n = Σ n_i."""
        parts = [k._diag_forward(X) for k in self.terms]
        c = parts[0][0].copy()
        n = parts[0][1].copy()
        for ci, ni, _ in parts[1:]:
            c += ci
            n += ni
        return c, n, [cache for _, _, cache in parts]

    def _diag_backward(self, cache: Any, gc: np.ndarray, gn: np.ndarray) -> list[float]:
        return [
            v for k, c in zip(self.terms, cache, strict=True) for v in k._diag_backward(c, gc, gn)
        ]


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

    def _diag(self, X: np.ndarray) -> np.ndarray:
        d = self.terms[0]._diag(X)
        for k in self.terms[1:]:
            d = d * k._diag(X)
        return d

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

    def _diag_forward(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray, Any]:
        """c = Π c_i; n = Π (c_i + n_i) - Π c_i, accumulated factor by factor as
        n ← n·f_j + c·n_j, c ← c·c_j (f = c + n): sums of non-negative products, so a small
        noise part is not lost to cancellation."""
        parts = [k._diag_forward(X) for k in self.terms]
        cs = [p[0] for p in parts]
        fs = [p[0] + p[1] for p in parts]
        c, n, _ = parts[0]
        for (cj, nj, _), fj in zip(parts[1:], fs[1:], strict=True):
            n = n * fj + c * nj
            c = c * cj
        return c, n, (cs, fs, [p[2] for p in parts])

    def _diag_backward(self, cache: Any, gc: np.ndarray, gn: np.ndarray) -> list[float]:
        """With C_j = Π_{i≠j} c_i and F_j = Π_{i≠j} f_i: ∂c/∂c_j = C_j, ∂n/∂c_j = F_j - C_j,
        ∂n/∂n_j = F_j, ∂c/∂n_j = 0."""
        cs, fs, caches = cache
        _, c_others = _product_and_others(cs)
        _, f_others = _product_and_others(fs)
        out: list[float] = []
        for k, c, Cj, Fj in zip(self.terms, caches, c_others, f_others, strict=True):
            out += k._diag_backward(c, gc * Cj + gn * (Fj - Cj), gn * Fj)
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


def total(kernels: Sequence[Kernel]) -> Kernel:
    """The sum of several kernels (the kernel itself when there is one)."""
    kernels = list(kernels)
    return kernels[0] if len(kernels) == 1 else Sum(tuple(kernels))


def product(kernels: Sequence[Kernel]) -> Kernel:
    """The product of several kernels (the kernel itself when there is one)."""
    kernels = list(kernels)
    return kernels[0] if len(kernels) == 1 else Product(tuple(kernels))
