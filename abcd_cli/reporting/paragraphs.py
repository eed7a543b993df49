"""The paragraph on one component: what it is and its numbers in the data's units, then
how much variance it explains and how it changes the cross-validated error
(:mod:`statistics_text`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from abcd_cli.decompose.facts import Axis, ComponentFacts
from abcd_cli.kernels import Wording
from abcd_cli.reporting.amplitude_text import amplitude_sentence
from abcd_cli.reporting.course import DATA_ENDS, course_legs, turning_points
from abcd_cli.reporting.curves import (
    applied_part,
    bend_words,
    fitted_amplitudes,
    harmonic_sentences,
    mean_trend,
    size_profile,
    slow_cycle_sentences,
    trend_shape,
)
from abcd_cli.reporting.data_checks import unshown_bend_sentences
from abcd_cli.reporting.factors import (
    Factors,
    factors_of,
    gate_profile,
    is_gradual,
    noise_terms,
    product_lengthscale,
    stated_intervals,
)
from abcd_cli.reporting.gathered import (
    Gathered,
    gathered,
    gathered_sentence,
    is_rough_term,
    rough_terms_sentences,
)
from abcd_cli.reporting.gathered_sides import character_sentences
from abcd_cli.reporting.headings import curve_phrase
from abcd_cli.reporting.hidden_cycle import lagged_correlation, repeat_sentences
from abcd_cli.reporting.level_text import unsteady_level_sentences, zero_band_sentences
from abcd_cli.reporting.noise_text import (
    negligible_sentences,
    noise_sentence,
    pinch_sentences,
)
from abcd_cli.reporting.numbers import format_number
from abcd_cli.reporting.phrases import degree_adverb, modulator_phrases
from abcd_cli.reporting.rough_cycle import (
    rough_cycle_sentences,
    said_as_rough,
)
from abcd_cli.reporting.size_text import gradual_sentences
from abcd_cli.reporting.statistics_text import statistics_sentences
from abcd_cli.reporting.switch_text import interval_sentences, step_sentences, switch_sentences
from abcd_cli.reporting.trends import (
    coarse_precision,
    data_range,
    data_spacing,
    in_data_range,
    lin_trend,
)
from abcd_cli.reporting.wording import (
    format_amount,
    format_position,
    format_span,
    join_words,
    ordinal,
    rate_unit,
)


def opening(index: int, phrase: str) -> str:
    """The first sentence; the wording rotates with the component's position."""
    forms = (
        "This component is {p}.",
        "Component {i} is {p}.",
        "The {o} component is {p}.",
        "Next in the ranking comes {p}.",
    )
    form = forms[(index - 1) % len(forms)]
    return form.format(p=phrase, i=index, o=ordinal(index))


def _shape_sentences(parts: Factors, axis: Axis, x_data: np.ndarray | None = None) -> list[str]:
    """The sentence the leading factor declares on the component's shape (within a period for
    a periodic one; how far apart its changes are for a smooth one), if it has one; a cycle
    whose features are narrower than the data's spacing has no shape between the data (wine
    sales' yearly pattern, 'features only about 3.5 hours wide' on monthly data)."""
    lead = parts.lead
    if lead is None:
        return []
    steps = np.diff(np.unique(x_data)) if x_data is not None else np.zeros(0)
    step = float(steps.min()) if steps.size else None  # the finest step of the data
    width = getattr(lead, "feature_length", None)
    if parts.head == "periodic" and step and width is not None and width() < step:
        return [
            "Within each period its features are narrower than the finest step of the data"
            f" ({format_span(step, axis)}): each point of the period the data fall on has a"
            " level of its own, and its curve between the data only joins them."
        ]
    span = format_span(product_lengthscale(parts.smooth), axis) if parts.smooth else ""
    words = Wording(span, lambda v: format_span(v, axis), lambda v: format_number(v, 2))
    sentence = lead.shape_sentence(words)
    return [sentence] if sentence else []


def finer_than_data_sentences(
    parts: Factors, facts: ComponentFacts, axis: Axis, x_data: np.ndarray | None
) -> list[str]:
    """A smooth component whose lengthscale ℓ (of its smooth factors' product) is shorter than
    the data's spacing s: what its fitted curve shows at the data, the correlation r of its
    fitted values one spacing apart (``hidden_cycle.lagged_correlation``), so that "varies
    smoothly" is not read as a smooth course the data show (wheat: ℓ = 10.9 months on yearly
    prices)."""
    spacing = data_spacing(x_data)
    if not parts.smooth or spacing is None or x_data is None:
        return []
    if product_lengthscale(parts.smooth) >= spacing:
        return []
    r = lagged_correlation(x_data, facts.data_mean, spacing)
    if not np.isfinite(r):
        return []
    return [
        f"That is shorter than the spacing of the data ({format_span(spacing, axis)}): its fitted"
        f" values at neighbouring observations correlate at {format_number(r, decimals=2)}, so at"
        " the data it shows as jumps from one observation to the next, and its smooth course"
        " between observations is the model's interpolation, not a shape the data show."
    ]


def _modulators(terms: Sequence[Factors], axis: Axis) -> list[str]:
    """What multiplies a cycle's terms and so changes its amplitude: other cycles ('a periodic
    function with a period of 10 years') and smooth factors ('a smooth factor changing over
    about 2.5 years'), each once."""
    out = [m for t in terms for m in modulator_phrases(t, axis)]
    for t in terms:
        if t.smooth:
            span = format_span(product_lengthscale(t.smooth), axis)
            out.append(f"a smooth factor changing over about {span}")
    return list(dict.fromkeys(out))


def _periodic_sentences(
    parts: Factors,
    axis: Axis,
    facts: ComponentFacts | None = None,
    x_data: np.ndarray | None = None,
) -> list[str]:
    """The shape within a period (declared by the periodic factor), its amplitude as its fitted
    curve shows it, and how fast it drifts between cycles (the smooth factors' lengthscale over
    the period)."""
    period = parts.periodic[0].param("period")
    out = _shape_sentences(parts, axis, x_data)
    amplitudes = fitted_amplitudes(facts, period, x_data) if facts is not None else None
    if amplitudes is not None and not parts.lin:
        out.append(amplitude_sentence(amplitudes, axis, x_data, _modulators([parts], axis)))
    if parts.smooth:
        length = product_lengthscale(parts.smooth)
        periods = length / period
        span = format_span(length, axis)
        if periods < 1:
            out.append(
                f"Its shape changes quickly from one cycle to the next (over about {span},"
                " less than a period), so the repetition is only loose."
            )
        elif periods > 20:
            out.append(
                f"From one cycle to the next its shape changes only very slowly, over about "
                f"{span} (some {format_number(periods, decimals=0)} periods)."
            )
        else:
            out.append(
                f"Its shape drifts gradually from cycle to cycle, over about {span} (about"
                f" {format_number(periods, decimals=1)} periods)."
            )
    return out


def _lin_sentences(
    parts: Factors, axis: Axis, x_data: np.ndarray | None, facts: ComponentFacts | None = None
) -> list[str]:
    """How the linear factors scale the amplitude (or standard deviation) across the data; a
    cycle's from its fitted curve (its sizes at the start and end of the data), and said as
    the curve shows it when the curve does not rise or fall as the factors would have it."""
    what = "standard deviation" if parts.head == "noise" else "amplitude"
    lins = parts.lin
    adverb = degree_adverb(len(lins))
    span = data_range(x_data)
    trend = lin_trend(lins, span)
    location = lins[0].param("location")
    where = format_position(location, axis, coarse_precision(x_data))
    if parts.head == "periodic" and facts is not None:
        amplitudes = fitted_amplitudes(facts, parts.periodic[0].param("period"), x_data)
        if amplitudes is not None:
            first, last = amplitudes.sizes[0], amplitudes.sizes[-1]
            moves = {"increasing": last > first, "decreasing": last < first}
            if trend in moves and moves[trend] and not amplitudes.steady:
                verb = "grows" if trend == "increasing" else "shrinks"
                return [
                    f"Its amplitude {verb} {adverb} across the data: measured from its fitted"
                    f" curve, from about {format_amount(first, axis)} in the first period to"
                    f" about {format_amount(last, axis)} in the last."
                ]
            return [amplitude_sentence(amplitudes, axis, x_data)]
    if trend == "increasing":
        text = f"Its {what} grows {adverb} across the data"
    elif trend == "decreasing":
        text = f"Its {what} shrinks {adverb} across the data"
    elif len(lins) == 1 and trend is not None:
        return [f"Its {what} is smallest near {where} and grows linearly away from it."]
    else:
        text = f"Its {what} changes {adverb} with {axis.x_name}"
    if len(lins) == 1 and span is not None and span[0] <= location <= span[1]:
        text += f", in proportion to the distance from {where}"
    return [text + "."]


def _trend_sentences(
    parts: Factors, facts: ComponentFacts, axis: Axis, x_data: np.ndarray | None, where: str = ""
) -> list[str]:
    """Whether the mean rises or falls ('where it applies' only of gates that switch, not scale,
    it; or ``where``), and a single Lin's slope per unit of x (:func:`rate_unit`); when the
    fitted curve's slope changes (``curves.TrendShape.bend``), its slopes over the first and
    last third of where it applies instead."""
    x, mean = applied_part(facts, x_data)
    trend = mean_trend(facts, x_data)
    switched = bool(parts.gates) and not is_gradual(parts.gates, x_data)
    where = where or ("Where it applies" if switched else "Over the data")
    start, end = format_amount(mean[0], axis), format_amount(mean[-1], axis)
    if trend == "increasing":
        text = f"{where} it only increases, from {start} to {end}"
    elif trend == "decreasing":
        text = f"{where} it only decreases, from {start} to {end}"
    elif trend == "flat":
        level = format_amount(float(np.median(mean)), axis)
        if where == "Where it applies":
            return [f"{where} it stays flat, at about {level}: switching it acts as a step."]
        return [f"{where} it stays essentially flat, at about {level}."]
    else:
        return [_course_sentence(x, mean, axis, x_data, where)]
    shape = trend_shape(x, mean)
    if parts.head == "linear" and len(parts.lin) == 1 and shape is not None and shape.bend:
        unit, size = rate_unit(float(x[-1] - x[0]), axis)
        early, late = (format_amount(abs(b) * size, axis) for b in shape.slopes)
        stretch = "where it applies" if parts.gates else "the data"
        return [
            f"{text}, though not at one slope: about {early} per {unit} over the first third of"
            f" {stretch} and about {late} per {unit} over the last, so it"
            f" {bend_words(shape.slopes[1], shape.bend)}.",
            *unshown_bend_sentences(facts, axis, x_data),
        ]
    if parts.head == "linear" and len(parts.lin) == 1 and shape is not None and not shape.linear:
        text += ", though not along a straight line"
    if parts.head == "linear" and len(parts.lin) == 1 and not parts.gates and x[-1] > x[0]:
        slope = (mean[-1] - mean[0]) / (x[-1] - x[0])
        unit, size = rate_unit(float(x[-1] - x[0]), axis)
        text += f", about {format_amount(abs(slope) * size, axis)} per {unit}"
    return [text + "."]


def _course_sentence(
    x: np.ndarray, mean: np.ndarray, axis: Axis, x_data: np.ndarray | None, where: str
) -> str:
    """A curve that is not monotonic: its course through its turns (``course.course_legs``;
    a dip of 2% of its range no longer makes unemployment's tripling 'go both up and down'),
    mostly one way when it has no turn of note, else its range and where it lies."""
    precision = coarse_precision(x_data)
    turns = turning_points(mean)
    if not turns:
        way = "increases" if mean[-1] > mean[0] else "decreases"
        return (
            f"{where} it mostly {way}, from about {format_amount(mean[0], axis)} to about"
            f" {format_amount(mean[-1], axis)}, with only small moves the other way."
        )
    ends = DATA_ENDS
    if where == "Where it applies":  # its ends are where it switches on and off
        ends = tuple(f"around {format_position(e, axis, precision)}" for e in (x[0], x[-1]))
    steps = np.diff(x)
    joined = steps.size == 0 or float(steps.max()) <= 3.0 * float(np.median(steps))
    legs = course_legs(x, mean, axis, precision, ends) if joined else None  # one stretch only
    if legs is not None:
        return f"{where} it {join_words(legs)}."
    low, high = int(np.argmin(mean)), int(np.argmax(mean))
    return (
        f"It is not monotonic: {where.lower()} it goes both up and down, between about"
        f" {format_amount(mean[low], axis)} (around {format_position(x[low], axis, precision)})"
        f" and {format_amount(mean[high], axis)} (around"
        f" {format_position(x[high], axis, precision)})."
    )


def _detail_sentences(
    parts: Factors,
    facts: ComponentFacts,
    axis: Axis,
    x_data: np.ndarray | None,
    y_data: np.ndarray | None = None,
) -> list[str]:
    """The sentences that follow the opening, chosen by the head noun and the other factors
    (``y_data``: the data, which a level's steps are checked against)."""
    head = parts.head
    out: list[str] = []
    if head == "noise":
        adverb = degree_adverb(len(parts.lin)) if parts.lin and not parts.gates else None
        out += [noise_sentence(facts, axis, x_data, adverb), *pinch_sentences(facts, axis, x_data)]
        out += negligible_sentences(facts, axis, x_data, y_data)
    elif head == "periodic":
        out += _periodic_sentences(parts, axis, facts, x_data)
    elif head == "smooth":
        out += _shape_sentences(parts, axis) + finer_than_data_sentences(parts, facts, axis, x_data)
    if parts.lin and head not in ("linear", "noise"):
        out += _lin_sentences(parts, axis, x_data, facts)
    if head in ("smooth", "linear"):
        out += _trend_sentences(parts, facts, axis, x_data)
    gradual = bool(parts.gates) and is_gradual(parts.gates, x_data)
    if head == "constant":
        _, mean = in_data_range(facts, x_data)
        if len(mean):
            level = mean[int(np.argmax(np.abs(mean)))]
            where = "Its"
            if parts.gates and gradual:
                where = "At its strongest, its"
            elif parts.gates:  # the level its steps are measured by (step_sentences)
                where, level = (
                    "Where it applies, its",
                    float(np.median(applied_part(facts, x_data)[1])),
                )
            unsteady = unsteady_level_sentences(facts, axis, x_data) if not gradual else []
            out += unsteady or [f"{where} level is about {format_amount(level, axis)}."]
            out += zero_band_sentences(facts, axis, x_data)
    if gradual and x_data is not None:
        profile = size_profile(facts, x_data) or gate_profile(parts.gates, x_data)
        out += gradual_sentences(profile, axis, x_data)
    elif parts.gates:
        out += switch_sentences(parts, axis, x_data)
        flat = mean_trend(facts, x_data) == "flat"
        if (head == "constant" and not unsteady_level_sentences(facts, axis, x_data)) or (
            head == "linear" and flat
        ):
            on = stated_intervals(parts.gates, x_data)
            out += step_sentences(on, facts, axis, x_data, y_data)
    return out


def _gathered_sentences(
    g: Gathered, facts: ComponentFacts, axis: Axis, x_data: np.ndarray | None
) -> list[str]:
    """A gathered component: what it gathers; a cycle's amplitude and shape; a smooth
    function's or a trend's sides (``gathered_sides``), shape and curve's range ('where it
    applies' only once that is said); where it switches on and off."""
    amplitudes = (
        fitted_amplitudes(facts, g.lead.periodic[0].param("period"), x_data)
        if g.head == "periodic"
        else None
    )
    if amplitudes is None:  # a cycle's size from its fitted values, never from its prior
        cycle = g.head == "periodic" and facts.data_mean.size > 0
        out = [gathered_sentence(g, axis, x_data, amplitude=not cycle)]
        if cycle:
            low, high = (format_amount(f(facts.data_mean), axis) for f in (np.min, np.max))
            out.append(f"Its fitted values at the data range from about {low} to {high}.")
    else:
        shaping = (
            [t for t in g.telling if not is_rough_term(t, g)]
            if facts.rough_sd is not None
            else g.telling
        )
        out = [
            gathered_sentence(g, axis, x_data, amplitude=False),
            amplitude_sentence(amplitudes, axis, x_data, _modulators(shaping, axis)),
        ]
    if g.head == "periodic":
        out += _periodic_sentences(g.lead, axis, x_data=x_data)
        out += rough_terms_sentences(g, facts, axis, x_data)
    else:
        out += character_sentences(g, facts, axis, x_data)
    if g.head == "smooth":
        shape = _shape_sentences(g.lead, axis)
        span = format_span(product_lengthscale(g.lead.smooth), axis) if g.lead.smooth else None
        if span is None or not any(f"varies over about {span}" in s for s in out):
            out += shape  # unless its sides have said the length it varies over (wheat)
        out += finer_than_data_sentences(g.lead, facts, axis, x_data)
    if g.head in ("smooth", "linear"):
        where = "Over the data" if g.always_on else "Where it applies"
        out += _trend_sentences(g.lead, facts, axis, x_data, where)
    if not g.always_on:
        out += interval_sentences(g.on, axis, x_data)
    return out


def component_paragraph(
    facts: ComponentFacts,
    axis: Axis,
    previous_r2: float | None = None,
    *,
    x_data: np.ndarray | None = None,
    input_name: str | None = None,
    reference: str = "zero",
    y_data: np.ndarray | None = None,
) -> str:
    """A paragraph on one component: what it is, its numbers in the data's units, how much
    variance it explains and how it changes the cross-validated error (``y_data``: the data
    at ``x_data``, which claims of steps are checked against).

    ``previous_r2`` is the R² of the components before it (default: cum_r2 - delta_r2);
    ``input_name``: the input it is a function of, in a model of several inputs;
    ``reference``: what its levels are measured from, in words (``wording.reference_name``).
    """
    parts = factors_of(facts.kernel, x_data)
    direction = mean_trend(facts, x_data)
    phrase = curve_phrase(
        facts, axis, x_data, direction=direction, input_name=input_name, reference=reference
    )
    sentences = [opening(facts.index, phrase)]
    together = gathered(facts.kernel, x_data) if parts is None else None
    if said_as_rough(facts, x_data):
        sentences += rough_cycle_sentences(facts, axis, x_data)
        return " ".join(sentences + statistics_sentences(facts, axis, previous_r2))
    if parts is not None:
        sentences += _detail_sentences(parts, facts, axis, x_data, y_data)
    elif noise_terms(facts.kernel):
        sentences += [
            noise_sentence(facts, axis, x_data, None),
            *pinch_sentences(facts, axis, x_data),
            *negligible_sentences(facts, axis, x_data, y_data),
        ]
    elif together is not None:
        sentences += _gathered_sentences(together, facts, axis, x_data)
    sentences += slow_cycle_sentences(facts, axis, x_data)
    sentences += harmonic_sentences(facts, axis, x_data)
    sentences += repeat_sentences(facts, axis, x_data)
    sentences += statistics_sentences(facts, axis, previous_r2)
    return " ".join(sentences)
