"""Components a reader can take as findings: terms of the same kind gathered into one, terms
switched off over the whole data set apart.

The sum-of-products form (thesis §4.1) is the device that makes components computable; a model
of it often splits one cycle over several terms (a period of 1.0 year with linearly and with
quadratically growing amplitude; an 11-year cycle in seven windows). A report lists what the
data hold, so terms of one kind become one component, their sum (still an additive component
of the model, whose posterior the engine gives as for any term):

- periodic: terms on the same input whose leading periods lie within ``PERIOD_TOLERANCE`` of
  the group's first (the tolerance by which the posterior's features group periods);
- smooth: terms on the same one input whose lengthscales, (Σ ℓ_k⁻²)^(-1/2) over their smooth
  factors, lie within a factor ``SMOOTH_RATIO`` of the group's first;
- polynomial trends: terms on the same one input made of linear factors (and constants)
  alone, without change factors.

Noise terms are already one component (``components.input_terms``). A term that the change
factors keep below ``OFF_SHARE`` of full strength over every x of the data (or whose windows do
not overlap at all) is switched off everywhere in the data: it is no finding, and the
decomposition keeps it apart (``Decomposition.dropped``). Roles come from each kernel's
declaration (``role``).
"""

from __future__ import annotations

import math

import numpy as np

from abcd_cli.decompose.features import PERIOD_TOLERANCE
from abcd_cli.decompose.input_terms import term_inputs
from abcd_cli.kernels import BaseKernel, Kernel, Product, total

#: Smooth terms whose lengthscales lie within this factor of each other are one component.
SMOOTH_RATIO = 2.0
#: A term whose change factors stay below this share of full strength at every x of the data
#: is switched off there.
OFF_SHARE = 0.1


def _role(kernel: Kernel) -> str:
    return str(getattr(kernel, "role", ""))


def _plain_product(term: Kernel) -> bool:
    """Whether the term is a product of base kernels (not an additive kernel's whole order)."""
    return all(isinstance(k, (BaseKernel, Product)) for k in term.nodes())


def gate_strength(term: Kernel, x: np.ndarray) -> np.ndarray:
    """Π g(x) over the term's change factors at the rows ``x`` (ones without any)."""
    strength = np.ones(x.shape[0])
    for base in term.bases():
        if _role(base) == "gate":
            strength = strength * base.modulator(x[:, base.dim])  # type: ignore[attr-defined]
    return strength


def is_switched_off(term: Kernel, X: np.ndarray) -> bool:
    """Whether change factors keep the term below ``OFF_SHARE`` at every row of ``X``."""
    if not any(_role(b) == "gate" for b in term.bases()):
        return False
    return bool(gate_strength(term, X).max() < OFF_SHARE)


def _lengthscale(smooth: list[BaseKernel]) -> float:
    """(Σ ℓ_k⁻²)^(-1/2): the lengthscale of a product of smooth factors."""
    return float(sum(k.param("lengthscale") ** -2 for k in smooth) ** -0.5)


def kind_of(term: Kernel) -> tuple[str, tuple[int, ...], float] | None:
    """What the term is, for gathering: ("periodic", (d,), log period), ("smooth", (d,), log
    lengthscale) or ("polynomial", (d,), 0); None for a term that is gathered with no other
    (noise, a constant, a product over several inputs, a gated trend)."""
    if not _plain_product(term) or term.has_noise_factor():
        return None
    bases = term.bases()
    dims = term_inputs(term)
    periodic = [b for b in bases if _role(b) == "periodic"]
    if periodic:
        return ("periodic", (periodic[0].dim,), math.log(periodic[0].param("period")))
    if len(dims) != 1:
        return None
    smooth = [b for b in bases if _role(b) == "smooth"]
    if smooth:
        return ("smooth", dims, math.log(_lengthscale(smooth)))
    roles = {_role(b) for b in bases}
    if "linear" in roles and roles <= {"linear", "constant"}:
        return ("polynomial", dims, 0.0)
    return None


def _joins(kind: tuple[str, tuple[int, ...], float], first: tuple) -> bool:
    """Whether a term of ``kind`` belongs to the group led by a term of kind ``first``."""
    if kind[:2] != first[:2]:
        return False
    if kind[0] == "periodic":
        return abs(kind[2] - first[2]) <= PERIOD_TOLERANCE
    if kind[0] == "smooth":
        return abs(kind[2] - first[2]) <= math.log(SMOOTH_RATIO)
    return True


def gather(terms: list[Kernel], X: np.ndarray) -> tuple[list[Kernel], list[Kernel]]:
    """The components of ``terms`` (the model's signal terms, internal units; ``X`` the data's
    inputs, internal units): each group of one kind summed into one kernel, in the order of
    its first term; and apart, the terms switched off over the whole data."""
    off = [t for t in terms if is_switched_off(t, X)]
    groups: list[tuple[tuple | None, list[Kernel]]] = []
    for term in terms:
        if any(term is t for t in off):
            continue
        kind = kind_of(term)
        group = None
        if kind is not None:
            group = next((g for g in groups if g[0] is not None and _joins(kind, g[0])), None)
        if group is None:
            groups.append((kind, [term]))
        else:
            group[1].append(term)
    return [total(members) for _, members in groups], off
