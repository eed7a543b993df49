"""The additive kernel of every order of interaction up to R (additive Gaussian processes).

``shared/papers/002`` §1.3, eq. 1.5-1.11. Each input d has a one-dimensional base kernel of unit
variance, z_d = k_d(x_d, x'_d) (SE by default, with its own lengthscale). The order-r kernel is
the r-th elementary symmetric polynomial of the z_d, the sum over every set of r inputs of the
product of their base kernels (eq. 1.7), and each order has its own variance σ_r²:

    k_add(x, x') = Σ_{r=1..R} σ_r² e_r(z_1, ..., z_D).

e_r comes from the Newton-Girard formulae (eq. 1.10): with the power sums p_k = Σ_d z_d^k and
e_0 = 1,  e_r = (1/r) Σ_{k=1..r} (-1)^(k-1) e_{r-k} p_k.  That is D·R elementwise powers and R²
products of Gram matrices, never the 2^D subsets. The gradient runs the recursion backwards: from
the adjoints ē_r = σ_r² G down to p̄_k and to z̄_d = Σ_k k p̄_k z_d^(k-1), which each base kernel
turns into the gradient of its own parameters (eq. 1.11 gives the same derivative as
∂e_r/∂z_d = e_{r-1}(z without z_d)).

Text form: ``Additive(R=2; SE, SE@1, SE@2)`` (the order, then one base kernel per input, ``@d``
naming the input as elsewhere), with values
``Additive(R=2, sd1=0.9, sd2=0.1; SE(lengthscale=1.2), SE@1(lengthscale=0.4), ...)``: the order
sds σ_r and each base kernel's parameters but its sd, which is 1.

Precision: the recursion alternates signs. Against the sign-free recursion
e_r ← e_r + z_d e_{r-1} on SE Gram entries (z in [0, 1], mixed lengthscales) its absolute error
was at most 4e-14·C(D, r) for D ≤ 10 and 2e-12·C(D, r) at D = 20; ``MAX_ORDER`` caps R at 10,
the largest order of the paper's table 1.1.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import Any, ClassVar

import numpy as np

from abcd_cli.kernels.base import (
    BASE_KERNELS,
    BaseKernel,
    Composite,
    Inputs,
    Kernel,
    Matrices,
    _fmt,
    copy_with,
)
from abcd_cli.kernels.params import SD, Param, log_normal

#: The highest order of interaction a kernel may have (the paper's table 1.1 stops at 10).
MAX_ORDER = 10
#: Roles of the base kernels an additive kernel may be built from: a unit variance (sd = 1) has
#: a meaning for these whatever the units of x.
BASE_ROLES = ("smooth", "periodic")

Arrays = list[Any]  # numpy arrays, or floats where a term is constant


# ------------------------------------------------------------------------------------------
# Newton-Girard: elementary symmetric polynomials and their reverse mode
# ------------------------------------------------------------------------------------------


def elementary_symmetric(z: Sequence[np.ndarray], order: int) -> tuple[Arrays, Arrays]:
    """The power sums p_k = Σ_d z_d^k and the elementary symmetric polynomials e_r of the
    arrays z_d (any one shape), k, r = 0..order (eq. 1.10):
    e_0 = 1, e_r = (1/r) Σ_{k=1..r} (-1)^(k-1) e_{r-k} p_k. p_0 is unused (None)."""
    powers = [np.array(zd, dtype=float) for zd in z]
    p: Arrays = [None, _sum(powers)]
    for _ in range(2, order + 1):
        for zd, power in zip(z, powers, strict=True):
            power *= zd
        p.append(_sum(powers))
    e: Arrays = [1.0]
    for r in range(1, order + 1):
        acc = p[r] * ((-1.0) ** (r - 1))  # the k = r term: e_0 p_r
        for k in range(1, r):
            term = e[r - k] * p[k]
            acc = acc + term if k % 2 else acc - term
        e.append(acc / r)
    return p, e


def elementary_symmetric_adjoint(
    z: Sequence[np.ndarray], p: Arrays, e: Arrays, e_bar: Arrays
) -> list[np.ndarray]:
    """Reverse mode of ``elementary_symmetric``: given the adjoints ē_r of e_1..e_R (e_bar[0]
    is ignored; scalars or arrays), the adjoint z̄_d of each z_d.

    Backwards over r: e_r = (1/r) Σ_k s_k e_{r-k} p_k with s_k = (-1)^(k-1) gives
    p̄_k += s_k ē_r e_{r-k} / r and ē_{r-k} += s_k ē_r p_k / r; then z̄_d = Σ_k k p̄_k z_d^(k-1)
    (Horner's rule)."""
    order = len(e) - 1
    e_bar = list(e_bar)
    p_bar: Arrays = [0.0] * (order + 1)
    for r in range(order, 0, -1):
        g = e_bar[r] / r
        for k in range(1, r + 1):
            sign = 1.0 if k % 2 else -1.0
            p_bar[k] = p_bar[k] + sign * g * e[r - k]
            if k < r:
                e_bar[r - k] = e_bar[r - k] + sign * g * p[k]
    out = []
    for zd in z:
        acc = order * p_bar[order]
        for k in range(order - 1, 0, -1):
            acc = acc * zd + k * p_bar[k]
        out.append(np.broadcast_to(acc, np.shape(zd)) if np.ndim(acc) == 0 else acc)
    return out


def _sum(arrays: Sequence[np.ndarray]) -> np.ndarray:
    out = arrays[0].copy()
    for a in arrays[1:]:
        out += a
    return out


# ------------------------------------------------------------------------------------------
# Declarations
# ------------------------------------------------------------------------------------------


def _order_sd_start(share: float, s: Any, rng: np.random.Generator) -> float:
    """Log-normal about half the spread of y times √share: the orders share the prior variance
    (share = 1/(R·C(D, r)), and e_r(x, x) = C(D, r))."""
    return log_normal(rng, 0.5 * s.y_sd * math.sqrt(share))


def order_sd_spec(r: int, order: int, n_inputs: int) -> Param:
    """The declaration of σ_r, the sd of the order-r interactions: an sd of y, bounded as
    any sd."""
    share = 1.0 / (order * math.comb(n_inputs, r))
    return replace(
        SD,
        name=f"sd{r}",
        start=partial(_order_sd_start, share),
        words=f"standard deviation of the order-{r} interactions",
    )


def _admissible(cls: type[BaseKernel]) -> bool:
    """A base kernel an additive kernel can use: it reads x and has an sd of y to fix at 1."""
    return cls.role in BASE_ROLES and "sd" in cls.names


def _unit_variance(base: BaseKernel) -> BaseKernel:
    """``base`` with its sd set to 1."""
    values = list(base.params)
    values[base.names.index("sd")] = 1.0
    return copy_with(base, params=tuple(values))  # type: ignore[return-value]


def _free(base: BaseKernel) -> list[int]:
    """Positions of a base kernel's parameters that the additive kernel fits (all but sd)."""
    return [i for i, name in enumerate(base.names) if name != "sd"]


# ------------------------------------------------------------------------------------------
# The kernel
# ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Additive(Composite):
    """k_add(x, x') = Σ_{r=1..order} σ_r² e_r(k_1(x_1, x'_1), ..., k_D(x_D, x'_D)) (eq. 1.5-1.10).

    ``members``: one unit-variance base kernel per input it uses (sorted by input; their sd is
    held at 1 and is no parameter); ``sds``: σ_1..σ_order (NaN: not known yet). Theta: log σ_r,
    then each base kernel's own parameters but its sd, input by input.
    """

    order: int = 1
    members: tuple[BaseKernel, ...] = ()
    sds: tuple[float, ...] = ()

    symbol: ClassVar[str] = "Additive"

    def __post_init__(self) -> None:
        bases = tuple(sorted(self.members, key=lambda b: b.dim))
        if not bases:
            raise ValueError("Additive needs one base kernel per input")
        dims = [b.dim for b in bases]
        if len(set(dims)) != len(dims):
            raise ValueError(f"Additive: each input once, got inputs {dims}")
        for b in bases:
            if not isinstance(b, BaseKernel) or not _admissible(type(b)):
                raise ValueError(
                    f"Additive: {b.symbol} cannot be a base kernel (one of "
                    f"{', '.join(s for s, c in BASE_KERNELS.items() if _admissible(c))})"
                )
        if isinstance(self.order, bool) or int(self.order) != self.order:
            raise ValueError(f"Additive: the order must be a whole number, not {self.order}")
        if not 1 <= self.order <= min(len(bases), MAX_ORDER):
            raise ValueError(
                f"Additive: order {self.order} outside 1..{min(len(bases), MAX_ORDER)}"
                f" (at most the number of inputs, {len(bases)}, and {MAX_ORDER})"
            )
        sds = tuple(float(v) for v in self.sds) if self.sds else (math.nan,) * int(self.order)
        if len(sds) != self.order:
            raise ValueError(f"Additive of order {self.order} takes {self.order} sds")
        object.__setattr__(self, "order", int(self.order))
        object.__setattr__(self, "members", tuple(_unit_variance(b) for b in bases))
        object.__setattr__(self, "sds", sds)

    @classmethod
    def on_inputs(cls, n_inputs: int, order: int, base: str = "SE") -> Additive:
        """The additive kernel of ``order`` over inputs 0..n_inputs-1, values unknown."""
        return cls(order, tuple(BASE_KERNELS[base]((), d) for d in range(n_inputs)))

    # --- parameters ------------------------------------------------------------------------
    @property
    def stationary(self) -> bool:  # type: ignore[override]
        return all(b.stationary for b in self.members)

    @property
    def own_values(self) -> tuple[float, ...]:
        return self.sds + tuple(b.params[i] for b in self.members for i in _free(b))

    @property
    def own_names(self) -> tuple[str, ...]:
        return tuple(f"sd{r}" for r in range(1, self.order + 1)) + tuple(
            f"{b.head}.{b.names[i]}" for b in self.members for i in _free(b)
        )

    @property
    def own_positive(self) -> tuple[bool, ...]:
        return tuple(spec.positive for spec, _ in self.own_specs())

    def own_specs(self) -> list[tuple[Param, int]]:
        """σ_1..σ_R (read with the first input's summary: only y's spread matters), then each
        base kernel's parameters but its sd, each with the summary of its own input."""
        first = self.members[0].dim
        n = len(self.members)
        orders = [(order_sd_spec(r, self.order, n), first) for r in range(1, self.order + 1)]
        return orders + [(b.specs[i], b.dim) for b in self.members for i in _free(b)]

    def scale_params(self) -> tuple[int, ...]:
        return tuple(range(self.order))

    def with_own_values(self, values: Sequence[float]) -> Kernel:
        values = [float(v) for v in values]
        sds, rest = tuple(values[: self.order]), iter(values[self.order :])
        bases = []
        for b in self.members:
            params = list(b.params)
            for i in _free(b):
                params[i] = next(rest)
            bases.append(copy_with(b, params=tuple(params)))
        return copy_with(self, sds=sds, members=tuple(bases))

    def variance(self) -> float:
        """k(x, x) = Σ_r σ_r² C(D, r) (stationary unit-variance bases: z_d(x, x) = 1)."""
        n = len(self.members)
        return sum(sd**2 * math.comb(n, r) for r, sd in enumerate(self.sds, start=1))

    # --- evaluation ------------------------------------------------------------------------
    def _combine(self, e: Arrays) -> np.ndarray:
        """Σ_r σ_r² e_r."""
        K = self.sds[0] ** 2 * e[1]
        for r in range(2, self.order + 1):
            K = K + self.sds[r - 1] ** 2 * e[r]
        return K

    def _eval(self, inp: Inputs, grad: bool) -> tuple[np.ndarray, Matrices]:
        parts = [b._eval(inp, grad) for b in self.members]
        z = [Kd for Kd, _ in parts]
        p, e = elementary_symmetric(z, self.order)
        K = self._combine(e)
        if not grad:
            return K, []
        # dK/dlog σ_r = 2σ_r² e_r; dK/dθ_d = (∂K/∂z_d) ∘ dz_d/dθ_d, ∂K/∂z_d from ē_r = σ_r².
        dK = [2.0 * sd**2 * e[r] for r, sd in enumerate(self.sds, start=1)]
        dz = elementary_symmetric_adjoint(z, p, e, [0.0, *(sd**2 for sd in self.sds)])
        for b, (_, dzd), slope in zip(self.members, parts, dz, strict=True):
            dK += [slope * dzd[i] for i in _free(b)]
        return K, dK

    def _forward(self, inp: Inputs) -> tuple[np.ndarray, Any]:
        parts = [b._forward(inp) for b in self.members]
        z = [Kd for Kd, _ in parts]
        p, e = elementary_symmetric(z, self.order)
        return self._combine(e), (z, p, e, [c for _, c in parts])

    def _backward(self, cache: Any, G: np.ndarray) -> list[float]:
        z, p, e, caches = cache
        own = [2.0 * sd**2 * float(np.vdot(G, e[r])) for r, sd in enumerate(self.sds, start=1)]
        z_bar = elementary_symmetric_adjoint(z, p, e, [0.0, *(sd**2 * G for sd in self.sds)])
        for b, c, zb in zip(self.members, caches, z_bar, strict=True):
            grads = b._backward(c, zb)
            own += [grads[i] for i in _free(b)]
        return own

    def _diag(self, X: np.ndarray) -> np.ndarray:
        _, e = elementary_symmetric([b._diag(X) for b in self.members], self.order)
        return self._combine(e)

    def _diag_forward(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray, Any]:
        """c = Σ σ_r² e_r(c_1, ..., c_D); no white noise (n = 0)."""
        parts = [b._diag_forward(X) for b in self.members]
        z = [c for c, _, _ in parts]
        p, e = elementary_symmetric(z, self.order)
        c = self._combine(e)
        return c, np.zeros_like(c), (z, p, e, [cache for _, _, cache in parts])

    def _diag_backward(self, cache: Any, gc: np.ndarray, gn: np.ndarray) -> list[float]:
        z, p, e, caches = cache
        own = [2.0 * sd**2 * float(gc @ e[r]) for r, sd in enumerate(self.sds, start=1)]
        z_bar = elementary_symmetric_adjoint(z, p, e, [0.0, *(sd**2 * gc for sd in self.sds)])
        for b, c, zb in zip(self.members, caches, z_bar, strict=True):
            grads = b._diag_backward(c, zb, np.zeros_like(zb))
            own += [grads[i] for i in _free(b)]
        return own

    # --- text ------------------------------------------------------------------------------
    def to_text(
        self, params: bool = True, digits: int | None = None, names: Sequence[str] = ()
    ) -> str:
        header = [f"R={self.order}"]
        members = []
        for b in self.members:
            if params:
                values = ", ".join(f"{b.names[i]}={_fmt(b.params[i], digits)}" for i in _free(b))
                members.append(f"{b.label(names)}({values})")
            else:
                members.append(b.label(names))
        if params:
            header += [f"sd{r}={_fmt(v, digits)}" for r, v in enumerate(self.sds, start=1)]
        return f"{self.symbol}({', '.join(header)}; {', '.join(members)})"

    @classmethod
    def from_text(
        cls, header: dict[str, float], members: list[tuple[str, int, dict[str, float]]]
    ) -> Kernel:
        if "R" not in header:
            raise ValueError("Additive needs its order, R=...")
        order = header["R"]
        if order != int(order):
            raise ValueError(f"Additive: R must be a whole number, not {order}")
        order = int(order)
        names = {f"sd{r}" for r in range(1, order + 1)}
        given = set(header) - {"R"}
        if given - names:
            raise ValueError(
                f"Additive of order {order} has no parameter {sorted(given - names)[0]!r}"
            )
        if given and given != names:
            raise ValueError(f"Additive: give all of {', '.join(sorted(names))} or none")
        sds = tuple(header[f"sd{r}"] for r in range(1, order + 1)) if given else ()
        bases = []
        for symbol, dim, values in members:
            base_cls = BASE_KERNELS.get(symbol)
            if base_cls is None or not _admissible(base_cls):
                raise ValueError(f"Additive: {symbol} cannot be a base kernel")
            free = [n for n in base_cls.names if n != "sd"]
            if set(values) - set(free) or (values and set(values) != set(free)):
                raise ValueError(
                    f"Additive: {symbol} takes {', '.join(free)} (all or none; its sd is 1)"
                )
            full = tuple(values.get(n, 1.0) for n in base_cls.names) if values else ()
            bases.append(base_cls(full, dim))
        return cls(order, tuple(bases), sds)
