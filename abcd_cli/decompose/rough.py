"""A cycle's smooth shape apart from its rough terms.

A model often gathers into one cycle (``merging.gather``) a periodic term and a periodic term
times a smooth factor whose lengthscale is shorter than the period (temperature:
C·Per + SE(1.3 days)·Per, elnino: the same with 2.9 months). The second term is short-term
irregular variation whose size follows the season; its fitted curve follows the data from
point to point, so the sum's rise and fall within a period measures its wiggles, not the
yearly shape. The shape a reader should see is the curve of the other terms, and the rough
part is worded as what it is: the rough terms' posterior mean at the data, of standard
deviation sd(m_rough(x_i)).

A term is rough when its smooth factors' lengthscale ℓ = (Σ ℓ_k⁻²)^(-1/2) is below the
shortest period P of the component's periodic factors, ℓ < P, or when a periodic factor
correlates neighbouring data points (Δ apart) by less than ``NOISE_CORRELATION``,
exp(−2 sin²(πΔ/P) / ℓ_p²) < 0.05 (noise-like at the data);
the split is made only when
some term of the component is not rough (otherwise there is no smooth shape to draw).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from abcd_cli.decompose.window import cycle_window
from abcd_cli.kernels import Kernel, Sum, total
from abcd_cli.model import Model

#: A periodic factor whose correlation between neighbouring data points is below this is
#: noise-like at the data (its features are narrower than about 0.4 of the spacing).
NOISE_CORRELATION = 0.05


def _role(kernel: Kernel) -> str:
    return str(getattr(kernel, "role", ""))


def term_lengthscale(term: Kernel) -> float | None:
    """(Σ ℓ_k⁻²)^(-1/2) over the term's smooth factors; None when it has none."""
    smooth = [b for b in term.bases() if _role(b) == "smooth"]
    if not smooth:
        return None
    return float(sum(b.param("lengthscale") ** -2 for b in smooth) ** -0.5)


def _terms(component: Kernel) -> list[Kernel]:
    return list(component.operands) if isinstance(component, Sum) else [component]


def _shortest_period(terms: list[Kernel]) -> float | None:
    periods = [float(b.param("period")) for t in terms for b in t.bases() if _role(b) == "periodic"]
    return min(periods) if periods else None


def neighbour_correlation(periodic: Kernel, spacing: float) -> float:
    """A periodic factor's correlation between points one data spacing Δ apart,
    exp(−2 sin²(πΔ/P) / ℓ²) (the periodic kernel of the thesis, ch. 2)."""
    ell, period = periodic.param("lengthscale"), periodic.param("period")
    return float(np.exp(-2.0 * np.sin(np.pi * spacing / period) ** 2 / ell**2))


def is_rough(term: Kernel, period: float, spacing: float | None = None) -> bool:
    """Whether ``term`` is rough beside a cycle of ``period``: its smooth factors' lengthscale
    is below the period, or (given the data's ``spacing``) one of its periodic factors
    correlates neighbouring data points by less than ``NOISE_CORRELATION``: it is
    noise-like at the data."""
    length = term_lengthscale(term)
    if length is not None and length < period:
        return True
    return spacing is not None and any(
        neighbour_correlation(b, spacing) < NOISE_CORRELATION
        for b in term.bases()
        if _role(b) == "periodic" and "lengthscale" in getattr(b, "names", ())
    )


def all_rough(component: Kernel, spacing: float | None = None) -> bool:
    """Whether a component with a periodic factor is made only of rough terms
    (``is_rough``): it has no smooth periodic part, no shape that repeats."""
    terms = _terms(component)
    period = _shortest_period(terms)
    return period is not None and all(is_rough(t, period, spacing) for t in terms)


def split_rough(component: Kernel, spacing: float | None = None) -> tuple[Kernel, Kernel] | None:
    """(shape, rough): the component's terms that are not and are rough (``is_rough``, each
    summed); None when it has no periodic factor, no rough term, or no term that is not
    rough."""
    terms = _terms(component)
    period = _shortest_period(terms)
    if period is None:
        return None
    shape = [t for t in terms if not is_rough(t, period, spacing)]
    rough_terms = [t for t in terms if is_rough(t, period, spacing)]
    if not shape or not rough_terms:
        return None
    return total(shape), total(rough_terms)


@dataclass(frozen=True)
class RoughSplit:
    """A cycle's smooth shape on the component's grid (mean and sd, internal units of y) and
    the standard deviation of its rough part's posterior mean at the data."""

    shape_mean: np.ndarray
    shape_sd: np.ndarray
    rough_sd: float
    #: the shape over its last few periods on a fine grid (``window.cycle_window``, user units)
    window: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None


def rough_split(model: Model, component: Kernel, grid: np.ndarray | None) -> RoughSplit | None:
    """The split of ``component`` (internal units) on ``grid`` (rows of inputs, internal
    units; None when it is not drawn along an input); None when ``split_rough`` makes none, or
    when the rough part's fitted values at the data vary more than the shape's (held-out
    sunspots: a cycle whose shape drifts over 8.3 years, 0.77 of its period, carries the
    cycle; its other term, a line times a cycle, is zero in 1815: the whole is the cycle)."""
    x = np.unique(model.scaling.x_in(model.X)[:, 0])
    spacing = float(np.median(np.diff(x))) if x.size > 1 else None
    parts = split_rough(component, spacing)
    if parts is None or grid is None:
        return None
    shape, rough = parts
    post = model.posterior
    rough_sd = float(np.std(post.mean(rough)))
    if rough_sd > float(np.std(post.mean(shape))):
        return None  # the rough terms hold most of the cycle: it is drawn and measured whole
    mean, var = post.component(shape, grid)
    window = cycle_window(model, shape)
    return RoughSplit(mean, np.sqrt(var), rough_sd, window)
