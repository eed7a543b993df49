"""How big a component's noise is and how its standard deviation moves across the data, read
from its prior standard deviation σ(x) = √k(x, x) (``trends.noise_profile``): one size when
flat, a rise or a fall, or, when σ turns, its course through each turn (``course.py``)."""

from __future__ import annotations

import numpy as np

from abcd_cli.decompose.facts import Axis, ComponentFacts
from abcd_cli.reporting.course import course_legs
from abcd_cli.reporting.factors import factors_of, noise_terms
from abcd_cli.reporting.trends import (
    DIP_TOLERANCE,
    classify_trend,
    coarse_precision,
    data_range,
    noise_profile,
)
from abcd_cli.reporting.wording import format_amount, format_position, join_words


def _profile(facts: ComponentFacts, span: tuple[float, float]) -> tuple[np.ndarray, np.ndarray]:
    """σ(x) across ``span`` (``trends.noise_profile``) with the x it is read at."""
    sd = noise_profile(facts.kernel, span)
    return np.linspace(span[0], span[1], sd.size), sd


def noise_sentence(
    facts: ComponentFacts, axis: Axis, x_data: np.ndarray | None, adverb: str | None
) -> str:
    """How big the noise is, and how its standard deviation changes across the data."""
    span = data_range(x_data) or (float(facts.x_grid[0]), float(facts.x_grid[-1]))
    xs, sd = _profile(facts, span)
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
    legs = course_legs(xs, sd, axis, coarse_precision(x_data))
    if legs is None:
        return f"{lead}; its standard deviation ranges between about {low} and {high}."
    return f"{lead}; its standard deviation {join_words(legs)}."


#: A noise whose standard deviation falls below this share of its largest within the data,
#: where a straight-line factor of it crosses zero, is said to pinch there (``pinch_sentences``).
PINCH_SHARE = 0.1
#: The residuals read beside a pinch: those within this share of the data's span of it.
PINCH_WINDOW = 0.05


def pinch_sentences(facts: ComponentFacts, axis: Axis, x_data: np.ndarray | None) -> list[str]:
    """Where the noise's σ(x) nearly vanishes because a linear factor scaling it crosses zero
    there (σ ∝ |x − c|; lynx: 0.475 trappings around 1876 on counts of up to 6,991), that this
    comes from the straight-line form, with the spread of its residuals (its partial residuals,
    the data less the other components) within ``PINCH_WINDOW`` of the span; [] otherwise."""
    span = data_range(x_data)
    if span is None or x_data is None:
        return []
    xs, sd = _profile(facts, span)
    k = int(np.argmin(sd))
    if sd[k] >= PINCH_SHARE * float(sd.max()):
        return []
    width = span[1] - span[0]
    terms = noise_terms(facts.kernel) or [factors_of(facts.kernel)]
    lines = [b.param("location") for t in terms if t is not None for b in t.lin]
    if not any(abs(c - xs[k]) <= 0.02 * width for c in lines):
        return []
    where = format_position(float(xs[k]), axis, coarse_precision(x_data))
    text = (
        f"Its smallest standard deviation, about {format_amount(sd[k], axis)} around {where}, is"
        " where the straight line that scales it crosses zero: a consequence of that form"
        " rather than a size the data measure."
    )
    x = np.asarray(x_data, dtype=float)
    near = np.abs(x - xs[k]) <= PINCH_WINDOW * width
    if facts.partial.size == x.size and near.sum() >= 5:
        spread = format_amount(float(np.std(facts.partial[near])), axis)
        text += f" The residuals there spread by about {spread}."
    return [text]


#: A noise whose standard deviation stays below this share of the data's is negligible.
NEGLIGIBLE_SHARE = 0.01


def negligible_sentences(
    facts: ComponentFacts, axis: Axis, x_data: np.ndarray | None, y_data: np.ndarray | None
) -> list[str]:
    """That the noise is negligible beside the data's own spread when its σ(x) stays below
    ``NEGLIGIBLE_SHARE`` of sd(y) (wheat: at most 0.0131 on prices of sd 67.1, the scatter
    from year to year taken up by a 10.9-month term); [] otherwise."""
    span = data_range(x_data)
    if span is None or y_data is None or len(y_data) < 2:
        return []
    spread = float(np.std(np.asarray(y_data, dtype=float)))
    if spread <= 0 or float(_profile(facts, span)[1].max()) >= NEGLIGIBLE_SHARE * spread:
        return []
    return [
        "It is negligible beside the data's own spread (a standard deviation of"
        f" {format_amount(spread, axis)}): whatever scatter the data have from one observation"
        " to the next, other components take up."
    ]
