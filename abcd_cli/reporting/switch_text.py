"""When a component switches on and off within the data, and a level's steps in the data's
units: the change factors' intervals (``factors.stated_intervals``) in time order, how long
each switch takes, and a switch that too few observations lie beyond to show it."""

from __future__ import annotations

import math

import numpy as np

from abcd_cli.decompose.facts import Axis, ComponentFacts
from abcd_cli.reporting.curves import applied_part
from abcd_cli.reporting.factors import Factors, Interval, stated_intervals, switch_precision
from abcd_cli.reporting.trends import data_range, data_spacing
from abcd_cli.reporting.wording import format_amount, format_span, join_words, place_in_data

#: A first or last switch with fewer observations than this beyond it is said to rest on them.
FEW_BEYOND = 6


def switch_sentences(parts: Factors, axis: Axis, x_data: np.ndarray | None) -> list[str]:
    """When the change factors switch the component on and off within the data, in time
    order."""
    return interval_sentences(stated_intervals(parts.gates, x_data), axis, x_data)


def interval_sentences(on: list[Interval], axis: Axis, x_data: np.ndarray | None) -> list[str]:
    """When a component switches on and off within the data, given where it is on."""
    if not on:
        return ["Its change points leave it switched off everywhere."]
    spacing = data_spacing(x_data)
    events: list[tuple[float, str, float]] = []
    for i in on:
        if math.isfinite(i.low):
            events.append((i.low, "switches on", i.low_steep))
        if math.isfinite(i.high):
            events.append((i.high, "switches off", i.high_steep))
    if not events:
        return []
    events.sort()
    span = data_range(x_data)
    places = [place_in_data(x, axis, span, switch_precision(s, spacing)) for x, _, s in events]
    words = [f"{verb} around {place}" for (_, verb, _), place in zip(events, places, strict=True)]
    widths = {2.0 * s for _, _, s in events}
    text = f"It {join_words(words, 'and then')}"
    width = max(widths)
    if spacing and width < spacing:
        how = "each switch is abrupt, quicker than the spacing of the data"
    elif len(events) == 1:
        how = f"the switch takes about {format_span(width, axis)}"
    else:
        how = f"each switch takes about {format_span(width, axis)}"
        if len(widths) > 1:
            how = f"each switch takes at most about {format_span(width, axis)}"
    return [f"{text}; {how}.", *_few_beyond([e[0] for e in events], places, x_data)]


def _few_beyond(at: list[float], places: list[str], x_data: np.ndarray | None) -> list[str]:
    """That the last (first) switch, at ``at[-1]`` (``at[0]``), has fewer than ``FEW_BEYOND``
    observations after (before) it, so the data barely show it (held-out wool: a cycle
    'switches off around January 1994' on the last two quarters, which still rise and fall as
    before); one sentence for a single switch."""
    if x_data is None:
        return []
    x = np.asarray(x_data, dtype=float)
    sides = [
        ("last", "after", int((x > at[-1]).sum()), places[-1]),
        ("first", "before", int((x < at[0]).sum()), places[0]),
    ]
    if len(at) == 1:  # one switch: only its scarcer side
        sides = [min(sides, key=lambda side: side[2])]
    return [
        f"Only the {side} {count} {'observation lies' if count == 1 else 'observations lie'}"
        f" {where} the switch ({place}): the data barely show it."
        for side, where, count, place in sides
        if count < FEW_BEYOND
    ]


def step_sentences(
    on: list[Interval],
    facts: ComponentFacts,
    axis: Axis,
    x_data: np.ndarray | None,
    y_data: np.ndarray | None = None,
) -> list[str]:
    """A level switched on or off within the data is a step: each switch's size and direction
    in the data's units (its level where it is on, measured from zero where it is off); with
    the data ``y_data``, the switches across which the data themselves move by less than half
    the step (``data_steps``)."""
    _, mean = applied_part(facts, x_data)
    if not len(mean) or not on:
        return []
    level = float(np.median(mean))
    size = format_amount(abs(level), axis)
    span, spacing = data_range(x_data), data_spacing(x_data)
    events = []
    for i in on:
        for x, steep, sign in ((i.low, i.low_steep, 1.0), (i.high, i.high_steep, -1.0)):
            if math.isfinite(x):
                way = "rise" if sign * level > 0 else "fall"
                when = place_in_data(x, axis, span, switch_precision(steep, spacing))
                events.append((x, f"a {way} of about {size} around {when}", when, steep))
    if not events:
        return []
    events.sort()
    words = [w for _, w, _, _ in events]
    out = [f"In the units of {axis.y_name} that is {join_words(words, 'and then')}."]
    return out + data_steps(events, abs(level), axis, x_data, y_data)


#: Either side of a switch, the data read over this share of their span (at least
#: ``STEP_POINTS`` observations) to see whether they step as the component does.
STEP_SHARE = 0.05
STEP_POINTS = 4


def data_steps(
    events: list[tuple[float, str, str, float]],
    step: float,
    axis: Axis,
    x_data: np.ndarray | None,
    y_data: np.ndarray | None,
) -> list[str]:
    """The switches across which the data's own mean moves by less than half the component's
    ``step``, read over ``STEP_SHARE`` of the span either side beyond the switch itself (held-
    out wool: 'a fall of about 1,140 around October 1971' while the data hold at about 7,040
    through 1972 and fall in 1973-75, other components undoing the step): that the date is the
    model's split, not a change the data show there."""
    if x_data is None or y_data is None or step <= 0:
        return []
    x, y = np.asarray(x_data, dtype=float), np.asarray(y_data, dtype=float)
    reach = STEP_SHARE * float(np.ptp(x))
    unshown = []
    for at, _, when, steep in events:
        before = (x < at - steep) & (x >= at - steep - reach)
        after = (x > at + steep) & (x <= at + steep + reach)
        if before.sum() < STEP_POINTS or after.sum() < STEP_POINTS:
            continue
        moved = float(y[after].mean() - y[before].mean())
        if abs(moved) < 0.5 * step:
            unshown.append((when, moved))
    if not unshown:
        return []
    said = join_words([f"by about {format_amount(m, axis)} around {w}" for w, m in unshown])
    return [
        f"The data themselves move only {said} (over {format_span(reach, axis)} either side):"
        " other components take up most of the step there, so where it falls is the model's"
        " way of splitting the data, not a change they show at that date."
    ]
