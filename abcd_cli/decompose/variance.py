"""How much of the variance each component, each input and each order of interaction carries.

Of the fitted mean: m = Σ_k m_k, the components' posterior means at the data (noise left out:
it is not part of the fitted function). var(m) = Σ_k cov(m_k, m), so the share of component k,
s_k = cov(m_k, m) / var(m), adds up to one over the components; a component that works against
the others has a negative share. The shares of components reading the same set of inputs add
up to that set's share, those of components of r inputs to the order-r share. An input's
share is that of every component reading it, alone or with others: Σ_{k reads d} s_k. An
interaction counts towards each of its inputs, so these shares add up to more than one when
there are interactions.

Of the additive kernel (``shared/papers/002`` §1.3): its prior variance at a point is
Σ_r σ_r² C(D, r), the order-r interactions carrying σ_r² C(D, r) of it. When an input's
lengthscale runs to its upper bound its kernel is ≈ 1 everywhere, so every set holding that
input acts as the set without it, one order lower: that variance belongs to the order below
(``saturated_inputs`` finds such inputs). ``variance_table`` gathers all of it for the report.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

from abcd_cli.data.summary import InputSummaries
from abcd_cli.decompose.facts import Axis, ComponentFacts
from abcd_cli.decompose.input_terms import order_sets, term_inputs, term_order
from abcd_cli.kernel_search.init import theta_bounds
from abcd_cli.kernels import Additive, Kernel
from abcd_cli.model import Model

K = TypeVar("K", bound=Hashable)

#: A whole order of the additive kernel is split into its sets for the variance table up to
#: this many sets (C(10, 5) = 252 at ten inputs); the table shows this many sets' rows at most.
MAX_SPLIT_SETS = 1024
MAX_SET_ROWS = 15

#: A lengthscale within this factor of its upper bound counts as having reached it.
BOUND_FACTOR = 0.9


@dataclass(frozen=True)
class Share:
    """One row of a variance table: a set of inputs (or an order) and its share."""

    label: str  # the inputs' names, "(no input)", or "order r"
    inputs: tuple[int, ...]
    variance: float  # in y's units squared
    share: float  # of the total


def mean_shares(means: Sequence[np.ndarray]) -> list[float]:
    """s_k = cov(m_k, m) / var(m) with m = Σ_k m_k (zero each when m is constant)."""
    if not means:
        return []
    stacked = np.asarray(means, dtype=float)
    centred = stacked - stacked.mean(axis=1, keepdims=True)
    fitted = centred.sum(axis=0)
    total = float(fitted @ fitted)
    if total <= 0.0:
        return [0.0] * len(means)
    return [float(c @ fitted) / total for c in centred]


@dataclass(frozen=True)
class InputShare:
    """One input's share of the fitted mean's variance: of its own components, and of every
    component that reads it (alone or in an interaction)."""

    label: str
    input: int
    alone: float
    overall: float


def input_shares(
    shares: Sequence[float], keys: Sequence[tuple[int, ...]], names: Sequence[str]
) -> list[InputShare]:
    """Each input's share, alone (components reading it only) and overall (every component
    reading it), in input order; an input no component reads has zero for both."""
    return [
        InputShare(
            name,
            d,
            sum(s for s, key in zip(shares, keys, strict=True) if key == (d,)),
            sum(s for s, key in zip(shares, keys, strict=True) if d in key),
        )
        for d, name in enumerate(names)
    ]


def grouped(shares: Sequence[float], keys: Sequence[K]) -> dict[K, float]:
    """The shares added up by key (a set of inputs, an order), keys in order of first
    appearance."""
    out: dict[K, float] = {}
    for share, key in zip(shares, keys, strict=True):
        out[key] = out.get(key, 0.0) + share
    return out


def order_variances(kernel: Additive) -> list[tuple[int, float, int, float]]:
    """(r, σ_r², C(D, r), σ_r² C(D, r)) for each order r of the additive kernel."""
    n = len(kernel.members)
    return [
        (r, sd**2, math.comb(n, r), sd**2 * math.comb(n, r))
        for r, sd in enumerate(kernel.sds, start=1)
    ]


def additive_node(kernel: Kernel) -> Additive | None:
    """The additive kernel in a model's kernel (the additive language's), if there is one."""
    return next((k for k in kernel.nodes() if isinstance(k, Additive)), None)


def saturated_inputs(kernel: Kernel, X: np.ndarray, y: np.ndarray) -> list[int]:
    """The inputs of the model's additive kernel whose lengthscale reached its upper bound
    (within ``BOUND_FACTOR``), from the bounds the search fits within (``theta_bounds`` on the
    summaries of the internal-unit data X, y)."""
    node = additive_node(kernel)
    if node is None:
        return []
    bounds = theta_bounds(node, InputSummaries.from_data(X, y))
    found = []
    for name, theta, (_, high), (spec, dim) in zip(
        node.own_names, node.theta(), bounds, node.own_specs(), strict=True
    ):
        if (
            name.endswith(".lengthscale")
            and spec.positive
            and theta >= high + math.log(BOUND_FACTOR)
        ):
            found.append(dim)
    return sorted(set(found))


@dataclass(frozen=True)
class VarianceTable:
    """Shares of the fitted mean's variance by set of inputs, by input and by order, and the
    additive kernel's order variances with the inputs whose lengthscale reached its bound."""

    total: float  # variance of the fitted mean over the data, y's units squared
    by_inputs: list[Share]
    by_input: list[InputShare]
    by_order: list[Share]
    additive_orders: list[Share] | None
    saturated: tuple[int, ...]


def inputs_label(dims: tuple[int, ...], names: tuple[str, ...], order: int | None = None) -> str:
    """'weight', 'horsepower × year', '(no input)'; a whole order of the additive kernel that
    was not split into its sets: 'every set of 2 inputs'."""
    if order is not None and order != len(dims):
        return f"every set of {order} inputs"
    return " × ".join(names[d] for d in dims) if dims else "(no input)"


def variance_table(
    model: Model,
    components: list[ComponentFacts],
    terms: list[Kernel],
    axes: tuple[Axis, ...],
) -> VarianceTable:
    """The fitted mean's variance split by set of inputs, by input and by order (constants,
    which carry none, left out), and the additive kernel's order variances. ``terms`` are the
    components' kernels (internal units); a whole order of the additive kernel is split into its
    sets of inputs here (``order_sets``), so that each set and each input gets its own share.
    The sets table keeps the ``MAX_SET_ROWS`` largest shares and adds up the rest."""
    names = tuple(a.x_name for a in axes)
    pieces = []  # (inputs, order, posterior mean at the data in y's units)
    for c, term in zip(components, terms, strict=True):
        if c.share is None:
            continue
        written = order_sets(term, MAX_SPLIT_SETS)
        if written[0] is term:  # not split: its mean is the component's own
            pieces.append((c.dims, c.order, c.data_mean))
        else:
            y_scale = model.scaling.y_scale
            pieces += [
                (term_inputs(t), term_order(t), y_scale * model.posterior.mean(t)) for t in written
            ]
    means = [mean for *_, mean in pieces]
    fitted = np.sum(means, axis=0) if means else np.zeros(model.n)
    total_variance = float(np.var(fitted))
    shares = mean_shares(means)
    keys = [(dims, order) for dims, order, _ in pieces]
    sets = sorted(
        (
            Share(inputs_label(dims, names, order), dims, share * total_variance, share)
            for (dims, order), share in grouped(shares, keys).items()
            if dims
        ),
        key=lambda s: -s.share,
    )
    by_inputs = sets[:MAX_SET_ROWS]
    if len(sets) > MAX_SET_ROWS:
        rest = sets[MAX_SET_ROWS:]
        share = sum(s.share for s in rest)
        label = f"the other {len(rest)} sets of inputs"
        by_inputs.append(Share(label, (), share * total_variance, share))
    orders = grouped(shares, [order for _, order in keys])
    by_order = [
        Share(f"order {r}", (), share * total_variance, share)
        for r, share in sorted(orders.items())
        if r
    ]
    node = additive_node(model.user_kernel)
    additive = None
    if node is not None:
        rows = order_variances(node)
        prior = sum(v for *_, v in rows) or 1.0
        additive = [Share(f"order {r}", (), v, v / prior) for r, _, _, v in rows]
    sc = model.scaling
    saturated = saturated_inputs(model.kernel, sc.x_in(model.X), sc.y_in(model.y))
    by_input = input_shares(shares, [dims for dims, _ in keys], names)
    return VarianceTable(total_variance, by_inputs, by_input, by_order, additive, tuple(saturated))
