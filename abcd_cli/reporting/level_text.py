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


def zero_band_sentences(facts: ComponentFacts, axis: Axis, x_data: np.ndarray | None) -> list[str]:
    """'Its band ... includes zero' for a level whose largest |m| within the data lies within
    ``BAND_SDS`` posterior standard deviations of zero; [] otherwise."""
    x = np.asarray(facts.x_grid, dtype=float)
    if not x.size or facts.sd.size != x.size:
        return []
    span = data_range(x_data)
    inside = np.ones(x.shape, dtype=bool) if span is None else (x >= span[0]) & (x <= span[1])
    if not inside.any():
        return []
    k = np.flatnonzero(inside)[int(np.argmax(np.abs(facts.mean[inside])))]
    level, sd = float(facts.mean[k]), float(facts.sd[k])
    if abs(level) >= BAND_SDS * sd:
        return []
    low, high = level - BAND_SDS * sd, level + BAND_SDS * sd
    return [
        f"Its band of two standard deviations, from about {format_amount(low, axis)} to"
        f" {format_amount(high, axis)}, includes zero: the data are consistent with no such"
        " level (the other components can take its place), so its size is uncertain."
    ]
