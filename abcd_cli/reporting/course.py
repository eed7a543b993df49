"""The course of a curve through its turns, in words: 'falls from about 0.344 at the start of
the data to about 0.166 around 1792 and then rises to about 0.842 at the end of the data'.
Turns are found by a zigzag filter (``turning_points``) that ignores wiggles smaller than a
share of the curve's range; a stretch that stays level after a turn is said as staying there."""

from __future__ import annotations

import numpy as np

from abcd_cli.decompose.facts import Axis
from abcd_cli.reporting.wording import format_amount, format_position

#: A turn counts once the curve moves back from it by this share of its range.
TURN_SHARE = 0.1
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
    # a turn on a plateau (within PLATEAU of its value over STAY_SPAN of the positions) is
    # placed where the plateau begins; a turn on a peak, at the peak
    near = PLATEAU * float(np.ptp(values))
    placed = []
    for a, t in zip([0, *turns], turns, strict=False):
        first = a + int(np.flatnonzero(np.abs(values[a : t + 1] - values[t]) <= near)[0])
        placed.append(first if t - first >= STAY_SPAN * (values.size - 1) else t)
    return placed


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


#: How the legs name the ends of a curve over the whole data.
DATA_ENDS = ("at the start of the data", "at the end of the data")


def course_legs(
    x: np.ndarray,
    values: np.ndarray,
    axis: Axis,
    precision: float | None,
    ends: tuple[str, str] = DATA_ENDS,
) -> list[str] | None:
    """The legs of the curve ``values`` on ``x`` through its turns ('rises from about A at the
    start of the data to about B around X', 'stays there until Y', ...), the last prefixed
    'then'; ``ends``: how its first and last points are placed; None when it has no turn or
    more than ``MAX_TURNS``."""
    turns = turning_points(values)
    if not turns or len(turns) > MAX_TURNS:
        return None
    stops = [*turns, values.size - 1]
    legs = []
    opening = _stay(values, 0, stops[0])  # level from the start before the first move
    if opening is not None and np.ptp(values[: opening[1] + 1]) > PLATEAU * np.ptp(values):
        opening = None  # a slow start of its first move, not a level
    if opening is not None:
        legs.append(
            f"stays about {format_amount(opening[0], axis)} {ends[0]} until"
            f" {format_position(float(x[opening[1]]), axis, precision)}"
        )
    for k, (a, b) in enumerate(zip([0, *turns], stops, strict=True)):
        verb = "rises" if values[b] > values[a] else "falls"
        where = (
            ends[1]
            if b == values.size - 1
            else f"around {format_position(float(x[b]), axis, precision)}"
        )
        start = (
            f" from about {format_amount(values[a], axis)} {ends[0]}"
            if k == 0 and opening is None
            else ""
        )
        stay = _stay(values, b, stops[k + 1]) if b < values.size - 1 else None
        size = format_amount(values[b] if stay is None else stay[0], axis)
        legs.append(f"{verb}{start} to about {size} {where}")
        if stay is not None:
            legs.append(f"stays there until {format_position(float(x[stay[1]]), axis, precision)}")
    legs[-1] = f"then {legs[-1]}"
    return legs
