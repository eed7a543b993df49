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
(``saturated_inputs`` finds such inputs).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

from abcd_cli.data.summary import InputSummaries
from abcd_cli.kernel_search.init import theta_bounds
from abcd_cli.kernels import Additive, Kernel

K = TypeVar("K", bound=Hashable)

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
