"""A claim read from a component's fitted curve, checked against the data themselves: the
component's partial residuals r_i (the data less the other components, at the data) where it
applies. A trend whose fitted curve bends (``curves.slope_bend`` of its thirds' slopes) is
said to bend as its curve does, but when r_i over the same thirds do not bend the same way,
the report says that the bend is the model's form rather than something the data show
(call centre: a curve rising at 19 then 32 a year over data rising at 17 then 6)."""

from __future__ import annotations

import numpy as np

from abcd_cli.decompose.facts import Axis, ComponentFacts
from abcd_cli.reporting.curves import applied_part, slope_bend, third_slopes, trend_shape
from abcd_cli.reporting.wording import format_amount, rate_unit

#: The fewest observations a third of the stretch needs for its slope to be read.
MIN_THIRD_POINTS = 5


def unshown_bend(facts: ComponentFacts, x_data: np.ndarray | None) -> tuple[float, float] | None:
    """The slopes of the partial residuals over the first and last third of where the
    component applies, when its fitted curve bends there and they do not bend the same way;
    None when the curve keeps one slope, the data bear the bend out, or too few data fall in
    a third."""
    if x_data is None or facts.partial.size != np.asarray(x_data).size:
        return None
    x_fit, mean = applied_part(facts, x_data)
    shape = trend_shape(x_fit, mean)
    if shape is None or shape.bend is None:
        return None
    x = np.asarray(x_data, dtype=float)
    inside = (x >= x_fit[0]) & (x <= x_fit[-1])
    order = np.argsort(x[inside])
    xs, rs = x[inside][order], facts.partial[inside][order]
    edges = np.linspace(float(xs[0]), float(xs[-1]), 4) if xs.size else None
    if edges is None or min((xs <= edges[1]).sum(), (xs >= edges[2]).sum()) < MIN_THIRD_POINTS:
        return None
    slopes = third_slopes(xs, rs)
    if slopes is None or slope_bend(slopes) == shape.bend:
        return None
    return slopes


def unshown_bend_sentences(
    facts: ComponentFacts, axis: Axis, x_data: np.ndarray | None
) -> list[str]:
    """'The data where it applies do not bear that bend out: ...' with their thirds' slopes
    (``unshown_bend``); [] when they do."""
    slopes = unshown_bend(facts, x_data)
    if slopes is None:
        return []
    x_fit, _ = applied_part(facts, x_data)
    unit, size = rate_unit(float(x_fit[-1] - x_fit[0]), axis)
    early, late = (format_amount(b * size, axis) for b in slopes)
    return [
        "The data where it applies do not bear that bend out: less the other components, they"
        f" change by about {early} per {unit} over the first third and {late} per {unit} over"
        " the last, so the bend comes from the form the model gives it rather than from the"
        " data."
    ]
