"""A prior over kernel structures: a probabilistic grammar over the language's base kernels,
sums, products, changepoints and changewindows.

A tree is drawn from the root down. A node at depth k < ``max_depth`` is a leaf with
probability ``leaf``, else an operator; a node at ``max_depth`` is a leaf. A leaf is a base
kernel drawn with probability proportional to its weight in ``bases``, on an input drawn
uniformly among the n inputs (a kernel that reads no x, C or WN, stays on input 0); an operator
is drawn in proportion to its weight in ``operators`` (below a changepoint or window, the
changes' weights times ``nested_change``) and has two children, drawn the same way one level
deeper (a changepoint or window acts on an input drawn uniformly as well). The
probability of a tree is the product of the probabilities of the choices that built it
(``log_prob``), its parameters left unset: their prior is ``evidence.ParameterPrior``.

Sums and products are binary here; a flat sum or product of more terms is read as the
left-nested chain ((a + b) + c), the form ``sample`` builds. Trees that differ only by the
order of a sum's terms are different trees, each with its own probability (as in the grammar
of Saad et al., ICML 2023).

The default weights follow that grammar's defaults in spirit: the smooth, periodic and linear
kernels equally likely, the constant and the rational quadratic less; sums and products equally
likely, changes half as likely. White noise is not a leaf by default: the sampler gives every
particle its own noise outside the tree (``smc``), so that every particle can be conditioned.

Nests of changes: with changes a third of the operators anywhere, a change inside a change
made up 46% of the trees holding a change (0.160 of all trees against 0.347, at ``leaf`` 0.5 and
``max_depth`` 4: ``nest_probability``), so the first sampler's particles read as cascades of
breaks. Below a change, the changes' weights are multiplied by ``nested_change`` (0.1): a nest
is then 0.035 of all trees (10% of those holding a change), while a tree holding a change
stays as likely (0.347), and two breaks remain reachable.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from abcd_cli.kernel_search.grammar import BASES
from abcd_cli.kernels import ChangeOperator, Kernel, Product, Sum
from abcd_cli.kernels.base import BaseKernel, reads_x
from abcd_cli.kernels.changes import CP, CW

#: Base kernels and their weights, operators and theirs.
DEFAULT_BASES = {"SE": 1.0, "Per": 1.0, "Lin": 1.0, "C": 0.5, "RQ": 0.5}
#: The changes' weight below a change, as a fraction of their weight elsewhere.
NESTED_CHANGE = 0.1
CHANGES = ("CP", "CW")
DEFAULT_OPERATORS = {"+": 1.0, "*": 1.0, "CP": 0.5, "CW": 0.5}
#: How each operator joins two children ``a``, ``b`` (a change acting on input ``d``).
BUILDERS = {"+": lambda a, b, d: Sum((a, b)), "*": lambda a, b, d: Product((a, b))}
BUILDERS |= {"CP": lambda a, b, d: CP(a, b, dim=d), "CW": lambda a, b, d: CW(a, b, dim=d)}


def _normalised(weights: Mapping[str, float]) -> dict[str, float]:
    total = sum(weights.values())
    return {k: w / total for k, w in weights.items() if w > 0}


@dataclass(frozen=True)
class StructurePrior:
    """The grammar's probabilities; see the module docstring."""

    bases: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_BASES))
    operators: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_OPERATORS))
    leaf: float = 0.5
    max_depth: int = 4
    nested_change: float = NESTED_CHANGE

    def __post_init__(self) -> None:
        unknown = (set(self.bases) - set(BASES)) | (set(self.operators) - set(BUILDERS))
        if unknown:
            raise ValueError(f"unknown base kernels or operators: {sorted(unknown)}")
        if not 0.0 < self.leaf <= 1.0 or self.max_depth < 0 or self.nested_change < 0:
            raise ValueError("leaf must be in (0, 1], max_depth and nested_change at least 0")

    def operator_weights(self, under_change: bool) -> dict[str, float]:
        """The operators' probabilities at a node (below a change or not)."""
        scale = self.nested_change if under_change else 1.0
        return _normalised(
            {op: w * scale if op in CHANGES else w for op, w in self.operators.items()}
        )

    # --- drawing -----------------------------------------------------------------------------
    def sample(
        self, rng: np.random.Generator, n_dims: int = 1, depth: int = 0, under_change: bool = False
    ) -> Kernel:
        """One tree drawn from the prior (its parameters unset), its root at ``depth`` and below
        a change or not."""
        if depth >= self.max_depth or rng.uniform() < self.leaf:
            bases = _normalised(self.bases)
            name = str(rng.choice(list(bases), p=list(bases.values())))
            kernel = BASES[name]((), 0)
            if reads_x(kernel) and n_dims > 1:
                kernel = BASES[name]((), int(rng.integers(n_dims)))
            return kernel
        operators = self.operator_weights(under_change)
        op = str(rng.choice(list(operators), p=list(operators.values())))
        dim = int(rng.integers(n_dims)) if op in CHANGES and n_dims > 1 else 0
        below = under_change or op in CHANGES
        left = self.sample(rng, n_dims, depth + 1, below)
        right = self.sample(rng, n_dims, depth + 1, below)
        return BUILDERS[op](left, right, dim)

    # --- probability -------------------------------------------------------------------------
    def log_prob(
        self, kernel: Kernel, n_dims: int = 1, depth: int = 0, under_change: bool = False
    ) -> float:
        """log P(tree) under the grammar (−inf for a tree it cannot build), its root at
        ``depth`` and below a change or not."""
        stop = 1.0 if depth >= self.max_depth else self.leaf
        if isinstance(kernel, BaseKernel):
            weight = _normalised(self.bases).get(kernel.symbol, 0.0)
            if weight == 0.0 or (kernel.dim != 0 and not reads_x(kernel)):
                return -math.inf
            where = math.log(n_dims) if reads_x(kernel) else 0.0
            return math.log(stop) + math.log(weight) - where
        if stop >= 1.0:
            return -math.inf
        op, left, right = _binary(kernel)
        weight = self.operator_weights(under_change).get(op, 0.0)
        if weight == 0.0:
            return -math.inf
        where = math.log(n_dims) if op in CHANGES else 0.0
        own = math.log(1.0 - stop) + math.log(weight) - where
        below = under_change or op in CHANGES
        children = self.log_prob(left, n_dims, depth + 1, below)
        return own + children + self.log_prob(right, n_dims, depth + 1, below)

    def nest_probability(self) -> float:
        """P(a tree holds a change inside a change), exactly: with a(k, u) the probability that
        a subtree at depth k (below a change: u) holds a change, b(k, u) that it holds a nest,
        s the probability of a leaf and c(u) the changes' share of the operators,

            a(k, u) = (1 − s) [c(u) + (1 − c(u)) (1 − (1 − a(k+1, u))²)],
            b(k, u) = (1 − s) [c(u) (1 − (1 − a(k+1, 1))²) + (1 − c(u)) (1 − (1 − b(k+1, u))²)],

        both 0 at ``max_depth``; the answer is b(0, 0)."""
        share = {u: sum(self.operator_weights(u).get(op, 0.0) for op in CHANGES) for u in (0, 1)}
        a = {u: 0.0 for u in (0, 1)}
        b = {u: 0.0 for u in (0, 1)}
        for _ in range(self.max_depth):
            s = self.leaf
            b = {
                u: (1 - s)
                * (share[u] * (1 - (1 - a[1]) ** 2) + (1 - share[u]) * (1 - (1 - b[u]) ** 2))
                for u in (0, 1)
            }
            a = {u: (1 - s) * (share[u] + (1 - share[u]) * (1 - (1 - a[u]) ** 2)) for u in (0, 1)}
        return b[0]


def below_change(kernel: Kernel, under_change: bool = False) -> list[bool]:
    """For every node of ``kernel``, in the order of ``kernel.nodes()`` (and of
    ``grammar.subexpressions``), whether a change is above it."""
    below = under_change or isinstance(kernel, ChangeOperator)
    return [under_change] + [f for k in kernel.operands for f in below_change(k, below)]


def operator_of(kernel: Kernel) -> str:
    """The grammar's name of an operator node ("+", "*", "CP", "CW")."""
    return _binary(kernel)[0]


def _binary(kernel: Kernel) -> tuple[str, Kernel, Kernel]:
    """The node's operator and its two children; a flat sum or product of more terms as the
    left-nested chain."""
    if isinstance(kernel, ChangeOperator):
        first, second = kernel.operands
        return kernel.symbol, first, second
    op = "+" if isinstance(kernel, Sum) else "*" if isinstance(kernel, Product) else "?"
    terms = list(kernel.operands)
    if op == "?" or len(terms) < 2:
        raise ValueError(f"the structure prior has no rule for {kernel.to_text(params=False)}")
    left = terms[0] if len(terms) == 2 else type(kernel)(tuple(terms[:-1]))
    return op, left, terms[-1]
