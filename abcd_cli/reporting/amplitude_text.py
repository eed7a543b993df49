"""A cycle's amplitude in words, as its fitted curve shows it (``curves.fitted_amplitudes``):
steady, or between what sizes it varies, where it is largest, what modulates it, and where a
change factor's switch makes it smallest."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from abcd_cli.decompose.facts import Axis
from abcd_cli.reporting.curves import Amplitudes, is_steady, switched_low
from abcd_cli.reporting.factors import switch_precision
from abcd_cli.reporting.trends import coarse_precision, data_range, data_spacing
from abcd_cli.reporting.wording import (
    format_amount,
    format_position,
    join_words,
    place_in_data,
)


def amplitude_sentence(
    amplitudes: Amplitudes, axis: Axis, x_data: np.ndarray | None, modulators: Sequence[str] = ()
) -> str:
    """A cycle's amplitude as its fitted curve shows it (:mod:`curves`): steady ('stays about
    1.3') only within ``AMPLITUDE_SHARE``, else between what sizes it varies, where it is
    largest (its largest swing: ``Amplitudes.swings``) and by what cycles it is ``modulated``
    ('a periodic function with a period of 10 years'); where a change factor's switch sets its
    smallest apart (``switched_low``), that it is smallest there, and the modulators' range
    elsewhere."""
    sizes = amplitudes.sizes
    lead = "Measured from its fitted curve, its amplitude (half its rise and fall within a period)"
    if amplitudes.steady:
        text = f"{lead} stays about {format_amount(amplitudes.typical, axis)} across the data"
        drift = amplitudes.drift
        if drift is None:
            return text + "."
        way = "grows" if drift[1] > drift[0] else "shrinks"
        return (
            f"{text}, though it {way} slowly, from about {format_amount(drift[0], axis)} at the"
            f" start of the data to about {format_amount(drift[1], axis)} at the end."
        )
    low, high = format_amount(float(sizes.min()), axis), format_amount(float(sizes.max()), axis)
    peak = float(amplitudes.swings[int(np.argmax(sizes))])  # the largest swing, in its window
    where = format_position(peak, axis, coarse_precision(x_data))
    text = f"{lead} varies between about {low} and {high} across the data, largest around {where}"
    verb = "modulates" if len(modulators) == 1 else "modulate"
    cause = f", as {join_words(list(modulators))} {verb} it" if modulators else ""
    segment = switched_low(amplitudes)
    if segment is None:
        return text + cause + "."
    rest = sizes[amplitudes.segment != segment]
    if is_steady(rest):
        elsewhere = f"elsewhere it stays about {format_amount(float(np.median(rest)), axis)}"
    else:
        elsewhere = (
            f"elsewhere it varies between about {format_amount(float(rest.min()), axis)} and"
            f" {format_amount(float(rest.max()), axis)}{cause}"
        )
    return (
        f"{text}. It is smallest, about {low}, {segment_words(amplitudes, segment, axis, x_data)},"
        f" where its change points switch it; {elsewhere}."
    )


def segment_words(
    amplitudes: Amplitudes, segment: int, axis: Axis, x_data: np.ndarray | None
) -> str:
    """'between 24 December 2004 and 5 January 2005', 'after February 1974', 'before ...': the
    stretch between switches that ``segment`` numbers, its ends as precisely as the switch
    sentences place them."""
    span, spacing = data_range(x_data), data_spacing(x_data)
    words = [
        place_in_data(x, axis, span, switch_precision(steep, spacing))
        for x, steep in amplitudes.cuts
    ]
    if segment == 0:
        return f"before {words[0]}"
    if segment == len(amplitudes.cuts):
        return f"after {words[-1]}"
    return f"between {words[segment - 1]} and {words[segment]}"
