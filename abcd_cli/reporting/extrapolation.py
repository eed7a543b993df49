"""What each component is assumed to do beyond the end of the data: a record of what kind of
continuation it is (``Extrapolation.kind``) with its sentence."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np

from abcd_cli.decompose.facts import Axis, ComponentFacts
from abcd_cli.reporting.curves import (
    FLAT_SHARE,
    amplitude_trend,
    applied_part,
    bend_words,
    fades_beyond,
    fitted_amplitudes,
    flat_in_band,
    slope_bend,
    swells_beyond,
    third_slopes,
    trend_shape,
)
from abcd_cli.reporting.data_checks import unshown_bend
from abcd_cli.reporting.factors import (
    Factors,
    Interval,
    factors_of,
    is_gradual,
    noise_terms,
    on_intervals,
    product_lengthscale,
    sharp_gates,
    switch_precision,
)
from abcd_cli.reporting.gathered import (
    Gathered,
    gathered,
    gathered_continuation,
    leading_cycle,
    smooth_continuation,
    terms_on,
)
from abcd_cli.reporting.numbers import format_number
from abcd_cli.reporting.phrases import (
    DEGREE_NOUNS,
    degree_adverb,
    modulator_phrases,
    seen_words,
)
from abcd_cli.reporting.rough_cycle import rough_cycle_continuation, said_as_rough
from abcd_cli.reporting.trends import (
    SLOW_CYCLES,
    coarse_precision,
    cycles_in_data,
    data_range,
    data_spacing,
    lin_trend,
)
from abcd_cli.reporting.wording import (
    format_amount,
    format_position,
    format_span,
    rate_unit,
)

#: What a component does past the data: keeps repeating its cycle, continues its trend or
#: curve, holds its level, eases back (a smooth term, a fading cycle: the forecast returns to
#: the long-run trend), stays switched off, stays unforecastable noise, or none of these said.
Kind = Literal["repeats", "continues", "holds", "returns", "off", "noise", "other"]


@dataclass(frozen=True)
class Extrapolation:
    """A component's continuation past the data: its ``kind``, the sentence saying it and,
    for a component said in words of its own in the forecast's assumptions (a level scaled
    gradually past the data), its ``clause`` there, with ``{name}`` for the component and
    ``{reference}`` for what its levels are measured from."""

    kind: Kind
    sentence: str
    clause: str = ""


def _noise_continuation(tail: str) -> str:
    """What noise does beyond the data, with ``tail`` on how its standard deviation changes."""
    return (
        "Beyond the data the noise stays uncorrelated: it widens the prediction intervals "
        f"but cannot itself be forecast{tail}."
    )


def fading_sentence(period: float, axis: Axis) -> str:
    """A cycle whose fitted curve shrinks past the data (:func:`curves.fades_beyond`)."""
    return (
        f"Beyond the data its fitted curve fades: the cycle of {format_span(period, axis)}"
        " dies away rather than repeating at its size, so the forecast holds less and less"
        " of it."
    )


def swelling(
    sentence: str, facts: ComponentFacts, period: float, axis: Axis, x_data: np.ndarray | None
) -> str:
    """A cycle's repeating ``sentence`` with how its fitted curve swells past the data, where it
    does (:func:`curves.swells_beyond`): 'keep repeating' alone would hide a forecast whose
    swings are several times those the data show."""
    sizes = swells_beyond(facts, period, x_data)
    if sizes is None:
        return sentence
    end = format_position(float(facts.x_grid[-1]), axis, coarse_precision(x_data))
    seen = fitted_amplitudes(facts, period, x_data)
    largest = float(seen.sizes.max()) if seen is not None and seen.sizes.size else 0.0
    beyond = (
        f", {format_number(sizes[1] / largest, 2)} times the largest the data show"
        f" ({format_amount(largest, axis)}): that growth is the model's form carried on"
        if largest > 0 and sizes[1] >= 1.5 * largest
        else ""
    )
    return (
        f"{sentence[:-1]}; on its fitted curve its swings grow past the data, from about"
        f" {format_amount(sizes[0], axis)} over the data's last period to about"
        f" {format_amount(sizes[1], axis)} by {end}{beyond}."
    )


def bent_continuation(facts: ComponentFacts, axis: Axis, x_data: np.ndarray | None) -> str | None:
    """What a trend's fitted curve does past the data when it is no straight line there: the
    slope b of its last third within the data (``curves.third_slopes``) against that of the
    last third of its forecast; when they differ by more than ``curves.SLOPE_SHARE``
    (``curves.slope_bend``), that it keeps bending, with both slopes; when only the curve
    within the data bends, that it goes on at the slope it ends the data with; None for a
    curve that keeps one slope throughout (or with no forecast to read)."""
    span = data_range(x_data)
    x, mean = np.asarray(facts.x_grid, dtype=float), np.asarray(facts.mean, dtype=float)
    inside = applied_part(facts, x_data)
    shape = trend_shape(*inside)
    if span is None or shape is None or shape.flat:
        return None
    beyond = x > span[1]
    ahead = third_slopes(x[beyond], mean[beyond]) if beyond.sum() >= 6 else None
    late = shape.slopes[1]
    unit, size = rate_unit(float(inside[0][-1] - inside[0][0]), axis)

    def rate(b: float) -> str:
        return f"about {format_amount(abs(b) * size, axis)} per {unit}"

    bend = slope_bend((late, ahead[1])) if ahead is not None else None
    if ahead is not None and bend is not None:
        caveat = (
            " The data do not show that bend (its paragraph says so): the forecast carries on"
            " the model's form."
            if unshown_bend(facts, x_data) is not None
            else ""
        )
        return (
            "Beyond the data it is assumed to follow its fitted curve, which keeps bending: it"
            f" {bend_words(ahead[1], bend)}, from {rate(late)} at the end of the data to"
            f" {rate(ahead[1])} by the end of the forecast." + caveat
        )
    if shape.bend is None:
        return None
    return (
        f"Beyond the data it is assumed to go on at the slope it ends the data with, {rate(late)}."
    )


def _continuation(
    parts: Factors, axis: Axis, x_data: np.ndarray | None, facts: ComponentFacts | None = None
) -> Extrapolation:
    """What the component does beyond the data while it is switched on."""
    head = parts.head
    lin = parts.lin
    verb = {"increasing": "growing", "decreasing": "shrinking"}.get(
        lin_trend(lin, data_range(x_data)) or "", "changing"
    )
    change = f"{verb} {degree_adverb(len(lin))}"
    if head == "noise":
        return Extrapolation(
            "noise",
            _noise_continuation(f", and its standard deviation keeps {change}" if lin else ""),
        )
    if head == "periodic":
        main = parts.periodic[0]
        if facts is not None and fades_beyond(facts, main.param("period"), x_data):
            return Extrapolation("returns", fading_sentence(main.param("period"), axis))
        period = format_span(main.param("period"), axis)
        text = f"Beyond the data it is assumed to keep repeating every {period}"
        if parts.smooth:
            span = format_span(product_lengthscale(parts.smooth), axis)
            text += f", its exact shape becoming less certain beyond about {span} from the data"
        if lin:
            # 'still' only where the fitted curve's amplitude moved that way over the data
            steady = facts is not None and amplitude_trend(facts, x_data) == "flat"
            text += f", with its amplitude {'' if steady else 'still '}{change}"
        text += "."
        if facts is not None and len(parts.periodic) == 1:  # a modulated one swells anyway
            text = swelling(text, facts, main.param("period"), axis, x_data)
        return Extrapolation("repeats", text)
    if head == "smooth":
        span = format_span(product_lengthscale(parts.smooth), axis)
        return Extrapolation("returns", smooth_continuation(span))
    if head == "linear":
        bending = bent_continuation(facts, axis, x_data) if facts is not None else None
        if len(lin) == 1 and bending:
            return Extrapolation("continues", bending)
        if len(lin) == 1:
            return Extrapolation(
                "continues",
                "The linear trend is assumed to continue beyond the data with the same slope.",
            )
        shape = DEGREE_NOUNS.get(len(lin), "the polynomial").replace("a ", "the ", 1)
        return Extrapolation(
            "continues", f"Beyond the data {shape} is assumed to continue along the same curve."
        )
    return Extrapolation("holds", "The constant level is assumed to stay the same beyond the data.")


def _modulating_at_end(g: Gathered, axis: Axis, x_data: np.ndarray | None) -> list[str]:
    """The cycles multiplying a gathered cycle's terms that are on at the data's end
    (``gathered.terms_on``), each once."""
    on = (
        terms_on(g.telling, float(np.max(x_data)))
        if x_data is not None and len(x_data)
        else g.telling
    )
    return list(dict.fromkeys(m for t in on for m in modulator_phrases(t, axis)))


def describe_extrapolation(
    facts: ComponentFacts, axis: Axis, *, x_data: np.ndarray | None = None
) -> str:
    """One sentence on what the component is assumed to do beyond the end of the data."""
    return extrapolation_record(facts, axis, x_data=x_data).sentence


def extrapolation_record(
    facts: ComponentFacts, axis: Axis, *, x_data: np.ndarray | None = None
) -> Extrapolation:
    """What the component is assumed to do beyond the end of the data: its kind and sentence;
    a cycle of which the data hold fewer than ``SLOW_CYCLES`` periods says that its repeating
    is the model's assumption, not what the data show."""
    record = _record(facts, axis, x_data)
    cycle = leading_cycle(facts.kernel, x_data)
    if record.kind != "repeats" or cycle is None:
        return record
    seen = cycles_in_data(cycle.periodic[0].param("period"), x_data)
    if seen is None or seen >= SLOW_CYCLES:
        return record
    return Extrapolation(
        "repeats",
        f"{record.sentence} The data hold {seen_words(seen)} of it, so that it repeats is"
        " the model's assumption, not something the data show.",
    )


def _record(facts: ComponentFacts, axis: Axis, x_data: np.ndarray | None) -> Extrapolation:
    """:func:`extrapolation_record` before a slow cycle's caveat."""
    if said_as_rough(facts, x_data):
        fades, sentence = rough_cycle_continuation(facts, axis, x_data)
        if flat_in_band(facts):  # the assumptions say what its figure shows, as it does
            return Extrapolation("other", sentence, "{name} stays flat at zero")
        return Extrapolation("returns" if fades else "other", sentence)
    parts = factors_of(facts.kernel)
    if parts is None and noise_terms(facts.kernel):
        if any(t.lin or t.gates for t in noise_terms(facts.kernel)):
            return Extrapolation(
                "noise",
                _noise_continuation(
                    f", and its standard deviation keeps changing with {axis.x_name} as it does "
                    "over the data"
                ),
            )
        return Extrapolation("noise", _noise_continuation(""))
    together = gathered(facts.kernel, x_data) if parts is None else None
    if together is not None:
        last = together.on[-1] if together.on else None
        if last is not None and math.isfinite(last.high):
            return Extrapolation("off", _switched_off_from(last, axis, x_data))
        period = together.ending.periodic[0].param("period") if together.head == "periodic" else 0
        if period and fades_beyond(facts, period, x_data):
            return Extrapolation("returns", fading_sentence(period, axis))
        kind: Kind = {"periodic": "repeats", "smooth": "returns"}.get(together.head, "continues")  # type: ignore[assignment]
        cycles = _modulating_at_end(together, axis, x_data) if period else []
        text = gathered_continuation(together, facts, axis, cycles)
        if period and not cycles:  # one that follows modulating cycles swells with them
            text = swelling(text, facts, period, axis, x_data)
        return Extrapolation(kind, text)
    if parts is None:
        return Extrapolation(
            "other",
            "Beyond the data it follows its covariance function; no simple summary is given.",
        )
    if parts.gates and is_gradual(parts.gates, x_data):
        if parts.head == "constant":
            moving = _scaled_level(facts, axis, x_data)
            if moving is not None:
                return moving
        going = _continuation(parts, axis, x_data, facts)
        return Extrapolation(
            going.kind,
            going.sentence
            + " Its change points keep scaling it gradually beyond the data, as over it.",
        )
    if parts.gates:
        on = on_intervals(sharp_gates(parts.gates, x_data))
        if not on:
            return Extrapolation(
                "off", "It is switched off everywhere, so it adds nothing beyond the data."
            )
        last = on[-1]
        if math.isfinite(last.high):
            return Extrapolation("off", _switched_off_from(last, axis, x_data))
    return _continuation(parts, axis, x_data, facts)


def _switched_off_from(last: Interval, axis: Axis, x_data: np.ndarray | None) -> str:
    """The sentence for a component whose last interval ends at ``last.high``."""
    when = format_position(last.high, axis, switch_precision(last.high_steep, data_spacing(x_data)))
    return (
        f"The model assumes it stays switched off from {when} onwards, so it adds "
        "nothing to forecasts beyond that point."
    )


def _scaled_level(
    facts: ComponentFacts, axis: Axis, x_data: np.ndarray | None
) -> Extrapolation | None:
    """A level that gradual change factors keep scaling past the data, as its fitted curve
    shows it there: from m(x_N) at the data's last x to m at the end of the grid (gas
    production's level read 'assumed to stay the same beyond the data' beside a curve rising
    on towards the series' mean); None when the curve does not reach past the data."""
    span = data_range(x_data)
    x, mean = np.asarray(facts.x_grid, dtype=float), np.asarray(facts.mean, dtype=float)
    if span is None or x.size < 2 or x[-1] <= span[1]:
        return None
    at_end, far = float(np.interp(span[1], x, mean)), float(mean[-1])
    top = max(abs(at_end), abs(far))
    if top <= 0.0 or abs(far - at_end) <= FLAT_SHARE * top:
        return Extrapolation(
            "holds", "The level is assumed to stay about the same beyond the data."
        )
    when = format_position(float(x[-1]), axis, data_spacing(x_data))
    towards = abs(far) < abs(at_end)
    amounts = (
        f"from about {format_amount(at_end, axis)} at the end of the data to about"
        f" {format_amount(far, axis)} by {when}"
    )
    return Extrapolation(
        "returns" if towards else "continues",
        f"Beyond the data its change points keep scaling it, as over it: its level goes {amounts}.",
        f"the level of {{name}} {level_move(at_end, far)} {{reference}}, {amounts}",
    )


def level_move(start: float, end: float) -> str:
    """How a level measured from a reference moves from ``start`` to ``end``: 'rises towards'
    or 'falls towards' it when |m| shrinks, 'rises further above' or 'falls further below' it
    when |m| grows (the reference's name follows)."""
    if abs(end) < abs(start):
        return "rises towards" if start < 0 else "falls towards"
    return "rises further above" if end > 0 else "falls further below"
