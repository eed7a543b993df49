"""The terms of a model and the inputs each one reads.

A term of the sum-of-products form (thesis §4.1) reads the inputs of its base kernels that
depend on x (C and WN read none). The additive kernel (``kernels/additive.py``) is one node,
σ_1² e_1(z) + ... + σ_R² e_R(z); written out it is a sum over every set S of r ≤ R inputs of
σ_r² ∏_{d∈S} k_d(x_d, x'_d) (``shared/papers/002`` eq. 1.7), one term per set, each a product
of the members' unit-variance kernels whose first carries the sd σ_r. With more than
``MAX_SET_TERMS`` sets the kernel is split by order instead: σ_r² e_r, one term per order
(its order ``term_order``; ``order_sets`` writes it out again where the sets themselves are
wanted, as in the variance table).
"""

from __future__ import annotations

import math
from itertools import combinations

from abcd_cli.kernels import Additive, Kernel, product
from abcd_cli.kernels.base import copy_with, reads_x

#: Above this many sets of inputs, an additive kernel is written out one term per order.
MAX_SET_TERMS = 15


def term_inputs(term: Kernel) -> tuple[int, ...]:
    """The inputs a term reads, sorted: its x-reading base kernels' dims, an additive kernel's
    members' (every member for a whole order, the set's for a written-out set)."""
    dims: set[int] = set()
    for node in term.nodes():
        if isinstance(node, Additive):
            dims.update(b.dim for b in node.members)
        elif reads_x(node):
            dims.add(int(node.dim))  # type: ignore[attr-defined]
    return tuple(sorted(dims))


def is_noise(term: Kernel) -> bool:
    """Whether a term holds white noise."""
    return term.has_noise_factor()


def set_count(kernel: Additive) -> int:
    """Σ_{r ≤ R} C(D, r): the sets of inputs the additive kernel sums over."""
    n = len(kernel.members)
    return sum(math.comb(n, r) for r in range(1, kernel.order + 1))


def additive_terms(kernel: Additive) -> list[Kernel]:
    """σ_r² ∏_{d∈S} k_d for every set S of r ≤ R inputs (order by order, sets in input order);
    σ_r² e_r, one term per order, when there are more than ``MAX_SET_TERMS`` sets."""
    if set_count(kernel) > MAX_SET_TERMS:
        return [_order_term(kernel, r) for r in range(1, kernel.order + 1)]
    return [t for r, sd in enumerate(kernel.sds, start=1) for t in _set_terms(kernel, r, sd)]


def _set_terms(kernel: Additive, r: int, sd: float) -> list[Kernel]:
    """sd² ∏_{d∈S} k_d for every set S of r of the kernel's members, in input order."""
    terms = []
    for members in combinations(kernel.members, r):
        first = members[0]
        values = list(first.params)
        values[first.names.index("sd")] = sd
        terms.append(product([copy_with(first, params=tuple(values)), *members[1:]]))
    return terms


def _order_term(kernel: Additive, r: int) -> Kernel:
    """σ_r² e_r(z): the additive kernel with every other order's sd at zero."""
    sds = tuple(sd if k == r else 0.0 for k, sd in enumerate(kernel.sds, start=1))
    return copy_with(kernel, sds=sds)


def _whole_order(term: Kernel) -> tuple[Additive, int] | None:
    """(the additive kernel, r) when ``term`` is one whole order σ_r² e_r of it."""
    if not isinstance(term, Additive):
        return None
    live = [r for r, sd in enumerate(term.sds, start=1) if sd != 0.0]
    return (term, live[0]) if len(live) == 1 else None


def term_order(term: Kernel) -> int:
    """The order of interaction of a term: r for a whole order σ_r² e_r of the additive kernel
    (which reads every input), else the number of inputs it reads."""
    whole = _whole_order(term)
    return whole[1] if whole else len(term_inputs(term))


def order_sets(term: Kernel, most: int) -> list[Kernel]:
    """A whole order σ_r² e_r written out as its C(D, r) set terms when there are at most
    ``most`` of them; any other term (or too many sets) as it is."""
    whole = _whole_order(term)
    if whole is None:
        return [term]
    kernel, r = whole
    if math.comb(len(kernel.members), r) > most:
        return [term]
    return _set_terms(kernel, r, kernel.sds[r - 1])


def expand_additive(terms: list[Kernel]) -> list[Kernel]:
    """``terms`` with every additive kernel among them written out (``additive_terms``)."""
    out: list[Kernel] = []
    for term in terms:
        out += additive_terms(term) if isinstance(term, Additive) else [term]
    return out
