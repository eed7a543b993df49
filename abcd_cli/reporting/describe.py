"""Plain-English descriptions of additive components (thesis ch. 4, "Automatic description").

Each component is one product of base kernels and change factors. Its noun phrase has a head
noun chosen by the ordering Per > WN, SE, C > Lin > change factors; the other factors become
modifiers (SE: "approximately", Lin: "with linearly increasing amplitude", a change factor:
"which applies until 1643"). Paragraphs add the numbers in the data's units and the statistics
of :class:`~abcd_cli.decompose.facts.ComponentFacts`. R² values there are fractions (0 to 1).

Several functions take an optional ``x_data`` (the data's x values): it gives the data range
(to tell whether a linearly scaled amplitude grows or shrinks across the data, and where a
trend's monotonicity is judged) and the data spacing (how precisely to print dates). Without
it the whole of ``facts.x_grid`` stands in for the data range.

Numbers, lengths and dates are worded by :mod:`abcd_cli.reporting.wording`. Nothing here writes
HTML or draws; every function returns plain text.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from abcd_cli.decompose.facts import Axis, ComponentFacts, ModelCheck
from abcd_cli.kernels import (
    RQ,
    SE,
    WN,
    After,
    BaseKernel,
    Before,
    C,
    Cos,
    Gate,
    Inside,
    Kernel,
    Lin,
    Outside,
    Per,
    Product,
    Sum,
)
from abcd_cli.reporting.wording import (
    capitalise,
    format_amount,
    format_position,
    format_span,
    join_words,
    number_word,
    ordinal,
    percent,
)
from abcd_cli.reporting.numbers import format_number, format_percent, format_pvalue

#: A periodic factor with a lengthscale above this (unitless) is nearly a sinusoid.
SINUSOID_LENGTHSCALE = 2.0
#: Below this, the shape within a period is sharp and spiky.
SPIKY_LENGTHSCALE = 0.5
#: The phrase that marks a component which does not improve the cross-validated error.
CV_WARNING = "without improving the cross-validated error"


# ==========================================================================================
# The factors of a product and their roles
# ==========================================================================================


@dataclass
class _Factors:
    """The base kernels of one product, sorted by the role they play in the phrase."""

    periodic: list[BaseKernel] = field(default_factory=list)  # Per, Cos
    smooth: list[BaseKernel] = field(default_factory=list)  # SE, RQ
    noise: list[WN] = field(default_factory=list)
    const: list[C] = field(default_factory=list)
    lin: list[Lin] = field(default_factory=list)
    gates: list[Gate] = field(default_factory=list)

    @property
    def head(self) -> str:
        """The head noun's kind: "noise", "periodic", "smooth", "linear" or "constant".

        White noise times any stationary kernel is still white noise (thesis ch. 4), so WN
        takes the head before Per; otherwise Per > SE > Lin > change factors, C only rescales.
        """
        if self.noise:
            return "noise"
        if self.periodic:
            return "periodic"
        if self.smooth:
            return "smooth"
        if self.lin:
            return "linear"
        return "constant"


def _factors(kernel: Kernel) -> _Factors | None:
    """Split a product of base kernels; None when ``kernel`` is not in that form."""
    if any(not isinstance(k, (BaseKernel, Product)) for k in kernel.nodes()):
        return None
    parts = _Factors()
    for base in kernel.bases():
        if isinstance(base, (Per, Cos)):
            parts.periodic.append(base)
        elif isinstance(base, (SE, RQ)):
            parts.smooth.append(base)
        elif isinstance(base, WN):
            parts.noise.append(base)
        elif isinstance(base, C):
            parts.const.append(base)
        elif isinstance(base, Lin):
            parts.lin.append(base)
        elif isinstance(base, Gate):
            parts.gates.append(base)
        else:
            return None
    return parts


def _lengthscale(smooth: list[BaseKernel]) -> float:
    """The lengthscale of a product of SE/RQ factors: 1/ℓ² adds up."""
    return float(sum(k.param("lengthscale") ** -2 for k in smooth) ** -0.5)


def _periodic_length(per: Per) -> float:
    """The Per kernel's unitless lengthscale in x units: for short lags it behaves like an SE
    with lengthscale ℓ·period/(2π)."""
    return per.param("lengthscale") * per.param("period") / (2.0 * math.pi)


# ------------------------------------------------------------------------------------------
# Change factors as intervals where the component is switched on
# ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Interval:
    """An interval of x where a component is on; each end keeps its switch's steepness."""

    low: float
    high: float
    low_steep: float = 0.0
    high_steep: float = 0.0


def _gate_intervals(gate: Gate) -> list[_Interval]:
    inf = math.inf
    if isinstance(gate, (Before, After)):
        loc, s = gate.param("location"), gate.param("steepness")
        return (
            [_Interval(-inf, loc, 0.0, s)] if isinstance(gate, Before) else [_Interval(loc, inf, s)]
        )
    loc, width, s = gate.param("location"), gate.param("width"), gate.param("steepness")
    start, end = loc - 0.5 * width, loc + 0.5 * width
    if isinstance(gate, Inside):
        return [_Interval(start, end, s, s)]
    if isinstance(gate, Outside):
        return [_Interval(-inf, start, 0.0, s), _Interval(end, inf, s, 0.0)]
    raise ValueError(f"unknown change factor {gate.symbol}")


def _intersect(a: list[_Interval], b: list[_Interval]) -> list[_Interval]:
    out = []
    for p in a:
        for q in b:
            low, low_s = (p.low, p.low_steep) if p.low >= q.low else (q.low, q.low_steep)
            high, high_s = (p.high, p.high_steep) if p.high <= q.high else (q.high, q.high_steep)
            if low < high:
                out.append(_Interval(low, high, low_s, high_s))
    return sorted(out, key=lambda i: i.low)


def _on_intervals(gates: Sequence[Gate]) -> list[_Interval]:
    """Where the product of the change factors is switched on, as sorted intervals."""
    on = [_Interval(-math.inf, math.inf)]
    for gate in gates:
        on = _intersect(on, _gate_intervals(gate))
    return on


def _precision(steepness: float, spacing: float | None) -> float:
    """How precisely to print a switch: its width (2 steepness), never finer than the data."""
    width = 2.0 * steepness
    return max(width, spacing) if spacing else width


def _applies_clause(gates: Sequence[Gate], axis: Axis, spacing: float | None) -> str:
    """'until 1643', 'from 1716 onwards', 'between 1645 and 1715', 'before 1645 and after 1715'."""
    on = _on_intervals(gates)
    if not on:
        return "is switched off everywhere"

    def at(x: float, s: float) -> str:
        return format_position(x, axis, _precision(s, spacing))

    if len(on) == 1:
        i = on[0]
        if math.isinf(i.low) and math.isinf(i.high):
            return ""
        if math.isinf(i.low):
            return f"applies until {at(i.high, i.high_steep)}"
        if math.isinf(i.high):
            return f"applies from {at(i.low, i.low_steep)} onwards"
        return f"applies between {at(i.low, i.low_steep)} and {at(i.high, i.high_steep)}"
    pieces = []
    for i in on:
        if math.isinf(i.low):
            pieces.append(f"before {at(i.high, i.high_steep)}")
        elif math.isinf(i.high):
            pieces.append(f"after {at(i.low, i.low_steep)}")
        else:
            pieces.append(f"between {at(i.low, i.low_steep)} and {at(i.high, i.high_steep)}")
    return "applies " + join_words(pieces)


# ------------------------------------------------------------------------------------------
# Data range, spacing and monotonicity
# ------------------------------------------------------------------------------------------


def _data_range(x_data: np.ndarray | None) -> tuple[float, float] | None:
    if x_data is None or len(x_data) == 0:
        return None
    x = np.asarray(x_data, dtype=float)
    return float(np.min(x)), float(np.max(x))


def _spacing(x_data: np.ndarray | None) -> float | None:
    if x_data is None or len(x_data) < 2:
        return None
    steps = np.diff(np.unique(np.asarray(x_data, dtype=float)))
    return float(np.median(steps)) if len(steps) else None


def _coarse_precision(x_data: np.ndarray | None) -> float | None:
    """Precision for a fitted location with no sharp meaning (a Lin zero): 1/20 of the range."""
    span = _data_range(x_data)
    if span is None:
        return None
    return max(_spacing(x_data) or 0.0, 0.05 * (span[1] - span[0])) or None


def _trend(values: np.ndarray, tolerance: float = 0.01) -> str:
    """Classify a sequence as "increasing", "decreasing", "flat" or "not monotonic"; a dip (or
    rise) smaller than ``tolerance`` of the total range is ignored."""
    values = np.asarray(values, dtype=float)
    values = values[np.isfinite(values)]
    if len(values) < 2:
        return "flat"
    spread = float(np.ptp(values))
    if spread <= 1e-12 * max(1.0, float(np.max(np.abs(values)))):
        return "flat"
    allowed = tolerance * spread
    if np.max(np.maximum.accumulate(values) - values) <= allowed:
        return "increasing"
    if np.max(values - np.minimum.accumulate(values)) <= allowed:
        return "decreasing"
    return "not monotonic"


def _lin_trend(lins: Sequence[Lin], x_range: tuple[float, float] | None) -> str | None:
    """How the amplitude ∏|x - location| changes across the data, None if the range is unknown."""
    if x_range is None or not lins:
        return None
    xs = np.linspace(x_range[0], x_range[1], 401)
    amplitude = np.prod([np.abs(xs - k.param("location")) for k in lins], axis=0)
    return _trend(amplitude, DIP_TOLERANCE)


def _in_range(facts: ComponentFacts, x_data: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """x_grid and the component's mean restricted to the data range (all of it if unknown)."""
    x = np.asarray(facts.x_grid, dtype=float)
    mean = np.asarray(facts.mean, dtype=float)
    span = _data_range(x_data)
    if span is None:
        return x, mean
    tol = 1e-9 * max(1.0, abs(span[1] - span[0]))
    mask = (x >= span[0] - tol) & (x <= span[1] + tol)
    return (x[mask], mean[mask]) if mask.sum() >= 2 else (x, mean)


def mean_trend(facts: ComponentFacts, x_data: np.ndarray | None = None) -> str:
    """Whether the component's posterior mean is "increasing", "decreasing", "flat" or
    "not monotonic" over the data range."""
    return _trend(_in_range(facts, x_data)[1])


# ==========================================================================================
# Noun phrases
# ==========================================================================================

_DEGREE_ADVERBS = {1: "linearly", 2: "quadratically", 3: "cubically"}
_DEGREE_NOUNS = {1: "a linear trend", 2: "a quadratic function", 3: "a cubic function"}


def _adverb(n_lin: int) -> str:
    return _DEGREE_ADVERBS.get(n_lin, "polynomially")


def _lin_modifier(lins: Sequence[Lin], what: str, x_range: tuple[float, float] | None) -> str:
    """'with linearly increasing amplitude', 'with standard deviation varying linearly', ..."""
    adverb = _adverb(len(lins))
    trend = _lin_trend(lins, x_range)
    if trend in ("increasing", "decreasing"):
        return f"with {adverb} {trend} {what}"
    return f"with {what} varying {adverb}"


def _period_text(per: BaseKernel, axis: Axis) -> str:
    return f"a period of {format_span(per.param('period'), axis)}"


def _head_phrase(parts: _Factors, axis: Axis, direction: str | None) -> tuple[str, list[str]]:
    """The determiner, premodifiers and head noun, and the head's own postmodifiers."""
    head = parts.head
    if head == "noise":
        return "uncorrelated noise", []
    if head == "periodic":
        main, others = parts.periodic[0], parts.periodic[1:]
        sinusoid = isinstance(main, Cos)
        if parts.smooth:
            noun = "an approximately sinusoidal function" if sinusoid else None
            noun = noun or "an approximately periodic function"
        else:
            noun = "a sinusoid" if sinusoid else "a periodic function"
        post = [f"with {_period_text(main, axis)}"]
        for extra in others:
            shape = "a sinusoid" if isinstance(extra, Cos) else "a periodic function"
            post.append(f"modulated by {shape} with {_period_text(extra, axis)}")
        return noun, post
    if head == "smooth":
        if any(isinstance(k, RQ) for k in parts.smooth):
            return "a smooth function", ["with variation on a mix of length scales"]
        return "a smooth function", []
    if head == "linear":
        degree = len(parts.lin)
        if degree == 1 and direction in ("increasing", "decreasing"):
            return f"a linearly {direction} function", []
        return _DEGREE_NOUNS.get(degree, f"a polynomial of degree {degree}"), []
    return "a constant", []


def _join_modifiers(post: Sequence[str]) -> str:
    """Join postmodifiers with 'and', dropping a repeated leading 'with'."""
    text = ""
    for i, item in enumerate(post):
        if i == 0:
            text = item
            continue
        previous = post[i - 1]
        if item.startswith("with ") and previous.startswith("with "):
            item = item[len("with ") :]
        text += f" and {item}"
    return text


def _noise_terms(kernel: Kernel) -> list[_Factors]:
    """The terms of a sum whose every term is noise (decompose merges them into one
    component); empty for anything else."""
    if not isinstance(kernel, Sum):
        return []
    terms = [_factors(k) for k in kernel.operands]
    if any(t is None or t.head != "noise" for t in terms):
        return []
    return terms  # type: ignore[return-value]


# A standard deviation or amplitude driven by linear factors is a rough estimate: a dip of
# under a tenth of its range (near a linear factor's zero at the edge of the data) does not hide
# an overall rise or fall.
DIP_TOLERANCE = 0.1


def _noise_sum_phrase(kernel: Kernel, x_data: np.ndarray | None) -> str:
    """'uncorrelated noise', with how its standard deviation changes when it does."""
    if not any(t.lin or t.gates for t in _noise_terms(kernel)):
        return "uncorrelated noise"
    span = _data_range(x_data)
    profile = _noise_profile(kernel, span) if span else None
    trend = _trend(profile, DIP_TOLERANCE) if profile is not None else None
    if trend in ("increasing", "decreasing"):
        return f"uncorrelated noise with {trend} standard deviation"
    overall = _overall_direction(profile) if profile is not None else None
    if overall:
        return f"uncorrelated noise with standard deviation {overall} overall"
    return "uncorrelated noise with varying standard deviation"


def _overall_direction(values: np.ndarray) -> str | None:
    """'increasing' when a non-monotonic profile ends at its maximum at least twice its start,
    'decreasing' for the mirror case, else None."""
    first, last = float(values[0]), float(values[-1])
    if last >= float(values.max()) and last >= 2.0 * first:
        return "increasing"
    if first >= float(values.max()) and first >= 2.0 * last:
        return "decreasing"
    return None


def noun_phrase(
    kernel: Kernel,
    axis: Axis,
    *,
    x_data: np.ndarray | None = None,
    direction: str | None = None,
) -> str:
    """One noun phrase for a product of base kernels, e.g. 'an approximately periodic function
    with a period of 1.0 year and linearly increasing amplitude'.

    ``x_data`` tells whether a linear factor's amplitude grows or shrinks across the data (and
    sets the precision of dates); ``direction`` ("increasing"/"decreasing", from the posterior
    mean) names the direction of a linear trend.
    """
    parts = _factors(kernel)
    if parts is None:
        if _noise_terms(kernel):
            return _noise_sum_phrase(kernel, x_data)
        return f"a function with covariance {kernel.structure}"
    noun, post = _head_phrase(parts, axis, direction)
    x_range = _data_range(x_data)
    if parts.lin and parts.head != "linear":
        what = "standard deviation" if parts.head == "noise" else "amplitude"
        post.append(_lin_modifier(parts.lin, what, x_range))
    phrase = " ".join([noun, _join_modifiers(post)]).strip()
    if parts.gates:
        clause = _applies_clause(parts.gates, axis, _spacing(x_data))
        if clause:
            phrase += f" which {clause}"
    return phrase


# ==========================================================================================
# Paragraphs
# ==========================================================================================


def _opening(index: int, phrase: str) -> str:
    """The first sentence; the wording rotates with the component's position."""
    forms = (
        "This component is {p}.",
        "Component {i} is {p}.",
        "The {o} component is {p}.",
        "Next in the ranking comes {p}.",
    )
    form = forms[(index - 1) % len(forms)]
    return form.format(p=phrase, i=index, o=ordinal(index))


def _periodic_sentences(parts: _Factors, axis: Axis) -> list[str]:
    main = parts.periodic[0]
    period = main.param("period")
    out = []
    if isinstance(main, Cos):
        out.append("Within each period its shape is an exact sinusoid.")
    else:
        ell = main.param("lengthscale")
        detail = format_span(_periodic_length(main), axis)
        if ell > SINUSOID_LENGTHSCALE:
            out.append("Within each period its shape is very smooth, close to a pure sinusoid.")
        elif ell < SPIKY_LENGTHSCALE:
            out.append(
                "Within each period it has a sharp, spiky shape, with features only about "
                f"{detail} wide, and this pattern recurs every period."
            )
        else:
            out.append(
                "Within each period its shape is smooth but not a plain sinusoid; its features "
                f"are about {detail} wide."
            )
    if parts.smooth:
        length = _lengthscale(parts.smooth)
        periods = length / period
        span = format_span(length, axis)
        if periods < 1:
            out.append(
                f"Its shape changes quickly from one cycle to the next (typical lengthscale "
                f"{span}, less than a period), so the repetition is only loose."
            )
        elif periods > 20:
            out.append(
                f"From one cycle to the next its shape changes only very slowly, over about "
                f"{span} (some {format_number(periods, decimals=0)} periods)."
            )
        else:
            out.append(
                f"Its shape drifts gradually from cycle to cycle, with a typical lengthscale "
                f"of {span} (about {format_number(periods, decimals=1)} periods)."
            )
    return out


def _smooth_sentences(parts: _Factors, axis: Axis) -> list[str]:
    span = format_span(_lengthscale(parts.smooth), axis)
    rq = [k for k in parts.smooth if isinstance(k, RQ)]
    if rq:
        alpha = rq[0].param("alpha")
        return [
            f"It varies smoothly over about {span}, with faster and slower changes mixed in "
            f"(the smaller the shape parameter α = {format_number(alpha, 2)}, the wider the mix)."
        ]
    return [f"It varies smoothly over about {span}."]


def _noise_profile(kernel: Kernel, span: tuple[float, float]) -> np.ndarray:
    """The noise's prior standard deviation across ``span`` (k(x, x) includes WN)."""
    xs = np.linspace(span[0], span[1], 201)
    return np.sqrt(np.maximum(kernel.diag(xs), 0.0))


def _noise_sentence(
    facts: ComponentFacts, axis: Axis, x_data: np.ndarray | None, adverb: str | None
) -> str:
    """How big the noise is, and how its standard deviation changes across the data."""
    span = _data_range(x_data) or (float(facts.x_grid[0]), float(facts.x_grid[-1]))
    sd = _noise_profile(facts.kernel, span)
    lead = "Its values are independent from point to point"
    trend = _trend(sd, DIP_TOLERANCE)
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
    overall = _overall_direction(sd)
    if overall:
        change = "rising" if overall == "increasing" else "falling"
        return (
            f"{lead}; its standard deviation ranges between about {low} and {high},"
            f" {change} overall from about {first} at the start of the data to about {last} at"
            " the end, though not steadily."
        )
    return f"{lead}; its standard deviation ranges between about {low} and {high}."


def _lin_sentences(parts: _Factors, axis: Axis, x_data: np.ndarray | None) -> list[str]:
    what = "standard deviation" if parts.head == "noise" else "amplitude"
    lins = parts.lin
    adverb = _adverb(len(lins))
    trend = _lin_trend(lins, _data_range(x_data))
    where = format_position(lins[0].param("location"), axis, _coarse_precision(x_data))
    if trend == "increasing":
        text = f"Its {what} grows {adverb} across the data"
    elif trend == "decreasing":
        text = f"Its {what} shrinks {adverb} across the data"
    elif len(lins) == 1 and trend is not None:
        return [f"Its {what} is smallest near {where} and grows linearly away from it."]
    else:
        text = f"Its {what} changes {adverb} with {axis.x_name}"
    if len(lins) == 1:
        text += f", in proportion to the distance from {where}"
    return [text + "."]


def _trend_sentences(
    parts: _Factors, facts: ComponentFacts, axis: Axis, x_data: np.ndarray | None
) -> list[str]:
    x, mean = _in_range(facts, x_data)
    trend = _trend(mean)
    start, end = format_amount(mean[0], axis), format_amount(mean[-1], axis)
    if trend == "increasing":
        text = f"Over the data it only increases, from {start} to {end}"
    elif trend == "decreasing":
        text = f"Over the data it only decreases, from {start} to {end}"
    elif trend == "flat":
        return ["Over the data it stays essentially flat."]
    else:
        return ["It is not monotonic: over the data it goes both up and down."]
    if parts.head == "linear" and len(parts.lin) == 1 and not parts.gates and x[-1] > x[0]:
        slope = (mean[-1] - mean[0]) / (x[-1] - x[0])
        unit = "year" if axis.is_time else f"unit of {axis.x_name}"
        text += f", about {format_amount(abs(slope), axis)} per {unit}"
    return [text + "."]


def _switch_sentences(parts: _Factors, axis: Axis, x_data: np.ndarray | None) -> list[str]:
    """When the change factors switch the component on and off, in time order."""
    on = _on_intervals(parts.gates)
    if not on:
        return ["Its change factors leave it switched off everywhere."]
    spacing = _spacing(x_data)
    events: list[tuple[float, str, float]] = []
    for i in on:
        if math.isfinite(i.low):
            events.append((i.low, "switches on", i.low_steep))
        if math.isfinite(i.high):
            events.append((i.high, "switches off", i.high_steep))
    if not events:
        return []
    events.sort()
    words = [
        f"{verb} around {format_position(x, axis, _precision(s, spacing))}" for x, verb, s in events
    ]
    widths = {2.0 * s for _, _, s in events}
    text = f"It {join_words(words, 'and then')}"
    width = max(widths)
    if spacing and width < spacing:
        how = "each switch is abrupt, quicker than the spacing of the data"
    elif len(events) == 1:
        how = f"the switch takes about {format_span(width, axis)}"
    else:
        how = f"each switch takes about {format_span(width, axis)}"
        if len(widths) > 1:
            how = f"each switch takes at most about {format_span(width, axis)}"
    return [f"{text}; {how}."]


def _detail_sentences(
    parts: _Factors, facts: ComponentFacts, axis: Axis, x_data: np.ndarray | None
) -> list[str]:
    head = parts.head
    out: list[str] = []
    if head == "noise":
        adverb = _adverb(len(parts.lin)) if parts.lin and not parts.gates else None
        out.append(_noise_sentence(facts, axis, x_data, adverb))
    elif head == "periodic":
        out += _periodic_sentences(parts, axis)
    elif head == "smooth":
        out += _smooth_sentences(parts, axis)
    if parts.lin and head not in ("linear", "noise"):
        out += _lin_sentences(parts, axis, x_data)
    if head in ("smooth", "linear"):
        out += _trend_sentences(parts, facts, axis, x_data)
    if head == "constant":
        _, mean = _in_range(facts, x_data)
        if len(mean):
            level = mean[int(np.argmax(np.abs(mean)))]
            where = "Where it applies, its" if parts.gates else "Its"
            out.append(f"{where} level is about {format_amount(level, axis)}.")
    if parts.gates:
        out += _switch_sentences(parts, axis, x_data)
    return out


def _distinct_percents(before: float, after: float) -> tuple[str, str] | None:
    """Two percentages with enough decimals (up to 3) to tell them apart, or None."""
    for decimals in (1, 2, 3):
        a, b = format_percent(before, decimals), format_percent(after, decimals)
        if a != b:
            return a, b
    return None


def _variance_sentence(facts: ComponentFacts, previous_r2: float) -> str:
    res = percent(facts.residual_r2)
    pair = _distinct_percents(previous_r2, facts.cum_r2)
    if pair is None:
        return (
            "It leaves the share of variance explained practically unchanged at "
            f"{percent(facts.cum_r2)}."
        )
    prev, cum = pair
    forms = (
        f"It accounts for {res} of the variance that the earlier components left unexplained, "
        f"raising the share of variance explained from {prev} to {cum}.",
        f"Adding it takes the variance explained from {prev} to {cum}, which is {res} of what "
        "was still unexplained.",
        f"With it the model explains {cum} of the variance, up from {prev}: it captures {res} "
        "of the variance that remained.",
    )
    return forms[(facts.index - 1) % len(forms)]


def _cv_sentences(facts: ComponentFacts, axis: Axis) -> list[str]:
    before, after = format_amount(facts.cv_mae_before, axis), format_amount(facts.cv_mae, axis)
    reduction = percent(abs(facts.mae_reduction), fine=True)
    if facts.improves_cv:
        forms = (
            f"It lowers the cross-validated mean absolute error (MAE) by {reduction}, from "
            f"{before} to {after}.",
            f"The cross-validated mean absolute error falls by {reduction} when it is added, "
            f"from {before} to {after}.",
        )
        return [forms[(facts.index - 1) % len(forms)]]
    if facts.mae_reduction < 0 and reduction != percent(0.0, fine=True):
        change = (
            f"The cross-validated mean absolute error rises by {reduction}, from {before} to "
            f"{after}."
        )
    else:
        change = (
            f"The cross-validated mean absolute error barely moves ({before} to {after}, "
            f"{reduction} lower)."
        )
    if facts.is_noise:
        warning = (
            f"As expected of noise, it explains variance {CV_WARNING}: it cannot be predicted "
            "from neighbouring points."
        )
    else:
        warning = (
            f"Since it explains variance {CV_WARNING}, it probably captures short-lived "
            "fluctuations or noise, or is a by-product of the model, rather than a pattern "
            "that helps prediction."
        )
    return [change, warning]


def component_paragraph(
    facts: ComponentFacts,
    axis: Axis,
    previous_r2: float | None = None,
    *,
    x_data: np.ndarray | None = None,
) -> str:
    """A paragraph on one component: what it is, its numbers in the data's units, how much
    variance it explains and how it changes the cross-validated error.

    ``previous_r2`` is the R² of the components before it (default: cum_r2 - delta_r2).
    """
    if previous_r2 is None:
        previous_r2 = facts.cum_r2 - facts.delta_r2
    parts = _factors(facts.kernel)
    direction = mean_trend(facts, x_data)
    phrase = noun_phrase(facts.kernel, axis, x_data=x_data, direction=direction)
    sentences = [_opening(facts.index, phrase)]
    if parts is not None:
        sentences += _detail_sentences(parts, facts, axis, x_data)
    elif _noise_terms(facts.kernel):
        sentences.append(_noise_sentence(facts, axis, x_data, None))
    sentences.append(_variance_sentence(facts, previous_r2))
    sentences += _cv_sentences(facts, axis)
    return " ".join(sentences)


# ==========================================================================================
# Summary, extrapolation, model checks
# ==========================================================================================


def _explained_sentence(components: Sequence[ComponentFacts]) -> str:
    n = len(components)
    if n == 0:
        return "There is no component to explain the variation in the data."
    cum = [c.cum_r2 for c in components]
    if n == 1:
        return f"The single component explains {percent(cum[0])} of the variation in the data."
    sentences = []
    shown = [""]
    for threshold in (0.9, 0.99):
        k = next((i + 1 for i, r in enumerate(cum) if r >= threshold), None)
        if k is None or k == n or percent(cum[k - 1]) == shown[-1]:
            continue
        shown.append(percent(cum[k - 1]))
        lead = "The first component explains" if k == 1 else f"The first {k} components explain"
        sentences.append(f"{lead} {shown[-1]} of the variation in the data.")
    if not sentences:
        sentences.append(
            f"All {number_word(n)} components together explain {percent(cum[-1])} of the "
            "variation in the data."
        )
    elif percent(cum[-1]) != shown[-1]:
        sentences.append(f"All {number_word(n)} together explain {percent(cum[-1])}.")
    return " ".join(sentences)


def _stops_sentence(components: Sequence[ComponentFacts]) -> str:
    n = len(components)
    helping = [c.improves_cv for c in components]
    if n == 0:
        return ""
    if all(helping):
        if n == 1:
            return "The component lowers the cross-validated mean absolute error by more than 0.1%."
        return "Every component lowers the cross-validated mean absolute error by more than 0.1%."
    if not any(helping):
        return "No component lowers the cross-validated mean absolute error by more than 0.1%."
    last = max(i + 1 for i, h in enumerate(helping) if h)
    if last < n:
        lead = "After the first component" if last == 1 else f"After the first {last} components"
        return (
            f"{lead} the cross-validated mean absolute error no longer falls by more than 0.1%, "
            "so the later components most likely capture short-lived wiggles, noise or quirks "
            "of the fitted model rather than structure that helps prediction."
        )
    idle = [str(i + 1) for i, h in enumerate(helping) if not h]
    label = "component" if len(idle) == 1 else "components"
    return (
        f"Every component except {label} {join_words(idle)} lowers the cross-validated mean"
        " absolute error by more than 0.1%."
    )


def summary_sentences(
    components: list[ComponentFacts], axis: Axis, *, x_data: np.ndarray | None = None
) -> dict[str, str | list[str]]:
    """The report's summary: ``intro``, ``explained``, ``stops_improving`` and ``bullets``
    (one capitalised noun phrase per component, ending with a full stop)."""
    n = len(components)
    noun = "component" if n == 1 else "components"
    intro = f"The search found {number_word(n)} additive {noun} in the data."
    bullets = []
    for facts in components:
        phrase = noun_phrase(facts.kernel, axis, x_data=x_data, direction=mean_trend(facts, x_data))
        bullets.append(capitalise(phrase) + ".")
    return {
        "intro": intro,
        "explained": _explained_sentence(components),
        "stops_improving": _stops_sentence(components),
        "bullets": bullets,
    }


def _continuation(parts: _Factors, axis: Axis, x_data: np.ndarray | None) -> str:
    """What the component does beyond the data while it is switched on."""
    head = parts.head
    lin = parts.lin
    verb = {"increasing": "growing", "decreasing": "shrinking"}.get(
        _lin_trend(lin, _data_range(x_data)) or "", "changing"
    )
    change = f"{verb} {_adverb(len(lin))}"
    if head == "noise":
        tail = f", and its standard deviation keeps {change}" if lin else ""
        return (
            "Beyond the data the noise stays uncorrelated: it widens the prediction intervals "
            f"but cannot itself be forecast{tail}."
        )
    if head == "periodic":
        main = parts.periodic[0]
        period = format_span(main.param("period"), axis)
        text = f"Beyond the data it is assumed to keep repeating every {period}"
        if parts.smooth:
            span = format_span(_lengthscale(parts.smooth), axis)
            text += f", its exact shape becoming less certain beyond about {span} from the data"
        if lin:
            text += f", with its amplitude still {change}"
        return text + "."
    if head == "smooth":
        span = format_span(_lengthscale(parts.smooth), axis)
        return (
            f"Beyond the data its mean returns to zero (its prior mean) within about {span}, "
            "and its uncertainty grows back to the prior level."
        )
    if head == "linear":
        if len(lin) == 1:
            return "The linear trend is assumed to continue beyond the data with the same slope."
        shape = _DEGREE_NOUNS.get(len(lin), "the polynomial").replace("a ", "the ", 1)
        return f"Beyond the data {shape} is assumed to continue along the same curve."
    return "The constant level is assumed to stay the same beyond the data."


def describe_extrapolation(
    facts: ComponentFacts, axis: Axis, *, x_data: np.ndarray | None = None
) -> str:
    """One sentence on what the component is assumed to do beyond the end of the data."""
    parts = _factors(facts.kernel)
    if parts is None and _noise_terms(facts.kernel):
        text = _continuation(_Factors(noise=[WN((1.0,))]), axis, None)
        if any(t.lin or t.gates for t in _noise_terms(facts.kernel)):
            text = text[:-1] + (
                f", and its standard deviation keeps changing with {axis.x_name} as it does "
                "over the data."
            )
        return text
    if parts is None:
        return "Beyond the data it follows its covariance function; no simple summary is given."
    if parts.gates:
        on = _on_intervals(parts.gates)
        if not on:
            return "It is switched off everywhere, so it adds nothing beyond the data."
        last = on[-1]
        if math.isfinite(last.high):
            when = format_position(last.high, axis, _precision(last.high_steep, _spacing(x_data)))
            return (
                f"The model assumes it stays switched off from {when} onwards, so it adds "
                "nothing to forecasts beyond that point."
            )
    return _continuation(parts, axis, x_data)


_CHECK_HINTS = {
    "autocorrelation": "the residuals are still correlated from point to point, so some "
    "short-term structure may be missing from the model",
    "periodogram": "some periodic structure is left in the residuals",
    "quantile-quantile": "the residuals are not distributed as the model assumes, for example "
    "heavier tails or outliers",
}


def describe_checks(checks: list[ModelCheck]) -> str:
    """Which posterior predictive checks are significant and what that suggests."""
    if not checks:
        return "No posterior predictive checks were run."
    flagged = [c for c in checks if c.significant]
    names = join_words([c.name for c in checks])
    if not flagged:
        return (
            f"None of the posterior predictive checks ({names}) is significant at the 5% level, "
            "so the residuals show no clear sign of structure that the model misses."
        )
    sentences = []
    for check in flagged:
        shown = format_pvalue(check.p_value)
        p = f"p {shown}" if shown.startswith("<") else f"p = {shown}"
        hint = _CHECK_HINTS.get(check.name, "the model misses something this statistic picks up")
        sentences.append(
            f"The {check.name} check is significant ({p}; {check.statistic}), which suggests "
            f"that {hint}."
        )
    calm = [c.name for c in checks if not c.significant]
    if calm:
        label = "check shows" if len(calm) == 1 else "checks show"
        sentences.append(f"The {join_words(calm)} {label} nothing unusual.")
    return " ".join(sentences)
