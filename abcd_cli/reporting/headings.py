"""The noun phrase a component of a series is called by: its kernel's words
(``phrases.noun_phrase``) corrected by what its fitted curve shows. The heading, the summary's
bullet and the paragraph's opening all take it from here, so they never disagree."""

from __future__ import annotations

import numpy as np

from abcd_cli.decompose.facts import Axis, ComponentFacts
from abcd_cli.reporting.curves import (
    amplitude_trend,
    level_side,
    repeat_harmonic,
    size_profile,
    trend_bend,
)
from abcd_cli.reporting.data_checks import unshown_bend
from abcd_cli.reporting.level_text import unsteady_level_sentences
from abcd_cli.reporting.phrases import noun_phrase
from abcd_cli.reporting.rough_cycle import FLAT_PHRASE, is_flat_cycle, said_as_rough


def curve_phrase(
    facts: ComponentFacts,
    axis: Axis,
    x_data: np.ndarray | None,
    *,
    direction: str | None,
    input_name: str | None = None,
    reference: str = "zero",
) -> str:
    """The component's noun phrase: a cycle whose curve is flat is 'a periodic part the data
    give no shape'; a constant switched on whose curve has no flat stretch where it applies
    (``level_text.unsteady_level_sentences``) is 'a level', not 'a constant'; otherwise
    ``noun_phrase`` with the readings of its curve."""
    if is_flat_cycle(facts, x_data):
        return FLAT_PHRASE
    return noun_phrase(
        facts.kernel,
        axis,
        x_data=x_data,
        direction=direction,
        input_name=input_name,
        amplitude=amplitude_trend(facts, x_data),
        strength=size_profile(facts, x_data),
        side=level_side(facts, x_data),
        reference=reference,
        harmonic=repeat_harmonic(facts, x_data),
        bend=None if unshown_bend(facts, x_data) else trend_bend(facts, x_data),
        rough=said_as_rough(facts, x_data),
        plateau=not unsteady_level_sentences(facts, axis, x_data),
    )
