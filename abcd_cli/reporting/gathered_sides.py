"""Where a gathered smooth function or polynomial trend changes character: its terms are the
sides of change factors (CW(k₁, k₂) = k₁ × Outside + k₂ × Inside, CP(k₁, k₂) = k₁ × Before +
k₂ × After: thesis ch. 4) that switch within the data, so on each side it is a different
function. Said from the factors' own switches (inside the data only), with the lengths each
side varies over, and from the component's fitted curve, the step it makes at a switch in the
data's units; a window whose edges are too soft to switch (``factors.sharp_gates``) is said to
blend its sides.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from abcd_cli.decompose.facts import Axis, ComponentFacts
from abcd_cli.kernels import BaseKernel
from abcd_cli.reporting.factors import (
    Factors,
    product_lengthscale,
    sharp_gates,
    switch_precision,
)
from abcd_cli.reporting.gathered import Gathered, terms_on
from abcd_cli.reporting.trends import data_range, data_spacing, in_data_range
from abcd_cli.reporting.wording import format_amount, format_span, join_words, place_in_data

#: A step is measured across a switch, between x − h and x + h with h the larger of its width
#: (2 × steepness) and the curve's grid spacing, only when h is below this share of the
#: shortest length the terms on either side vary over: the curve cannot move that much by
#: itself over 2h, so the difference is the switch's.
STEP_REACH = 0.25
#: A step is said when it is at least this share of the curve's range over the data.
STEP_SHARE = 0.1


@dataclass(frozen=True)
class Switch:
    """A switch of a gathered component's change factor within the data: where (``at``), its
    steepness, what it belongs to ("window" or "point"), which edge of a window it is
    ("begins", "ends"; "" for a changepoint), and whether it switches (``sharp``) or its window
    only blends the sides (a soft window: ``at`` is then its location, ``width`` its width)."""

    at: float
    steepness: float
    kind: str
    edge: str
    sharp: bool
    width: float = 0.0


def _gate_switches(gate: BaseKernel, sharp: bool) -> list[Switch]:
    """A change factor's switches, from the intervals it declares itself on
    (``switched_on``): one finite end is a changepoint's location; two are a window's start
    and end, or, when its edges are soft, its middle and width."""
    ends = sorted(
        (float(end), float(steep))
        for low, high, low_steep, high_steep in gate.switched_on()  # type: ignore[attr-defined]
        for end, steep in ((low, low_steep), (high, high_steep))
        if math.isfinite(end)
    )
    if len(ends) == 1:
        return [Switch(ends[0][0], ends[0][1], "point", "", sharp)]
    (start, steep), (end, _) = ends[0], ends[-1]
    if not sharp:
        return [Switch(0.5 * (start + end), steep, "window", "", False, end - start)]
    return [
        Switch(start, steep, "window", "begins", True, end - start),
        Switch(end, steep, "window", "ends", True, end - start),
    ]


def side_switches(g: Gathered, x_data: np.ndarray | None) -> list[Switch]:
    """The switches of the gathered terms' change factors strictly inside the data, each once,
    in order; a sharp one only where the component stays on across it (where it switches on
    or off, ``Gathered.on`` says so)."""
    span = data_range(x_data)
    if span is None or g.head not in ("smooth", "linear"):
        return []
    found: dict[tuple[float, bool], Switch] = {}
    for term in g.terms:
        sharp = sharp_gates(term.gates, x_data)
        for gate in term.gates:
            for s in _gate_switches(gate, any(gate is k for k in sharp)):
                inside = span[0] < s.at < span[1]
                kept = any(i.low < s.at < i.high for i in g.on) if s.sharp else True
                if inside and kept:
                    found.setdefault((round(s.at, 9), s.sharp), s)
    return sorted(found.values(), key=lambda s: s.at)


def _lengths(terms: list[Factors]) -> list[float]:
    """The lengths the smooth terms vary over (their smooth factors' product's lengthscale)."""
    return sorted({product_lengthscale(t.smooth) for t in terms if t.smooth})


def _sides_text(g: Gathered, switches: list[Switch], axis: Axis, span: tuple[float, float]) -> str:
    """What each side varies over: 'inside the window and outside it alike it varies over
    about 19.5 years, each side a function of its own', or 'it varies over about 2.0 years
    inside the window and 8.0 years outside it'; a side is a function of its own when no term
    is on both there and on the side before it."""
    cuts = [span[0], *[s.at for s in switches], span[1]]
    on = [terms_on(g.terms, 0.5 * (a + b)) for a, b in zip(cuts, cuts[1:], strict=False)]
    own = all(not any(any(t is u for u in b) for t in a) for a, b in zip(on, on[1:], strict=False))
    tail = ", each side a function of its own" if own else ""
    if g.head != "smooth":
        return "it follows a separate trend on each side" if own else ""
    sides = [_lengths(terms) for terms in on]
    words = [join_words([format_span(v, axis) for v in side]) for side in sides]
    if not all(words):
        return ""
    window = len(switches) == 2 and [s.edge for s in switches] == ["begins", "ends"]
    if window and len(set(words)) == 1:
        return f"inside the window and outside it alike it varies over about {words[0]}{tail}"
    if len(set(words)) == 1:
        return f"on every side it varies over about {words[0]}{tail}"
    if window and words[0] == words[2]:
        return f"it varies over about {words[1]} inside the window and {words[0]} outside it{tail}"
    said_cuts = [place_in_data(c, axis, span) for c in cuts[1:-1]]
    labels = [f"before {said_cuts[0]}"]
    labels += [f"between {a} and {b}" for a, b in zip(said_cuts, said_cuts[1:], strict=False)]
    labels += [f"after {said_cuts[-1]}"]
    said = [f"about {w} {label}" for w, label in zip(words, labels, strict=True)]
    return f"it varies over {join_words(said)}{tail}"


def _steps(
    g: Gathered, switches: list[Switch], facts: ComponentFacts, x_data: np.ndarray | None
) -> list[tuple[Switch, float, float]]:
    """(switch, value before, value after) of the fitted curve across each sharp switch where
    a step can be measured (``STEP_REACH``) and is worth saying (``STEP_SHARE``)."""
    x, mean = in_data_range(facts, x_data)
    if x.size < 3:
        return []
    grid = float(np.max(np.diff(x)))
    spread = float(np.ptp(mean))
    out = []
    for s in switches:
        reach = max(2.0 * s.steepness, grid)
        lengths = _lengths(terms_on(g.terms, s.at - reach) + terms_on(g.terms, s.at + reach))
        if g.head == "smooth" and (not lengths or reach >= STEP_REACH * lengths[0]):
            continue
        if s.at - reach < x[0] or s.at + reach > x[-1]:
            continue
        before = float(np.interp(s.at - reach, x, mean))
        after = float(np.interp(s.at + reach, x, mean))
        if spread > 0 and abs(after - before) >= STEP_SHARE * spread:
            out.append((s, before, after))
    return out


def _where(switches: list[Switch], axis: Axis, x_data: np.ndarray | None) -> str:
    """'1715 and 1794' (sharp switches only), at the precision the data can place them."""
    span, spacing = data_range(x_data), data_spacing(x_data)
    return join_words(
        [place_in_data(s.at, axis, span, switch_precision(s.steepness, spacing)) for s in switches]
    )


def character_clause(g: Gathered, axis: Axis, x_data: np.ndarray | None) -> str:
    """The phrase's clause for a gathered component whose sides switch within the data:
    'which changes character around 1715 and 1794'; '' when none does."""
    sharp = [s for s in side_switches(g, x_data) if s.sharp]
    return f"which changes character around {_where(sharp, axis, x_data)}" if sharp else ""


def _what_switches(sharp: list[Switch], axis: Axis, x_data: np.ndarray | None) -> str:
    """'a window in time, which begins around 1714 and ends around 1794', 'a change point in
    time, which lies around 1950', in time order."""
    said = []
    for s in sharp:
        when = _where([s], axis, x_data)
        said.append(f"{s.edge} around {when}" if s.edge else f"lies around {when}")
    windows = any(s.kind == "window" for s in sharp)
    points = any(s.kind == "point" for s in sharp)
    many = sum(s.edge != "ends" for s in sharp) > 1
    what = {
        (True, False): "windows in time" if many else "a window in time",
        (False, True): "change points in time" if many else "a change point in time",
    }.get((windows, points), "change points in time")
    return f"{what}, which {join_words(said, 'and then')}"


def character_sentences(
    g: Gathered, facts: ComponentFacts, axis: Axis, x_data: np.ndarray | None
) -> list[str]:
    """Where the gathered sides switch, what each side varies over, and the step its fitted
    curve makes at each switch ('from about 5.1 to −17 around 1715'); of a soft window, that it
    blends its sides around its location. [] when no change factor switches in the data."""
    switches = side_switches(g, x_data)
    span = data_range(x_data)
    if not switches or span is None:
        return []
    out = []
    sharp = [s for s in switches if s.sharp]
    if sharp:
        text = f"Its terms are the sides of {_what_switches(sharp, axis, x_data)}"
        sides = _sides_text(g, sharp, axis, span)
        out.append(f"{text}: {sides}." if sides else f"{text}.")
        steps = _steps(g, sharp, facts, x_data)
        if steps:
            said = [
                f"from about {format_amount(b, axis)} to {format_amount(a, axis)} around"
                f" {_where([s], axis, x_data)}"
                for s, b, a in steps
            ]
            out.append(
                f"So at {'that switch' if len(steps) == 1 else 'those switches'} its curve"
                f" steps, in the units of {axis.y_name}: {join_words(said)}."
            )
    for s in (s for s in switches if not s.sharp):
        where = _where([s], axis, x_data)
        out.append(
            f"Around {where} the model passes gradually from one of its terms to another, over"
            f" about {format_span(2 * s.steepness, axis)} either way, rather than switching"
            " between them."
        )
        out += band_sentences(s, facts, axis, x_data)
    return out


#: A soft window's band is said when its median half-width within the window's reach differs
#: from that over the rest of the data by at least this factor.
BAND_RATIO = 1.5


def band_sentences(
    s: Switch, facts: ComponentFacts, axis: Axis, x_data: np.ndarray | None
) -> list[str]:
    """Of a soft window, how the band its figure draws (±2 posterior sd) differs within its
    reach, |x − location| ≤ width/2 + steepness, from the rest of the data, when the medians
    differ by ``BAND_RATIO`` (sulphuric: its band swells to ±68.6 around 1974, against ±11.2
    elsewhere, where the window lets in a term of far larger prior size); [] otherwise."""
    span = data_range(x_data)
    x = np.asarray(facts.x_grid, dtype=float)
    band = 2.0 * np.asarray(facts.sd, dtype=float)
    if span is None or band.size != x.size:
        return []
    data = (x >= span[0]) & (x <= span[1])
    near = data & (np.abs(x - s.at) <= 0.5 * s.width + s.steepness)
    rest = data & ~near
    if near.sum() < 3 or rest.sum() < 3:
        return []
    inside, outside = float(np.median(band[near])), float(np.median(band[rest]))
    if outside <= 0 or 1 / BAND_RATIO < inside / outside < BAND_RATIO:
        return []
    wider = inside > outside
    extreme = float(band[near].max() if wider else band[near].min())
    return [
        f"There the band its figure draws about its curve (two standard deviations) is"
        f" {'wider' if wider else 'narrower'} than elsewhere:"
        f" {'up' if wider else 'down'} to about ±{format_amount(extreme, axis)}, against about"
        f" ±{format_amount(outside, axis)} over the rest of the data."
    ]
