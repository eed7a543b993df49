"""Whether the data pin a level down, and whether it is one: a level m whose band m ± 2·sd
(its posterior standard deviation where it is largest within the data) holds zero is
consistent with no level at all (the other components taking its place), and the report says
so beside the number rather than state it as a finding; a switched level with no flat stretch
where it applies is said by how far it reaches and when, not as a level with steps."""

from __future__ import annotations

import numpy as np

from abcd_cli.decompose.facts import Axis, ComponentFacts
from abcd_cli.reporting.curves import applied_part
from abcd_cli.reporting.trends import coarse_precision, data_range
from abcd_cli.reporting.wording import format_amount, format_position

#: The band's half-width in posterior standard deviations, as the figures draw it.
BAND_SDS = 2.0
#: A band whose half-width is more than this share of the level is said to be wide.
LOOSE_SHARE = 0.5


def zero_band_sentences(facts: ComponentFacts, axis: Axis, x_data: np.ndarray | None) -> list[str]:
    """'Its band ... includes zero' for a level whose largest |m| within the data lies within
    ``BAND_SDS`` posterior standard deviations of zero; '... is wide' for one whose band's
    half-width exceeds ``LOOSE_SHARE`` of it; [] otherwise."""
    x = np.asarray(facts.x_grid, dtype=float)
    if not x.size or facts.sd.size != x.size:
        return []
    span = data_range(x_data)
    inside = np.ones(x.shape, dtype=bool) if span is None else (x >= span[0]) & (x <= span[1])
    if not inside.any():
        return []
    k = np.flatnonzero(inside)[int(np.argmax(np.abs(facts.mean[inside])))]
    level, sd = float(facts.mean[k]), float(facts.sd[k])
    low, high = level - BAND_SDS * sd, level + BAND_SDS * sd
    band = f"Its band of two standard deviations, from about {format_amount(low, axis)} to"
    if abs(level) < BAND_SDS * sd:
        return [
            f"{band} {format_amount(high, axis)}, includes zero: the data are consistent with"
            " no such level (the other components can take its place), so its size is uncertain."
        ]
    if BAND_SDS * sd > LOOSE_SHARE * abs(level):
        return [
            f"{band} {format_amount(high, axis)}, is wide: the data pin its size down only"
            " loosely (the other components can take part of it)."
        ]
    return []


#: A level switched on and off has a plateau, and is said as a level with steps, when its
#: median where it applies is within this share of its extreme there, and it stays that
#: close to its extreme over at least ``PLATEAU_SPAN`` of the interval where it applies.
PLATEAU_SHARE = 0.1
#: See ``PLATEAU_SHARE``: a dip whose bottom fills less of its interval is a bell, not a step.
PLATEAU_SPAN = 2.0 / 3.0


def unsteady_level_sentences(
    facts: ComponentFacts, axis: Axis, x_data: np.ndarray | None
) -> list[str]:
    """A switched level with no plateau where it applies: its median m̃ there short of its
    extreme m* by more than ``PLATEAU_SHARE`` of it, (|m*| − |m̃|) > share·|m*|, or within
    that share of m* over less than ``PLATEAU_SPAN`` of the interval (its switches take up
    much of its interval: internet's 12.7-day holiday dip, switched over 6.4 days each way,
    is a bell). How far it reaches and when, in place of a level and its steps; [] when it
    has its plateau."""
    x, mean = applied_part(facts, x_data)
    if mean.size < 3:
        return []
    k = int(np.argmax(np.abs(mean)))
    top = abs(float(mean[k]))
    if top <= 0.0:
        return []
    near = np.abs(mean) >= (1.0 - PLATEAU_SHARE) * top
    flat_span = float(np.ptp(x[near])) / float(np.ptp(x)) if np.ptp(x) > 0 else 1.0
    if top - abs(float(np.median(mean))) <= PLATEAU_SHARE * top and flat_span >= PLATEAU_SPAN:
        return []
    when = format_position(x[k], axis, coarse_precision(x_data))
    return [
        "Its switches take up much of the interval where it applies, so it has no flat stretch"
        f" there: it reaches about {format_amount(mean[k], axis)} around {when}."
    ]
