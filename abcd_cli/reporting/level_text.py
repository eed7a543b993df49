"""Whether the data pin a level down: a level m whose band m ± 2·sd (its posterior standard
deviation where it is largest within the data) holds zero is consistent with no level at all
(the other components taking its place), and the report says so beside the number rather than
state it as a finding."""

from __future__ import annotations

import numpy as np

from abcd_cli.decompose.facts import Axis, ComponentFacts
from abcd_cli.reporting.trends import data_range
from abcd_cli.reporting.wording import format_amount

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
