"""A series' curves on the data's own lattice when its model is noise-like between the data.

A periodic factor whose features are narrower than the spacing Δ of regularly spaced data
(its correlation one spacing apart below ``rough.NOISE_CORRELATION``) fits each phase of the
lattice x₀ + kΔ on its own: held-out monthly wine sales under a cycle of 3 months times one of
4 give each month of the year its level. Between the lattice's points its posterior mean falls
back to zero, so an even grid that misses them draws a flat line with spikes where it happens
to pass near one. Such a series is drawn on the lattice itself, extended past the data.
"""

from __future__ import annotations

import math

import numpy as np

from abcd_cli.decompose.rough import NOISE_CORRELATION, neighbour_correlation
from abcd_cli.model import Model

#: Steps within this share of their median count as one regular spacing.
REGULAR_SHARE = 0.01
#: A lattice longer than this is not drawn on (the even grid serves).
MAX_POINTS = 10_000


def regular_spacing(x: np.ndarray) -> float | None:
    """The spacing Δ of ``x`` when every step between its sorted distinct values is within
    ``REGULAR_SHARE`` of their median; None otherwise (or for fewer than three values)."""
    steps = np.diff(np.unique(np.asarray(x, dtype=float)))
    if steps.size < 2:
        return None
    spacing = float(np.median(steps))
    if spacing <= 0 or float(np.max(np.abs(steps - spacing))) > REGULAR_SHARE * spacing:
        return None
    return spacing


def noise_like_between(model: Model, d: int) -> bool:
    """Whether some periodic factor reading input ``d`` correlates points one spacing apart by
    less than ``NOISE_CORRELATION`` (``rough.neighbour_correlation``, internal units), the data
    being regularly spaced along ``d``."""
    spacing = regular_spacing(model.scaling.x_in(model.X)[:, d])
    if spacing is None:
        return False
    return any(
        neighbour_correlation(b, spacing) < NOISE_CORRELATION
        for b in model.kernel.bases()
        if getattr(b, "role", "") == "periodic"
        and "lengthscale" in getattr(b, "names", ())
        and getattr(b, "dim", None) == d
    )


def lattice_grid(model: Model, d: int, past: float) -> np.ndarray | None:
    """x₀ + kΔ from the first x along input ``d`` (user units) to ``past`` times the data's range
    beyond the last, when the model is ``noise_like_between`` the data and the lattice holds at
    most ``MAX_POINTS``; None otherwise."""
    if not noise_like_between(model, d):
        return None
    column = model.X[:, d]
    spacing = regular_spacing(column)
    if spacing is None:
        return None
    lo, hi = float(column.min()), float(column.max())
    count = math.floor((hi + past * (hi - lo) - lo) / spacing * (1.0 + 1e-9)) + 1
    return lo + spacing * np.arange(count) if count <= MAX_POINTS else None
