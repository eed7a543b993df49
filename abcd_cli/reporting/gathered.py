"""The words for a component gathered from several terms of one kind (``decompose/merging.py``):
one cycle whose amplitude changes, one smooth function, one polynomial trend.

Such a component's kernel is a sum of products of one head (periodic, smooth or linear). It is
worded by its leading term, the one of largest prior variance over the data, for what the terms
share (the period, the kind of smooth function, the trend's degree), and by the sum for what
they do together: a cycle's amplitude (from its fitted curve, or the prior standard deviation
√k(x, x) of the sum across the data when the curve cannot be measured), and where it applies,
the union of the terms' intervals. A smooth function's or a polynomial's prior sd is no size
its figure shows, so is never said (``gathered_sides`` says where its character changes).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from abcd_cli.data.time_units import UNIT_YEARS, UNITS
from abcd_cli.decompose.facts import Axis, ComponentFacts
from abcd_cli.decompose.features import PERIOD_TOLERANCE
from abcd_cli.kernels import Kernel, Sum
from abcd_cli.reporting.factors import (
    SWITCH_SHARE,
    Factors,
    Interval,
    common_period,
    factors_of,
    gate_amplitude,
    product_lengthscale,
    stated_intervals,
)
from abcd_cli.reporting.numbers import format_number, format_percent
from abcd_cli.reporting.trends import (
    DIP_TOLERANCE,
    classify_trend,
    coarse_precision,
    data_range,
    data_spacing,
)
from abcd_cli.reporting.wording import (
    format_amount,
    format_position,
    format_span,
    join_words,
    number_word,
)

#: Heads of terms that can be gathered.
GATHERED_HEADS = ("periodic", "smooth", "linear")
#: A cycle's rough part whose fitted values at the data have an sd under this share of the
#: component's own goes unsaid (``negligible_rough``): on a figure spanning the component's
#: range it is about a line's width.
NEGLIGIBLE_ROUGH = 0.05


@dataclass(frozen=True)
class Gathered:
    """A gathered component: its terms' factors, the leading term's, the amplitude's trend over
    the data ("increasing", "decreasing", "flat" or "not monotonic") and where it applies in
    the data (the union of the terms' intervals; one unbounded interval when always)."""

    terms: list[Factors]
    lead: Factors  # the term of largest variance over the data
    ending: Factors  # the term of largest variance at the data's end, which a forecast carries on
    amplitude: np.ndarray  # √k(x, x) of the sum on ``xs``
    xs: np.ndarray  # 201 points across the data
    trend: str
    on: list[Interval]
    shares: tuple[float, ...] = ()  # each term's share of the sum's prior variance over the data

    @property
    def head(self) -> str:
        return self.lead.head

    @property
    def telling(self) -> list[Factors]:
        """The terms holding at least ``TELLING_SHARE`` of the sum's prior variance: those whose
        factors (a modulating cycle) may be said to shape it (airline: a term of 0.02% does
        not make its yearly cycle 'modulated by a periodic function with a period of 4.4
        years')."""
        if len(self.shares) != len(self.terms):
            return self.terms
        return [
            t for t, share in zip(self.terms, self.shares, strict=True) if share >= TELLING_SHARE
        ]

    @property
    def degree(self) -> int:
        """A polynomial trend's degree: the most linear factors of a term."""
        return max(len(t.lin) for t in self.terms)

    @property
    def always_on(self) -> bool:
        return len(self.on) == 1 and math.isinf(self.on[0].low) and math.isinf(self.on[0].high)


def _union(intervals: list[Interval]) -> list[Interval]:
    """Overlapping or touching intervals joined, sorted."""
    out: list[Interval] = []
    for i in sorted(intervals, key=lambda i: i.low):
        if out and i.low <= out[-1].high:
            last = out[-1]
            if i.high > last.high:
                out[-1] = Interval(last.low, i.high, last.low_steep, i.high_steep)
        else:
            out.append(i)
    return out


def gathered(kernel: Kernel, x_data: np.ndarray | None) -> Gathered | None:
    """The gathered component ``kernel`` (a sum of products of one head among
    ``GATHERED_HEADS``) across the data ``x_data``; None for any other kernel or without
    data."""
    span = data_range(x_data)
    if not isinstance(kernel, Sum) or span is None:
        return None
    terms = [factors_of(t, x_data) for t in kernel.operands]
    if any(t is None for t in terms):
        return None
    parts: list[Factors] = terms  # type: ignore[assignment]
    heads = {t.head for t in parts}
    if len(heads) != 1 or heads & set(GATHERED_HEADS) != heads:
        return None
    xs = np.linspace(span[0], span[1], 201)
    variances = [np.maximum(t.diag(xs), 0.0) for t in kernel.operands]
    means = np.array([v.mean() for v in variances])
    lead = parts[int(np.argmax(means))]
    ending = parts[int(np.argmax([v[-1] for v in variances]))]
    amplitude = np.sqrt(np.sum(variances, axis=0))
    shares = tuple(float(v) for v in means / means.sum()) if means.sum() > 0 else ()
    on: list[Interval] = []
    for t in parts:
        on += stated_intervals(t.gates, x_data) if t.gates else [Interval(-math.inf, math.inf)]
    trend = classify_trend(amplitude, DIP_TOLERANCE)
    return Gathered(parts, lead, ending, amplitude, xs, trend, _union(on), shares)


def leading_factors(kernel: Kernel, x_data: np.ndarray | None) -> Factors | None:
    """The factors that word a component: its own product's, or its gathered terms' leading
    one; None for a sum that is not gathered."""
    parts = factors_of(kernel, x_data)
    if parts is None:
        together = gathered(kernel, x_data)
        parts = together.lead if together is not None else None
    return parts


def leading_cycle(kernel: Kernel, x_data: np.ndarray | None) -> Factors | None:
    """The ``leading_factors`` of a component that is a cycle; None for any other component."""
    parts = leading_factors(kernel, x_data)
    return parts if parts is not None and parts.head == "periodic" else None


def terms_on(terms: Sequence[Factors], x: float) -> list[Factors]:
    """The terms on at ``x``: no change factors, or their Π g(x) at least ``SWITCH_SHARE``."""
    point = np.array([x])
    return [t for t in terms if not t.gates or gate_amplitude(t.gates, point)[0] >= SWITCH_SHARE]


def amplitude_modifier(g: Gathered, curve: str | None = None) -> str:
    """A cycle's 'with increasing amplitude', 'whose amplitude changes across the data' or ''
    (steady): as its fitted curve's amplitude moves (``curve``) when it is given, else as the
    terms' prior amplitude does. '' for a smooth function or a polynomial trend: the prior sd
    of their sum is no size its figure shows (wheat: 'amplitude between 2.07 and 43.7' of a
    curve reaching 77.1); their curve's range is said instead (``paragraphs``)."""
    if g.head != "periodic":
        return ""
    trend = curve if curve is not None else g.trend
    if trend == "flat":
        return ""
    if trend in ("increasing", "decreasing"):
        return f"with {trend} amplitude"
    return "whose amplitude changes across the data"


#: A gathered term holding less of the sum's prior variance than this share shapes nothing a
#: reader can see: its factors are not said as modulating the component.
TELLING_SHARE = 0.01

#: A length is counted, for telling close periods apart, in the largest unit it fills ten
#: times (24.4 hours, not 1.02 days; 12.4 months, not 1.03 years).
TELLING_COUNT = 10.0


def periods_text(periods: list[float], axis: Axis) -> str | None:
    """Gathered periods that differ at three significant digits, in one unit ('24.0 and 24.4
    hours'); None when they read alike (then one period is said)."""
    if len(periods) < 2:
        return None
    if axis.unit is None:
        counts, name = list(periods), f"units of {axis.x_name}"
    else:
        years = [p * UNIT_YEARS[axis.unit] for p in periods]
        unit, size = next(((u, s) for u, s in UNITS if min(years) / s >= TELLING_COUNT), UNITS[-1])
        counts, name = [y / size for y in years], f"{unit}s"
    words = list(dict.fromkeys(format_number(c, 3) for c in counts))
    return f"{join_words(words)} {name}" if len(words) > 1 else None


def drift_sentence(periods: list[float], x_data: np.ndarray | None, axis: Axis) -> str:
    """Why close periods gathered as one are one cycle, or how they beat: over the data's span
    their phases drift apart by span·|1/p₁ − 1/p₂| cycles; less than one and their sum is one
    cycle whose shape and size change slowly, more and it swells and fades every
    1/|1/p₁ − 1/p₂| (the beat). Periods that all divide the longest (``factors.common_period``:
    a cycle of 3 months gathered with one of 12, as its harmonic) repeat together with it."""
    longest = max(periods)
    if (
        min(periods) < longest / (1.0 + 2.0 * PERIOD_TOLERANCE)
        and common_period(periods) == longest
    ):
        return (
            "Each shorter period fits a whole number of times into the longest, so together"
            f" they repeat every {format_span(longest, axis)}, one cycle with a more detailed"
            " shape, not separate cycles."
        )
    span = data_range(x_data)
    gap = abs(1.0 / periods[0] - 1.0 / periods[-1])
    reason = f"Their periods lie within about {format_percent(PERIOD_TOLERANCE, 0)} of each other"
    if span is None or gap <= 0:
        return reason + ", so they are read as one cycle."
    drift = (span[1] - span[0]) * gap
    if drift < 1.0:
        return (
            f"{reason}: over the data they drift apart by only {format_number(drift, 2)} of a"
            " cycle, so together they make one cycle whose shape and size change slowly, not"
            " two separate cycles."
        )
    return (
        f"{reason}, but over the data they drift apart by {format_number(drift, 2)} cycles:"
        f" together they swell and fade every {format_span(1.0 / gap, axis)}, as they fall in"
        " and out of step."
    )


def gathered_sentence(
    g: Gathered, axis: Axis, x_data: np.ndarray | None, amplitude: bool = True
) -> str:
    """What the terms are, and (``amplitude``) what a cycle's prior amplitude does across the
    data (in y's units), when its fitted curve cannot say it (``paragraphs``). A smooth
    function's or a polynomial's prior sd is never said: it is no size its figure shows."""
    n = number_word(len(g.terms))
    periods = (
        sorted({t.periodic[0].param("period") for t in g.terms}) if g.head == "periodic" else []
    )
    told = periods_text(periods, axis)
    what = {
        "periodic": f"{n} terms of the model with this period"
        if told is None
        else f"{n} terms of the model with periods of {told}",
        "smooth": (
            f"{n} smooth terms of the model varying over lengths within a factor of two of"
            " each other"
        ),
        "linear": f"{n} polynomial terms of the model",
    }[g.head]
    text = f"It gathers {what}, described here as one."
    if told is not None:
        text += " " + drift_sentence(periods, x_data, axis)
    if g.head != "periodic" or not amplitude:
        return text
    first, last = format_amount(g.amplitude[0], axis), format_amount(g.amplitude[-1], axis)
    low, high = format_amount(g.amplitude.min(), axis), format_amount(g.amplitude.max(), axis)
    if g.trend == "increasing":
        return f"{text} Its amplitude grows across the data, from about {first} to about {last}."
    if g.trend == "decreasing":
        return f"{text} Its amplitude shrinks across the data, from about {first} to {last}."
    if g.trend == "flat":
        return f"{text} Its amplitude stays about {high} across the data."
    peak = format_position(float(g.xs[int(np.argmax(g.amplitude))]), axis, coarse_precision(x_data))
    return (
        f"{text} Its amplitude changes across the data, between about {low} and {high},"
        f" largest around {peak}."
    )


def smooth_continuation(span: str) -> str:
    """What a smooth component does past the data, in a reader's words: its posterior mean
    follows its recent course near the data and relaxes to zero over a few lengthscales
    (``span``; a squared-exponential correlation is exp(−d²/2ℓ²): 0.61 at d = ℓ, 0.011 at
    3ℓ), so the forecast far from the data returns to the long-run trend."""
    return (
        "Beyond the data it is not assumed to carry on for ever: close to the data it"
        f" continues its recent course, then over a few times {span} (the length it varies"
        " over) it eases back to nothing, so far from the data the forecast returns to the"
        " long-run trend (the series' mean and the components that carry on), with this"
        " component's uncertainty growing back to its full size."
    )


def gathered_continuation(
    g: Gathered, facts: ComponentFacts, axis: Axis, modulators: Sequence[str] = ()
) -> str:
    """What the gathered component is assumed to do beyond the data while it is on: a cycle
    repeats with the period of the term that holds the most variance at the data's end (call
    centre: a 62.1-month cycle until 1974 and a 59.9-month one throughout, carried on at 59.9,
    saying why when the heading's period, the lead term's, reads otherwise),
    its amplitude still growing or shrinking with its Lins and following the cycles that
    ``modulators`` name (radio: the yearly cycle's size follows the 10-year cycle)."""
    if g.head == "periodic":
        period = format_span(g.ending.periodic[0].param("period"), axis)
        text = f"Beyond the data it is assumed to keep repeating every {period}"
        heading = format_span(g.lead.periodic[0].param("period"), axis)
        if heading != period:  # its heading names the lead's period: say why they differ
            text += (
                f", the period of its term that holds most of it at the end of the data (the"
                f" {heading} of its heading is that of the term holding most of it over the"
                " whole data)"
            )
        if all(t.smooth for t in g.terms):  # every term drifts: the repetition fades
            longest = max(product_lengthscale(t.smooth) for t in g.terms)
            text += (
                f", its exact shape becoming less certain beyond about"
                f" {format_span(longest, axis)} from the data"
            )
        still = []
        if any(t.lin for t in g.terms) and g.trend in ("increasing", "decreasing"):
            still.append("growing" if g.trend == "increasing" else "shrinking")
        if modulators:
            still.append(f"following {join_words(list(modulators))}")
        if still:
            text += f", its amplitude still {' and '.join(still)}"
        return text + "."
    if g.head == "smooth":
        longest = max(product_lengthscale(t.smooth) for t in g.terms)
        return smooth_continuation(format_span(longest, axis))
    return "Beyond the data the trend is assumed to continue along the same curve."


def is_rough_term(term: Factors, g: Gathered) -> bool:
    """Whether a gathered cycle's term carries a smooth factor shorter than the period (the
    criterion of ``decompose/rough.py``)."""
    period = g.lead.periodic[0].param("period")
    return bool(term.smooth) and product_lengthscale(term.smooth) < period


def negligible_rough(facts: ComponentFacts) -> bool:
    """Whether a cycle's rough part moves its fitted values by under ``NEGLIGIBLE_ROUGH`` of
    their own sd (sd of the rough part's mean at the data < share × sd of m(x_i)): less than a
    reader can see in its figure, so not worth a sentence (Mauna Loa's yearly cycle: 0.00127
    about an amplitude of 3.03)."""
    spread = float(np.std(facts.data_mean))
    return facts.rough_sd is not None and facts.rough_sd < NEGLIGIBLE_ROUGH * spread


def rough_lengths(g: Gathered) -> list[float]:
    """The lengths its rough terms (``is_rough_term``, the lead aside) vary over."""
    return [
        product_lengthscale(t.smooth) for t in g.terms if t is not g.lead and is_rough_term(t, g)
    ]


def scatter_share(facts: ComponentFacts, x_data: np.ndarray | None) -> float | None:
    """var(rough) / var(m) at the data, the share of a gathered cycle's variance there that is
    scatter from one observation to the next: its rough terms (``rough_terms_sentences``)
    change over less than the data's spacing; None when it has no such term."""
    g = gathered(facts.kernel, x_data)
    spacing = data_spacing(x_data)
    total = float(np.var(facts.data_mean))
    if g is None or facts.rough_sd is None or spacing is None or total <= 0:
        return None
    lengths = rough_lengths(g)
    if not lengths or min(lengths) >= spacing or negligible_rough(facts):
        return None
    return min(facts.rough_sd**2 / total, 1.0)


def rough_terms_sentences(
    g: Gathered, facts: ComponentFacts, axis: Axis, x_data: np.ndarray | None = None
) -> list[str]:
    """A gathered cycle whose other terms carry a smooth factor shorter than the period: short-
    term irregular variation about its smooth shape, of the size its fitted values at the data
    show (``ComponentFacts.rough_sd``), which its words on amplitude and its figure leave out
    (temperature's yearly cycle times a factor of 1.3 days: its wiggles were read as a
    changing amplitude); nothing when that size is negligible (``negligible_rough``). Without
    that split, that its curve is rougher than its shape."""
    lengths = rough_lengths(g)
    if not lengths or negligible_rough(facts):
        return []
    span = format_span(min(lengths), axis)
    if facts.rough_sd is None:
        return [
            f"Its fitted curve is rougher than that shape: another of its terms changes over"
            f" only about {span}, less than a period, so the curve follows short-lived changes"
            " within each cycle."
        ]
    out = [
        f"Around that shape it carries short-term irregular variation: another of its terms"
        f" changes over only about {span}, less than a period, and moves its fitted values at"
        f" the data off the shape by about {format_amount(facts.rough_sd, axis)} (standard"
        " deviation). Its amplitude above is that of the smooth shape, which its figure draws"
        " without this variation."
    ]
    spacing = data_spacing(x_data)
    share = scatter_share(facts, x_data)
    if spacing is not None and share is not None:
        out.append(
            f"Its term of about {span} is shorter than the spacing of the data"
            f" ({format_span(spacing, axis)}), so at the data this variation is scatter from one"
            " observation to the next, much as noise is: it makes up about"
            f" {format_percent(share, 0)} of the component's variance at the data. The share of"
            " the variance the component explains, below, counts that scatter, which cannot be"
            " forecast."
        )
    return out
