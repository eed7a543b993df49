"""The kernel node: parameters, the theta vector, evaluation entry points, text and building.

Every node is an immutable, hashable, picklable dataclass. A node keeps its parameter values in
natural units (``NaN`` marks a value not known yet, to be initialised by the fitter). The
optimiser sees one flat vector ``theta``: the logarithm of every positive parameter, locations as
they are, ordered as the node's own parameters first, then its operands' from left to right.

Evaluation entry points (X is (N, D) or a vector; Z is (M, D)):
  ``gram(X, Z)``      K(X, Z); with Z omitted, the training covariance (white noise included).
  ``gram_grad(X)``    K(X, X) and every dK/dtheta_i, shape (n_params, N, N).
  ``diag(X)``         k(x_i, x_i) in O(N), equal to np.diag(gram(X)).
  ``vjp(X, Z)``       K(X, Z) and G ↦ [Σ_ij G_ij ∂K_ij/∂θ_i]_i (reverse mode).
  ``diag_vjp(X)``     the diagonal split into its noise-free part c and its white-noise part n,
                      and (g_c, g_n) ↦ [Σ_i g_c,i ∂c_i/∂θ + g_n,i ∂n_i/∂θ] (reverse mode), O(N).
Subclasses implement ``_eval`` (K and forward-mode derivatives on cached ``Inputs``) and ``_diag``;
operators with a cheaper reverse mode override ``_forward``/``_backward``; base kernels give
``_diag_grad`` (the diagonal's derivatives, O(N)), every node ``_diag_forward`` and
``_diag_backward``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple

import numpy as np

from abcd_cli.arrays import as_2d
from abcd_cli.kernels.params import Param, Role, derived

if TYPE_CHECKING:
    from abcd_cli.kernels.changes import ChangeOperator

Matrices = list[np.ndarray]


class Inputs:
    """Inputs of one Gram evaluation, with the pairwise differences cached per dimension."""

    def __init__(self, X: np.ndarray, X2: np.ndarray | None = None):
        self.X = as_2d(X)
        self.same = X2 is None
        self.X2 = self.X if X2 is None else as_2d(X2)
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


#: Roles of base kernels whose value does not depend on x: they live on input 0 only.
X_FREE_ROLES = ("constant", "noise")


def reads_x(node: Kernel | type[Kernel]) -> bool:
    """Whether a node (or kernel class) acts on one input: it has a dimension and its value
    depends on x."""
    return hasattr(node, "dim") and getattr(node, "role", None) not in X_FREE_ROLES


def input_label(dim: int, names: Sequence[str] = ()) -> str:
    """How a kernel's text names its input: ``[name]`` with the column's name when there are
    several named inputs (a name holding ``]`` or shared by two columns cannot be read back, so
    it is ``@dim`` instead); else ``@dim``, and nothing for input 0."""
    if len(names) > 1 and 0 <= dim < len(names):
        name = names[dim]
        if "]" not in name and names.count(name) == 1:
            return f"[{name}]"
    return f"@{dim}" if dim else ""


def _fmt(value: float, digits: int | None) -> str:
    if digits is None:
        return repr(float(value))
    return f"{value:.{digits}g}"


@dataclass(frozen=True)
class Kernel:
    """Abstract kernel expression node."""

    symbol: ClassVar[str] = "?"
    stationary: ClassVar[bool] = False
    # How each own parameter changes with the units of x and y (from the specs): "scale" (an sd
    # of y), "scale_per_x" (sd of y per unit of x), "length" (x units), "location" (a point on
    # x), "none" (unitless).
    units: ClassVar[tuple[str, ...]] = ()
    specs: ClassVar[tuple[Param, ...]] = ()

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

    def own_specs(self) -> list[tuple[Param, int]]:
        """The spec of each own parameter with the input dimension it acts on: the node's
        ``dim`` (0 for a node without one); a node whose parameters act on several inputs (the
        additive kernel) gives each its own."""
        dim = getattr(self, "dim", 0)
        return [(p, dim) for p in self.specs]

    def param_specs(self) -> list[tuple[Param, int]]:
        """The spec of every entry of theta, in theta order, with the input dimension it acts
        on."""
        return [spec for k in self.nodes() for spec in k.own_specs()]

    def scale_params(self) -> tuple[int, ...]:
        """Positions of the own parameters that carry this node's scale: multiplying K by c
        multiplies each of them by √c (a base kernel's ``sd``)."""
        return tuple(i for i, name in enumerate(self.own_names) if name == "sd")

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

    @property
    def is_noise(self) -> bool:
        """Whether this node is white noise: a base kernel whose declared role is "noise"."""
        return getattr(self, "role", None) == "noise"

    def has_noise_factor(self) -> bool:
        """Whether white noise (``is_noise``) is among the base kernels below this node: a
        sum-of-products term with it vanishes between distinct observations."""
        return any(b.is_noise for b in self.bases())

    # --- evaluation ------------------------------------------------------------------------
    def gram(self, X: np.ndarray, X2: np.ndarray | None = None) -> np.ndarray:
        """K(X, X2); with X2 omitted, the training covariance (white noise on the diagonal)."""
        return self.evaluate(Inputs(X, X2))[0]

    def gram_grad(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """K(X, X) and dK/dtheta stacked as an array of shape (n_params, N, N)."""
        K, dK = self.evaluate(Inputs(X), grad=True)
        return K, (np.stack(dK) if dK else np.zeros((0, *K.shape)))

    def diag(self, X: np.ndarray) -> np.ndarray:
        """Prior variance k(x_i, x_i) at each input (white noise included), in O(N): the same
        numbers as np.diag(gram(X))."""
        return self._diag(as_2d(X))

    def _diag(self, X: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def evaluate(self, inp: Inputs, grad: bool = False) -> tuple[np.ndarray, Matrices]:
        """K and, with ``grad``, the list of ∂K/∂θ_i (theta order) on ``Inputs`` that several
        kernels may share, so that their pairwise differences are made once (a sum's terms)."""
        return self._eval(inp, grad)

    def _eval(self, inp: Inputs, grad: bool) -> tuple[np.ndarray, Matrices]:
        raise NotImplementedError

    def vjp(
        self, X: np.ndarray, Z: np.ndarray | None = None
    ) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
        """K(X, Z) and a function G ↦ [Σ_ij G_ij ∂K_ij/∂θ_i]_i (reverse mode).

        With Z omitted: the training covariance K(X, X), and G must be symmetric. This is what
        the likelihood gradient needs, tr(W ∂K/∂θ_i), without forming every ∂K/∂θ_i of a
        product: the adjoint G is passed down the tree instead. With Z: the cross-covariance
        K(X, Z) (N x M; white noise contributes nothing) and any N x M adjoint G.
        """
        inp = Inputs(X, Z)
        K, cache = self._forward(inp)
        return K, lambda G: np.array(self._backward(cache, G), dtype=float)

    def _forward(self, inp: Inputs) -> tuple[np.ndarray, Any]:
        """K and what ``_backward`` needs (here: the forward-mode derivatives)."""
        return self._eval(inp, grad=True)

    def _backward(self, cache: Any, G: np.ndarray) -> list[float]:
        """[Σ G ∘ ∂K/∂θ_i] for this node's parameters, in theta order."""
        return [float(np.vdot(G, d)) for d in cache]

    def diag_vjp(
        self, X: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, Callable[[np.ndarray, np.ndarray], np.ndarray]]:
        """The diagonal split in two, in O(N), and its reverse-mode gradient.

        c_i = k(x_i, x_i'), x' a distinct copy of x (white noise, a delta on observations,
        contributes nothing: c = diag K(X, X.copy())); n_i = the white-noise part (WN and every
        product with a WN factor), so that c + n = diag(X) up to rounding. n is computed without
        subtracting c from the diagonal, so it keeps its relative precision when it is small.
        The function maps adjoints (g_c, g_n), two N-vectors, to
        [Σ_i g_c,i ∂c_i/∂θ_j + g_n,i ∂n_i/∂θ_j]_j in theta order.
        """
        c, n, cache = self._diag_forward(as_2d(X))
        return c, n, lambda gc, gn: np.array(self._diag_backward(cache, gc, gn), dtype=float)

    def diag_parts(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(c, n) of ``diag_vjp``: the noise-free diagonal and the white-noise diagonal."""
        c, n, _ = self._diag_forward(as_2d(X))
        return c, n

    def _diag_forward(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray, Any]:
        """(c, n) and what ``_diag_backward`` needs."""
        raise NotImplementedError

    def _diag_backward(self, cache: Any, gc: np.ndarray, gn: np.ndarray) -> list[float]:
        """[Σ gc ∂c/∂θ_j + gn ∂n/∂θ_j] for every parameter below this node, in theta order."""
        raise NotImplementedError

    # --- text ------------------------------------------------------------------------------
    def to_text(
        self, params: bool = True, digits: int | None = None, names: Sequence[str] = ()
    ) -> str:
        """Unambiguous text form; ``parse`` reads it back. ``names``: the input columns' names;
        with several, a kernel on one input says which as ``SE[weight]``, else as ``SE@d``."""
        raise NotImplementedError

    def __str__(self) -> str:
        return self.to_text(params=False)

    @property
    def structure(self) -> str:
        return self.to_text(params=False)

    # --- building --------------------------------------------------------------------------
    def __add__(self, other: Kernel) -> Kernel:
        from abcd_cli.kernels.combinations import Sum

        return Sum((self, other))

    def __mul__(self, other: Kernel) -> Kernel:
        from abcd_cli.kernels.combinations import Product

        return Product((self, other))


def copy_with(node: Kernel, **changes: Any) -> Kernel:
    """A copy of a frozen node with some fields changed, skipping re-validation (hot path)."""
    new = object.__new__(type(node))
    new.__dict__.update(node.__dict__)
    new.__dict__.update(changes)
    return new


def own_text(kernel: Kernel, digits: int | None) -> str:
    """``name=value, ...`` for a node's own parameters."""
    return ", ".join(
        f"{n}={_fmt(v, digits)}" for n, v in zip(kernel.own_names, kernel.own_values, strict=True)
    )


# ==========================================================================================
# Nodes with declared parameters, and the registries of base kernels and operators
# ==========================================================================================

# Every class that declares a ``symbol`` registers itself here when it is defined: the text
# form, the starting values, the bounds and the grammar all read these.
BASE_KERNELS: dict[str, type[BaseKernel]] = {}
OPERATORS: dict[str, type[ChangeOperator]] = {}
COMPOSITES: dict[str, type[Composite]] = {}


@dataclass(frozen=True)
class Composite(Kernel):
    """A kernel built from one base kernel per input, with a text form of its own::

        NAME(key=value, ...; member, member, ...)
        member := BASE ['@' DIM] ['(' name=value, ... ')']

    A subclass declares ``symbol`` and ``from_text``; defining it registers it in
    ``COMPOSITES``, where the parser finds it (the additive kernel is one).
    """

    symbol: ClassVar[str]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "symbol" in cls.__dict__:
            COMPOSITES[cls.symbol] = cls

    @classmethod
    def from_text(
        cls, header: dict[str, float], members: list[tuple[str, int, dict[str, float]]]
    ) -> Kernel:
        """The kernel from its parsed text: the ``key=value`` pairs before ``;`` and each
        member's symbol, input dimension and ``name=value`` pairs. ValueError if they do not
        make one."""
        raise NotImplementedError


class Declared:
    """Own parameters held in ``params`` (natural units, NaN = unknown), declared by ``specs``.

    A subclass that sets ``specs`` gets ``names``, ``positive`` and ``units`` derived from them.
    """

    params: tuple[float, ...]
    names: ClassVar[tuple[str, ...]] = ()
    positive: ClassVar[tuple[bool, ...]] = ()
    specs: ClassVar[tuple[Param, ...]] = ()
    symbol: ClassVar[str]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "specs" in cls.__dict__:
            for attr, value in derived(cls.specs).items():
                setattr(cls, attr, value)

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

    @property
    def own_positive(self) -> tuple[bool, ...]:
        return self.positive

    def with_own_values(self, values: Sequence[float]) -> Kernel:
        return copy_with(self, params=tuple(float(v) for v in values))  # type: ignore[arg-type]

    @property
    def head(self) -> str:
        return self.symbol if self.dim == 0 else f"{self.symbol}@{self.dim}"  # type: ignore[attr-defined]

    def label(self, names: Sequence[str] = ()) -> str:
        """The symbol and the input it reads (see ``input_label``); a kernel that reads no x
        is its symbol alone when its inputs are named."""
        if names and len(names) > 1 and not reads_x(self):  # type: ignore[arg-type]
            return self.head
        return self.symbol + input_label(self.dim, names)  # type: ignore[attr-defined]

    def param(self, name: str) -> float:
        return self.params[self.names.index(name)]


class Wording(NamedTuple):
    """What the report hands a kernel's ``shape_sentence``: ``span``, the lengthscale of the
    component's smooth factors in words ('' without any), and how it words a length in x units
    (``length``: '1.0 year') and a unitless number (``number``: '0.50')."""

    span: str
    length: Callable[[float], str]
    number: Callable[[float], str]


@dataclass(frozen=True)
class BaseKernel(Declared, Kernel):
    """A kernel on one input dimension ``dim`` with named parameters ``params``.

    A subclass declares ``symbol``, ``specs`` (one ``Param`` per parameter), its report
    ``role`` and whether the search grammar offers it (``searchable``), and implements
    ``_eval`` and ``_diag``; defining it registers it in ``BASE_KERNELS``. A periodic or smooth
    kernel also declares its words in the report: its head ``noun`` ('a periodic function'), the
    noun with a smooth factor too (``approximate_noun``: 'an approximately periodic function'),
    a ``modifier`` after the head ('with variation on a mix of length scales'), and
    ``shape_sentence``.
    """

    params: tuple[float, ...] = ()
    dim: int = 0

    stationary: ClassVar[bool] = True
    role: ClassVar[Role]
    searchable: ClassVar[bool] = False  # offered as B by the search grammar

    noun: ClassVar[str] = ""
    approximate_noun: ClassVar[str] = ""
    modifier: ClassVar[str] = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "symbol" in cls.__dict__:
            BASE_KERNELS[cls.symbol] = cls

    def shape_sentence(self, words: Wording) -> str:
        """The report's sentence on the shape of a component this kernel heads ('' for
        none), worded with ``words``."""
        return ""

    def _diag_grad(self, X: np.ndarray) -> tuple[np.ndarray, Matrices]:
        """k(x_i, x_i) and its derivative in each own theta entry, N-vectors, in O(N).

        This default reads them off ``_eval`` on 1×1 inputs (a point and a copy of it): once
        for a stationary kernel (the same at every point), point by point otherwise (slow in
        Python; the kernels of this package override it with their formulas).
        """
        n = X.shape[0]
        if n == 0:
            return np.zeros(0), [np.zeros(0) for _ in self.params]
        if self.stationary:
            K, dK = self._eval(Inputs(X[:1], X[:1].copy()), grad=True)
            return np.full(n, K[0, 0]), [np.full(n, d[0, 0]) for d in dK]
        out = [self._eval(Inputs(X[i : i + 1], X[i : i + 1].copy()), grad=True) for i in range(n)]
        d = np.array([K[0, 0] for K, _ in out])
        return d, [np.array([dK[j][0, 0] for _, dK in out]) for j in range(len(self.params))]

    def _diag_forward(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray, Any]:
        d, dd = self._diag_grad(X)
        return d, np.zeros_like(d), dd

    def _diag_backward(self, cache: Any, gc: np.ndarray, gn: np.ndarray) -> list[float]:
        return [float(gc @ d) for d in cache]

    def to_text(
        self, params: bool = True, digits: int | None = None, names: Sequence[str] = ()
    ) -> str:
        head = self.label(names)
        if not params:
            return head
        return f"{head}({own_text(self, digits)})"
