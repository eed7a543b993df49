"""How big a component's noise is and how its standard deviation moves across the data, read
from its prior standard deviation σ(x) = √k(x, x) (``trends.noise_profile``): one size when
flat, a rise or a fall, or, when σ turns, its course through each turn (``turning_points``)."""

from __future__ import annotations

import numpy as np

from abcd_cli.decompose.facts import Axis, ComponentFacts
from abcd_cli.reporting.trends import (
    DIP_TOLERANCE,
    classify_trend,
    coarse_precision,
    data_range,
    noise_profile,
)
from abcd_cli.reporting.wording import format_amount, format_position, join_words

#: A turn of the standard deviation counts once it moves back by this share of its range.
TURN_SHARE = 0.15
#: A turn lies where its plateau begins: the first value within this share of the range of it.
PLATEAU = 0.002
#: After a turn, a stretch within ``STAY_SHARE`` of the range of its median, at least
#: ``STAY_SPAN`` of the data's span long, is said as staying there ('falls to about 0.00440
#: around 1714, stays there until 1794').
STAY_SHARE = 0.02
STAY_SPAN = 0.1
#: A course with more turns than this is said by its range alone.
MAX_TURNS = 3


def turning_points(values: np.ndarray, share: float = TURN_SHARE) -> list[int]:
    """The positions where ``values`` turn, in order: a zigzag filter from the first value
    that confirms a maximum (minimum) once the values fall (rise) from it by ``share`` of
    their range, ignoring smaller wiggles; a turn is placed where its plateau begins."""
    values = np.asarray(values, dtype=float)
    threshold = share * float(np.ptp(values))
    if threshold <= 0:
        return []
    turns: list[int] = []
    way, extreme = 0, 0  # the direction of the current leg (0: not yet known) and its end
    for i in range(1, values.size):
        move = values[i] - values[extreme]
        if way == 0:
            if abs(move) >= threshold:
                way, extreme = (1 if move > 0 else -1), i
        elif way * move > 0:
            extreme = i  # the leg goes on
        elif -way * move >= threshold:
            turns.append(extreme)
            way, extreme = -way, i
    # a turn on a plateau is placed where the plateau begins (within PLATEAU of its value)
    near = PLATEAU * float(np.ptp(values))
    starts = [0, *turns]
    return [
        a + int(np.flatnonzero(np.abs(values[a : t + 1] - values[t]) <= near)[0])
        for a, t in zip(starts, turns, strict=False)
    ]


def _stay(values: np.ndarray, start: int, end: int) -> tuple[float, int] | None:
    """The level and last position of a stretch just after ``start`` (before ``end``) whose
    values stay within ``STAY_SHARE`` of the range of their median, when it covers at least
    ``STAY_SPAN`` of the positions (the change factors' plateau, past a switch's brief dip);
    None otherwise."""
    tolerance = STAY_SHARE * float(np.ptp(values))
    length = int(STAY_SPAN * (values.size - 1))
    first = values[start + 1 : start + 1 + length]
    if first.size < length or end <= start + length or np.ptp(first) > 2 * tolerance:
        return None
    level = float(np.median(first))
    near = np.abs(values[start + 1 : end] - level) <= tolerance
    return level, start + (int(np.argmin(near)) if not near.all() else near.size)


def noise_sentence(
    facts: ComponentFacts, axis: Axis, x_data: np.ndarray | None, adverb: str | None
) -> str:
    """How big the noise is, and how its standard deviation changes across the data."""
    span = data_range(x_data) or (float(facts.x_grid[0]), float(facts.x_grid[-1]))
    sd = noise_profile(facts.kernel, span)
    lead = "Its values are independent from point to point"
    trend = classify_trend(sd, DIP_TOLERANCE)
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
    turns = turning_points(sd)
    if not turns or len(turns) > MAX_TURNS:
        return f"{lead}; its standard deviation ranges between about {low} and {high}."
    xs = np.linspace(span[0], span[1], sd.size)
    precision = coarse_precision(x_data)
    legs = []
    ends = [*turns, sd.size - 1]
    for k, (a, b) in enumerate(zip([0, *turns], ends, strict=True)):
        verb = "rises" if sd[b] > sd[a] else "falls"
        where = (
            "at the end of the data"
            if b == sd.size - 1
            else f"around {format_position(float(xs[b]), axis, precision)}"
        )
        start = (
            f" from about {format_amount(sd[a], axis)} at the start of the data" if k == 0 else ""
        )
        stay = _stay(sd, b, ends[k + 1]) if b < sd.size - 1 else None
        size = format_amount(sd[b] if stay is None else stay[0], axis)
        legs.append(f"{verb}{start} to about {size} {where}")
        if stay is not None:
            legs.append(f"stays there until {format_position(float(xs[stay[1]]), axis, precision)}")
    legs[-1] = f"then {legs[-1]}"
    return f"{lead}; its standard deviation {join_words(legs)}."
