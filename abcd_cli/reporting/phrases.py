"""Noun phrases for components: a head noun chosen by the factors' roles, in the words the
leading kernel declares ('a periodic function', 'a sinusoid'), and its modifiers (a smooth
factor: "approximately", a linear one: "with linearly increasing amplitude", a change factor:
"which applies until 1643").
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from abcd_cli.decompose.facts import Axis
from abcd_cli.kernels import BaseKernel, Kernel
from abcd_cli.reporting.factors import (
    Factors,
    Interval,
    factors_of,
    gate_profile,
    is_gradual,
    noise_terms,
    stated_intervals,
    switch_precision,
)
from abcd_cli.reporting.gathered import Gathered, amplitude_modifier, gathered
from abcd_cli.reporting.gathered_sides import character_clause
from abcd_cli.reporting.rough_cycle import ROUGH_PHRASE, is_rough_cycle
from abcd_cli.reporting.trends import (
    DIP_TOLERANCE,
    SLOW_CYCLES,
    classify_trend,
    coarse_precision,
    cycles_in_data,
    data_range,
    data_spacing,
    lin_trend,
    noise_profile,
    overall_direction,
)
from abcd_cli.reporting.wording import (
    format_position,
    format_span,
    join_words,
    place_in_data,
)

_DEGREE_ADVERBS = {1: "linearly", 2: "quadratically", 3: "cubically"}


DEGREE_NOUNS = {1: "a linear trend", 2: "a quadratic function", 3: "a cubic function"}


def degree_adverb(n_lin: int) -> str:
    """'linearly', 'quadratically', 'cubically' or 'polynomially' for n linear factors."""
    return _DEGREE_ADVERBS.get(n_lin, "polynomially")


def _lin_modifier(
    lins: Sequence[BaseKernel],
    what: str,
    x_range: tuple[float, float] | None,
    curve: str | None = None,
) -> str:
    """'with linearly increasing amplitude', 'with standard deviation varying linearly', ...;
    ``curve``: how the fitted curve's amplitude moves (``curves.amplitude_trend``), which the
    words follow when it does not rise or fall as the linear factors would have it ('' when it
    stays steady over the data)."""
    adverb = degree_adverb(len(lins))
    trend = lin_trend(lins, x_range)
    if curve == "flat":  # steady over the data: the paragraph gives its size
        return ""
    if curve is not None and curve != trend:
        return (
            f"with {curve} {what}"
            if curve in ("increasing", "decreasing")
            else f"with varying {what}"
        )
    if trend in ("increasing", "decreasing"):
        return f"with {adverb} {trend} {what}"
    if len(lins) == 1:  # |x − c| with c inside the data: a V, not a line
        return f"whose {what} shrinks to nearly zero and grows again"
    return f"with {what} varying {adverb}"


def _period_text(per: BaseKernel, axis: Axis) -> str:
    """'a period of 1.0 year'."""
    return f"a period of {format_span(per.param('period'), axis)}"


def seen_words(cycles: float) -> str:
    """How many cycles of a slow one the data hold, in words: 'less than one cycle',
    'fewer than two cycles'."""
    return "less than one cycle" if cycles < 1.0 else "fewer than two cycles"


def _repetition(
    parts: Factors, axis: Axis, x_data: np.ndarray | None, harmonic: int | None
) -> tuple[str | None, str]:
    """How a cycle's heading states its repetition, as (a noun replacing its own, or None;
    the modifier after it): its period ('with a period of 1.0 year'); with fewer than
    ``SLOW_CYCLES`` periods in the data, what they can show ('a slow swing', 'with fewer
    than two cycles seen in the data'); when what it fits mostly repeats at a ``harmonic``
    period/k (``curves.repeat_harmonic``), that first ('that mostly rises and falls every
    1.0 year, its pattern repeating every 4.0 years')."""
    lead = parts.periodic[0]
    period = lead.param("period")
    seen = cycles_in_data(period, x_data)
    if seen is not None and seen < SLOW_CYCLES:
        return "a slow swing", f"with {seen_words(seen)} seen in the data"
    if harmonic:
        return None, harmonic_words(period, harmonic, axis)
    return None, f"with {_period_text(lead, axis)}"


def harmonic_words(period: float, k: int, axis: Axis) -> str:
    """A cycle whose data mostly repeat at period/k, that repetition first: 'that mostly
    rises and falls every 1.0 year, its pattern repeating every 4.0 years'."""
    return (
        f"that mostly rises and falls every {format_span(period / k, axis)}, its pattern"
        f" repeating every {format_span(period, axis)}"
    )


def modulator_phrases(parts: Factors, axis: Axis) -> list[str]:
    """The cycles that multiply a periodic term's leading one: 'a periodic function with a
    period of 10 years'."""
    return [f"{extra.noun} with {_period_text(extra, axis)}" for extra in parts.periodic[1:]]


def _head_phrase(
    parts: Factors,
    axis: Axis,
    direction: str | None,
    x_data: np.ndarray | None = None,
    harmonic: int | None = None,
    bend: str | None = None,
) -> tuple[str, list[str]]:
    """The determiner, premodifiers and head noun, and the head's own postmodifiers (a
    cycle's repetition as :func:`_repetition` states it; a linear term whose fitted slope
    changes, ``bend``, as :func:`bent_trend` words it)."""
    head = parts.head
    if head == "noise":
        return "uncorrelated noise", []
    lead = parts.lead
    if head == "periodic" and lead is not None:
        slow, repetition = _repetition(parts, axis, x_data, harmonic)
        noun = slow or (lead.approximate_noun if parts.smooth else lead.noun)
        post = [repetition]
        post += [f"modulated by {m}" for m in modulator_phrases(parts, axis)]
        return noun, post
    if head == "smooth" and lead is not None:
        return lead.noun, [lead.modifier] if lead.modifier else []
    if head == "linear":
        degree = len(parts.lin)
        if degree == 1 and direction == "flat":  # flat where it applies: a level, or a step
            return ("a constant level" if parts.gates else "a nearly flat linear trend"), []
        if degree == 1 and bend is not None:
            return bent_trend(bend)
        if degree == 1 and direction in ("increasing", "decreasing"):
            return f"a linearly {direction} function", []
        return DEGREE_NOUNS.get(degree, f"a polynomial of degree {degree}"), []
    return "a constant", []


def bent_trend(bend: str) -> tuple[str, list[str]]:
    """A trend whose fitted curve's slope changes where it applies (``curves.trend_bend``: 'rises
    ever faster'), in words that claim no straight line, as a noun and its clause: 'a trend'
    'that rises ever faster'."""
    return "a trend", [f"that {bend}"]


def of_input(noun: str, name: str) -> str:
    """A head noun with the input it is a function of: 'a smooth function of weight', 'a
    linear function of year' (for 'a linear trend'), 'a sinusoid in month'."""
    if noun == DEGREE_NOUNS[1]:
        noun = "a linear function"
    return f"{noun} {'in' if noun.endswith('sinusoid') else 'of'} {name}"


def _join_modifiers(post: Sequence[str]) -> str:
    """Join postmodifiers with 'and', dropping a repeated leading 'with'; a participle
    ('modulated by ...') after another modifier follows a comma: 'a periodic function with a
    period of 1.0 year, modulated by a periodic function with a period of 10 years'."""
    text = ""
    for i, item in enumerate(post):
        if i == 0:
            text = item
            continue
        previous = post[i - 1]
        if item.startswith("modulated by "):
            text += f"{' and' if previous.startswith('modulated by ') else ','} {item}"
            continue
        if item.startswith("with ") and previous.startswith("that "):
            text += f", {item}"  # after a clause of its own: '..., with increasing amplitude'
            continue
        if item.startswith("with ") and previous.startswith("with "):
            item = item[len("with ") :]
        text += f" and {item}"
    return text


def _applies_clause(gates: Sequence[BaseKernel], axis: Axis, x_data: np.ndarray | None) -> str:
    """'until 1643', 'from 1716 onwards', 'between 1645 and 1715', 'before 1645 and after 1715'
    (of the data: an interval wholly outside it is not mentioned, nor an end beyond it)."""
    return on_clause(stated_intervals(gates, x_data), axis, x_data)


def on_clause(on: Sequence[Interval], axis: Axis, x_data: np.ndarray | None) -> str:
    """The clause for where a component applies, given as intervals (``_applies_clause``)."""
    spacing = data_spacing(x_data)
    if not on:
        return "is switched off everywhere"

    span = data_range(x_data)

    def at(x: float, s: float) -> str:
        return place_in_data(x, axis, span, switch_precision(s, spacing))

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


def gradual_clause(
    profile: tuple[np.ndarray, np.ndarray],
    axis: Axis,
    x_data: np.ndarray,
    side: int = 0,
    reference: str = "zero",
    cycle: bool = False,
    from_curve: bool = False,
) -> str:
    """The relative clause of change factors that scale a component gradually, said from
    ``profile`` (x, size): the component's own curve (``curves.size_profile``), or with no
    curve the gates' amplitude (``factors.gate_profile``). A size that only grows or shrinks
    is said in words no reader takes for a direction it does not have: a cycle's 'amplitude
    grows' or 'shrinks'; a level on one ``side`` of the ``reference`` (``curves.level_side``)
    'rises towards the series' mean' or 'falls further below' it; one crossing it, or with no
    curve, 'whose size grows'. Else where it is strongest ('which is strongest around
    August 2010') or weakest; '' for a curve (``from_curve``) that is no cycle and crosses the
    reference (``side`` 0), whose |m| is least where it crosses, no weakening."""
    xs, amplitude = profile
    trend = classify_trend(amplitude, DIP_TOLERANCE)
    if trend in ("increasing", "decreasing"):
        grows = trend == "increasing"
        if cycle:
            return f"whose amplitude {'grows' if grows else 'shrinks'} across the data"
        if side == 0:
            return f"whose size {'grows' if grows else 'shrinks'} across the data"
        if grows:
            way = "rises further above" if side > 0 else "falls further below"
        else:
            way = "falls towards" if side > 0 else "rises towards"
        return f"which {way} {reference} across the data"
    peak = int(np.argmax(amplitude))
    if 0 < peak < amplitude.size - 1:
        where = format_position(xs[peak], axis, coarse_precision(x_data))
        return f"which is strongest around {where}"
    if from_curve and side == 0 and not cycle:  # the dip is where it crosses the reference
        return ""
    low = xs[int(np.argmin(amplitude))]  # the largest at an end: the dip is inside
    return f"which is weakest around {format_position(low, axis, coarse_precision(x_data))}"


def _noise_sum_phrase(kernel: Kernel, x_data: np.ndarray | None) -> str:
    """'uncorrelated noise', with how its standard deviation changes when it does."""
    if not any(t.lin or t.gates for t in noise_terms(kernel)):
        return "uncorrelated noise"
    span = data_range(x_data)
    profile = noise_profile(kernel, span) if span else None
    trend = classify_trend(profile, DIP_TOLERANCE) if profile is not None else None
    if trend in ("increasing", "decreasing"):
        return f"uncorrelated noise with {trend} standard deviation"
    overall = overall_direction(profile) if profile is not None else None
    if overall:
        return f"uncorrelated noise with standard deviation {overall} overall"
    return "uncorrelated noise with varying standard deviation"


def _gathered_phrase(
    g: Gathered,
    axis: Axis,
    x_data: np.ndarray | None,
    direction: str | None,
    input_name: str | None,
    amplitude: str | None = None,
    harmonic: int | None = None,
    bend: str | None = None,
) -> str:
    """The phrase of a gathered component: its leading term's head ('a periodic function with
    a period of 1.0 year', a polynomial of the terms' largest degree), how a cycle's amplitude
    changes, where a smooth function's or a trend's sides switch ('which changes character
    around 1715 and 1794': ``gathered_sides``), and where the terms together apply."""
    if g.head == "linear":
        degree = g.degree
        if degree == 1 and bend is not None:
            noun, post = bent_trend(bend)
        elif degree == 1 and direction in ("increasing", "decreasing"):
            noun, post = f"a linearly {direction} function", []
        else:
            noun, post = DEGREE_NOUNS.get(degree, f"a polynomial of degree {degree}"), []
    else:
        noun, post = _head_phrase(g.lead, axis, direction, x_data, harmonic)
        if g.head == "periodic":
            others = [m for t in g.telling for m in modulator_phrases(t, axis)]
            post += [
                f"modulated by {m}"
                for m in dict.fromkeys(others)
                if f"modulated by {m}" not in post
            ]
        modifier = amplitude_modifier(g, amplitude)
        if modifier.startswith("with "):  # beside the period, before any modulation
            post.insert(1 if post else 0, modifier)
    if input_name is not None:
        noun = of_input(noun, input_name)
    phrase = " ".join([noun, _join_modifiers(post)]).strip()
    modifier = amplitude_modifier(g, amplitude)
    modulated = any(item.startswith("modulated by ") for item in post)
    joined = modifier.startswith("whose ") and not modulated  # a modulation says it changes
    if joined:
        phrase += f"{_clause_joint(post)}{modifier}"
    character = character_clause(g, axis, x_data)  # a smooth or polynomial sum's sides switch
    if character:
        phrase += f"{_clause_joint(post)}{character}"
        joined = True
    clause = on_clause(g.on, axis, x_data)
    if clause:
        phrase += f" and {clause}" if joined else f"{_clause_joint(post)}which {clause}"
    return phrase


def _clause_joint(post: Sequence[str]) -> str:
    """What joins a relative clause ('which applies ...', 'whose amplitude ...') to a phrase:
    a space, or ', and ' after a clause of the cycle's own ('that mostly rises and falls every
    1.0 year, its pattern repeating every 4.0 years, and which is strongest around 1975')."""
    return ", and " if any(item.startswith("that ") for item in post) else " "


def noun_phrase(
    kernel: Kernel,
    axis: Axis,
    *,
    x_data: np.ndarray | None = None,
    direction: str | None = None,
    input_name: str | None = None,
    amplitude: str | None = None,
    strength: tuple[np.ndarray, np.ndarray] | None = None,
    side: int = 0,
    reference: str = "zero",
    harmonic: int | None = None,
    bend: str | None = None,
    rough: bool | None = None,
    plateau: bool = True,
) -> str:
    """One noun phrase for a product of base kernels, e.g. 'an approximately periodic function
    with a period of 1.0 year and linearly increasing amplitude'; ``amplitude``: how a cycle's
    amplitude moves on its fitted curve (``curves.amplitude_trend``), which the words on its
    amplitude follow where the kernel's factors alone would say otherwise; ``strength``: its
    fitted curve's size across the data (``curves.size_profile``), which words a gradual
    change ('rises towards the series' mean across the data') instead of the gates' own
    amplitude, with ``side``, the side of the ``reference`` its level keeps
    (``curves.level_side``; ``reference``: what levels are measured from, in words);
    ``harmonic``: the k at whose period/k what a cycle fits mostly repeats
    (``curves.repeat_harmonic``), which its heading says before its period; ``bend``: how a
    linear term's fitted slope changes where it applies (``curves.trend_bend``), which keeps
    it from being called linear, whether or not ``direction`` is said; ``rough``: whether it is
    said as irregular variation (``rough_cycle.said_as_rough``, from its fitted curve), else
    as the kernel alone tells (``is_rough_cycle``); ``plateau``: whether a switched constant
    keeps a flat stretch where it applies (``level_text.unsteady_level_sentences``), else it is
    'a level'.

    ``x_data`` tells whether a linear factor's amplitude grows or shrinks across the data
    and whether change factors switch it there, and sets the precision of dates;
    ``direction`` ("increasing"/"decreasing", from the posterior mean) names the direction of
    a linear trend. ``input_name`` names the input the function is of, after its head noun
    ('a smooth function of weight'), in a model of several inputs.
    """
    if is_rough_cycle(kernel, x_data) if rough is None else rough:
        return ROUGH_PHRASE
    parts = factors_of(kernel, x_data)
    if parts is None:
        if noise_terms(kernel):
            return _noise_sum_phrase(kernel, x_data)
        together = gathered(kernel, x_data)
        if together is not None:
            return _gathered_phrase(
                together, axis, x_data, direction, input_name, amplitude, harmonic, bend
            )
        return f"a function with covariance {kernel.structure}"
    noun, post = _head_phrase(parts, axis, direction, x_data, harmonic, bend)
    if input_name is not None and parts.head not in ("noise", "constant"):
        noun = of_input(noun, input_name)
    x_range = data_range(x_data)
    if parts.lin and parts.head != "linear":
        what = "standard deviation" if parts.head == "noise" else "amplitude"
        curve = amplitude if parts.head == "periodic" else None
        post.append(_lin_modifier(parts.lin, what, x_range, curve))
    phrase = " ".join([noun, _join_modifiers([p for p in post if p])]).strip()
    if parts.gates:
        if x_data is not None and is_gradual(parts.gates, x_data):
            if parts.head == "constant":  # scaled gradually, it is no constant: a level
                phrase = phrase.replace("a constant", "a level", 1)
            profile = strength or gate_profile(parts.gates, x_data)
            cycle = parts.head == "periodic"
            clause = gradual_clause(
                profile, axis, x_data, side, reference, cycle, from_curve=strength is not None
            )
            phrase += f"{_clause_joint(post)}{clause}" if clause else ""
        else:
            if parts.head == "constant" and not plateau:  # switched, but never flat: a level
                phrase = phrase.replace("a constant", "a level", 1)
            clause = _applies_clause(parts.gates, axis, x_data)
            if clause:
                phrase += f"{_clause_joint(post)}which {clause}"
    return phrase
