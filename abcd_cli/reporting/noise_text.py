"""How big a component's noise is and how its standard deviation moves across the data, read
from its prior standard deviation σ(x) = √k(x, x) (``trends.noise_profile``): one size when
flat, a rise or a fall, or, when σ turns, its course through each turn (``course.py``)."""

from __future__ import annotations

import numpy as np

from abcd_cli.decompose.facts import Axis, ComponentFacts
from abcd_cli.reporting.course import course_legs
from abcd_cli.reporting.trends import (
    DIP_TOLERANCE,
    classify_trend,
    coarse_precision,
    data_range,
    noise_profile,
)
from abcd_cli.reporting.wording import format_amount, join_words


def noise_sentence(
    facts: ComponentFacts, axis: Axis, x_data: np.ndarray | None, adverb: str | None
) -> str:
    """How big the noise is, and how its standard deviation changes across the data."""
    span = data_range(x_data) or (float(facts.x_grid[0]), float(facts.x_grid[-1]))
    sd = noise_profile(facts.kernel, span)
    lead = "Its values are independent from point to point"
    trend = classify_trend(sd, DIP_TOLERANCE)
    if trend == "flat":
        return f"{lead}, with a standard deviation of about {format_amount(sd[0], axis)}."
    first, last = format_amount(sd[0], axis), format_amount(sd[-1], axis)
    how = f" {adverb}" if adverb else ""
    if trend == "increasing":
        if sd.min() < sd[0]:
            first = format_amount(sd.min(), axis)
        return f"{lead}; its standard deviation grows{how}, from about {first} to about {last}."
    if trend == "decreasing":
        if sd.min() < sd[-1]:
            last = format_amount(sd.min(), axis)
        return f"{lead}; its standard deviation shrinks{how}, from about {first} to about {last}."
    low, high = format_amount(sd.min(), axis), format_amount(sd.max(), axis)
    xs = np.linspace(span[0], span[1], sd.size)
    legs = course_legs(xs, sd, axis, coarse_precision(x_data))
    if legs is None:
        return f"{lead}; its standard deviation ranges between about {low} and {high}."
    return f"{lead}; its standard deviation {join_words(legs)}."
