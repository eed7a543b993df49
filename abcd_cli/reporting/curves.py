"""What a component's own fitted curve shows, measured so that the words about it can be
checked against it: a cycle's amplitude period by period, whether a trend is a straight line,
a flat level or a step, and whether a cycle keeps its size past the data.

The curve is the component's posterior mean on its grid (``ComponentFacts.x_grid``, ``mean``),
in the data's units. A cycle's amplitude in one window is half its rise and fall there,
a_k = (max m − min m) / 2 over the k-th window: windows of one period covering all of the
data, the last, partial period included, and none across a change factor's switch. Its
amplitude "stays about ā" only when (max a_k − min a_k) / max a_k ≤ ``AMPLITUDE_SHARE``;
otherwise the report says how it varies, between min a_k and max a_k, where its largest swing
is, and where a switch makes it smallest.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from abcd_cli.decompose.facts import Axis, ComponentFacts
from abcd_cli.decompose.periods import peaks_per_period, strongest_harmonic
from abcd_cli.kernels import Kernel
from abcd_cli.reporting.factors import STEADY_SHARE, factors_of, is_gradual, stated_intervals
from abcd_cli.reporting.gathered import gathered, leading_cycle
from abcd_cli.reporting.numbers import format_number
from abcd_cli.reporting.trends import (
    DIP_TOLERANCE,
    SLOW_CYCLES,
    classify_trend,
    cycles_in_data,
    data_range,
    in_data_range,
)
from abcd_cli.reporting.wording import format_span, number_word

#: The largest spread of a cycle's amplitudes over the data, as a share of the largest, for
#: which the report calls its amplitude steady ('stays about 1.3'): beyond it, it says how
#: the amplitude varies and between what sizes. The share within which change factors only
#: rescale a component (``factors.STEADY_SHARE``).
AMPLITUDE_SHARE = STEADY_SHARE
#: A steady amplitude whose fitted line moves by at least this share of it is said to drift.
DRIFT_SHARE = 0.1
#: A cycle whose amplitude over its last forecast period is below this share of its amplitude
#: over the last period of the data is said to fade beyond the data, not to keep repeating;
#: one above its inverse, to swell.
FADE_SHARE = 0.5
#: A trend is called linear only when a straight line explains at least this share of its
#: curve's variance where it applies (R² of the line fitted to the curve).
LINEAR_SHARE = 0.98
#: A trend is called linear only when, besides, the slopes of lines fitted to the first and
#: the last third of where it applies differ by at most this share of the larger: a curve
#: whose slope grows by half or more (call-centre's, 19 then 32 a year) is no straight line,
#: though a line explains 99% of its variance.
SLOPE_SHARE = 0.25
#: A trend whose straight-line change across the part of the data where it applies is below
#: this share of its level there is flat (a constant level, not a rising or falling line).
FLAT_SHARE = 0.05
#: Points of the grid a period must hold for its amplitude to be measured.
MIN_POINTS = 4
#: Equal windows across the data in which the size of a component that is not a cycle is
#: measured (``size_profile``).
SIZE_WINDOWS = 12
#: A fitted curve whose largest |m| at the data is below this share of its own mean posterior
#: sd is flat inside its band: its figure is a line at zero, with no shape to describe.
FLAT_IN_BAND = 1e-3


@dataclass(frozen=True)
class Amplitudes:
    """A cycle's amplitude in windows across the data (``cycle_amplitudes``): the windows'
    centres and a_k, where in each its swing lies (midway between its maximum and minimum),
    each window's segment (the stretches between the change factors' switches, ``segments``),
    and the windows' length (its period)."""

    centres: np.ndarray
    sizes: np.ndarray
    window: float = 0.0
    segment: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=int))
    segments: tuple[tuple[float, float], ...] = ()
    cuts: tuple[tuple[float, float], ...] = ()  # the switches (x, steepness) between them
    swings: np.ndarray = field(default_factory=lambda: np.zeros(0))  # mid-x of each max, min

    @property
    def steady(self) -> bool:
        """Whether the amplitude varies by at most ``AMPLITUDE_SHARE`` of its largest."""
        return is_steady(self.sizes)

    @property
    def typical(self) -> float:
        return float(np.median(self.sizes))

    @property
    def drift(self) -> tuple[float, float] | None:
        """The start and end of a least-squares line through the sizes a_k over the windows'
        centres, when it explains at least half their variance and moves by at least
        ``DRIFT_SHARE`` of the typical size: a steady amplitude that still grows or shrinks
        (Mauna Loa's yearly cycle, about 2.7 at the start and 3.3 at the end); None otherwise."""
        if self.sizes.size < 4 or np.ptp(self.centres) <= 0:
            return None
        slope, intercept = np.polyfit(self.centres, self.sizes, 1)
        line = intercept + slope * self.centres
        spread = float(np.sum((self.sizes - self.sizes.mean()) ** 2))
        if spread <= 0 or 1.0 - float(np.sum((self.sizes - line) ** 2)) / spread < 0.5:
            return None
        start, end = float(line[0]), float(line[-1])
        return (start, end) if abs(end - start) >= DRIFT_SHARE * self.typical else None


def is_steady(sizes: np.ndarray) -> bool:
    """(max a_k − min a_k) / max a_k ≤ ``AMPLITUDE_SHARE``."""
    top = float(sizes.max())
    return top <= 0.0 or (top - float(sizes.min())) / top <= AMPLITUDE_SHARE


def _window_starts(low: float, high: float, window: float) -> list[tuple[float, float]]:
    """Windows of length ``window`` from ``low`` covering [low, high]: whole ones from low, and
    one ending at ``high`` when they leave a remainder (the data's last, partial period is
    measured too); the whole stretch when it is shorter than a window."""
    if high - low <= window * (1 + 1e-9):
        return [(low, high)]
    count = int(np.floor((high - low) / window + 1e-9))
    out = [(low + k * window, low + (k + 1) * window) for k in range(count)]
    if high - out[-1][1] > 1e-9 * window:
        out.append((high - window, high))
    return out


def cycle_amplitudes(
    x: np.ndarray, mean: np.ndarray, window: float, cuts: Sequence[tuple[float, float]] = ()
) -> Amplitudes | None:
    """a_k = (max − min) / 2 of ``mean`` over windows of length ``window`` covering all of
    ``x``, never across a switch (x, steepness) in ``cuts`` (the data are split there, each
    covered by ``_window_starts``); None when fewer than two windows hold ``MIN_POINTS``
    points each, or the curve does not move."""
    x = np.asarray(x, dtype=float)
    mean = np.asarray(mean, dtype=float)
    if x.size < 2 or not np.isfinite(window) or window <= 0:
        return None
    inner = tuple(sorted(c for c in cuts if x[0] < c[0] < x[-1]))
    edges = [float(x[0]), *(c[0] for c in inner), float(x[-1])]
    segments = tuple(zip(edges[:-1], edges[1:], strict=True))
    rows = []
    for s, (start, end) in enumerate(segments):
        for low, high in _window_starts(start, end, window):
            inside = (x >= low) & (x <= high)
            if inside.sum() >= MIN_POINTS:
                xs, ms = x[inside], mean[inside]
                swing = (xs[int(np.argmax(ms))] + xs[int(np.argmin(ms))]) / 2
                rows.append(((low + high) / 2, float(np.ptp(ms)) / 2, s, float(swing)))
    if len(rows) < 2 or max(r[1] for r in rows) <= 0.0:  # no curve to measure (a flat zero)
        return None
    rows.sort(key=lambda r: r[0])
    centres, sizes, segment, swings = (np.array(v) for v in zip(*rows, strict=True))
    return Amplitudes(centres, sizes, window, segment.astype(int), segments, inner, swings)


def switched_low(amplitudes: Amplitudes) -> int | None:
    """The segment (``Amplitudes.segments``) where a change factor's switch, not a modulating
    cycle, makes a cycle's amplitude smallest: the one holding its smallest a_k, when that is
    below (1 − ``AMPLITUDE_SHARE``) × every a_k of the other segments and its largest lies
    elsewhere (internet's daily cycle, about ±3,100 over the holiday its gates switch and
    ±9,800 at least around it); None otherwise."""
    sizes, segment = amplitudes.sizes, amplitudes.segment
    if len(amplitudes.segments) < 2 or segment.size != sizes.size:
        return None
    low = int(segment[int(np.argmin(sizes))])
    rest = sizes[segment != low]
    if not rest.size or int(segment[int(np.argmax(sizes))]) == low:
        return None
    return low if float(sizes.min()) < (1 - AMPLITUDE_SHARE) * float(rest.min()) else None


def switch_points(kernel: Kernel, x_data: np.ndarray | None) -> list[tuple[float, float]]:
    """Where change factors switch a component (any of its terms) within the data, with each
    switch's steepness: the finite ends of the intervals the report states
    (``factors.stated_intervals``) of each term its gates switch rather than scale gradually."""
    parts = factors_of(kernel, x_data)
    together = gathered(kernel, x_data) if parts is None else None
    terms = [parts] if parts is not None else (together.terms if together is not None else [])
    points = {
        end
        for t in terms
        if t.gates and not is_gradual(t.gates, x_data)
        for i in stated_intervals(t.gates, x_data)
        for end in ((i.low, i.low_steep), (i.high, i.high_steep))
        if math.isfinite(end[0])
    }
    return sorted(points)


def fitted_amplitudes(
    facts: ComponentFacts, period: float, x_data: np.ndarray | None
) -> Amplitudes | None:
    """The cycle's amplitudes across the data, from its own fitted curve (its smooth shape
    when it carries rough terms: ``ComponentFacts.cycle_mean``): in windows of its period
    covering all the data, split at its change factors' switches (``switch_points``)."""
    x, mean = in_data_range(replace(facts, mean=facts.cycle_mean), x_data)
    return cycle_amplitudes(x, mean, period, switch_points(facts.kernel, x_data))


def amplitude_trend(facts: ComponentFacts, x_data: np.ndarray | None) -> str | None:
    """How a cycle's amplitude moves on its fitted curve over the data: "flat" when steady
    (``Amplitudes.steady``), else "increasing", "decreasing" or "not monotonic"; None for a
    component that is not a cycle along one input, or whose curve cannot be measured."""
    parts = leading_cycle(facts.kernel, x_data)
    if parts is None:
        return None
    amplitudes = fitted_amplitudes(facts, parts.periodic[0].param("period"), x_data)
    if amplitudes is None:
        return None
    return "flat" if amplitudes.steady else classify_trend(amplitudes.sizes, DIP_TOLERANCE)


def end_sizes(
    facts: ComponentFacts, period: float, x_data: np.ndarray | None
) -> tuple[float, float] | None:
    """The fitted curve's cycle size (half its range) over the data's last period and over the
    grid's last period past the data; None without a period of the grid past the data."""
    span = data_range(x_data)
    x = np.asarray(facts.x_grid, dtype=float)
    mean = np.asarray(facts.cycle_mean, dtype=float)
    if span is None or x[-1] - span[1] < period:
        return None

    def size(low: float, high: float) -> float | None:
        inside = (x >= low) & (x <= high)
        return float(np.ptp(mean[inside])) / 2 if inside.sum() >= MIN_POINTS else None

    before, after = size(span[1] - period, span[1]), size(x[-1] - period, x[-1])
    return (before, after) if before and after is not None else None


def fades_beyond(facts: ComponentFacts, period: float, x_data: np.ndarray | None) -> bool:
    """Whether the fitted curve's cycle shrinks past the data: its amplitude over the last
    period of the grid is below ``FADE_SHARE`` of that over the data's last period."""
    sizes = end_sizes(facts, period, x_data)
    return sizes is not None and sizes[1] < FADE_SHARE * sizes[0]


def swells_beyond(
    facts: ComponentFacts, period: float, x_data: np.ndarray | None
) -> tuple[float, float] | None:
    """(before, after) of :func:`end_sizes` when the cycle grows past the data by more than
    1 / ``FADE_SHARE`` (wages' 104-year cycle, which its change factors keep scaling up: its
    forecast swings three to five times its largest over the data), else None."""
    sizes = end_sizes(facts, period, x_data)
    return sizes if sizes is not None and sizes[1] * FADE_SHARE > sizes[0] else None


def flat_in_band(facts: ComponentFacts) -> bool:
    """Whether the component's fitted curve is flat at zero inside its own band: max |m(x_i)|
    < ``FLAT_IN_BAND`` × the mean of its posterior sd (noise, whose mean is zero, is never)."""
    if facts.is_noise or not facts.data_mean.size or not facts.sd.size:
        return False
    band = float(np.mean(facts.sd))
    return band > 0 and float(np.max(np.abs(facts.data_mean))) < FLAT_IN_BAND * band


def size_profile(
    facts: ComponentFacts, x_data: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray] | None:
    """How large the component's fitted curve is across the data, as (centres, sizes): a
    cycle's amplitude period by period (``fitted_amplitudes``, at the periods' centres), any
    other component's largest |m| in each of ``SIZE_WINDOWS`` equal windows of the data (at
    the x where it is reached), and a level's (a constant's c·Π g(x)) also at the data's first
    and last x. What the words on a gradual
    change ('fades across the data', 'is strongest around 1976') are read from, so that they
    say what the curve beside them shows; None when the curve cannot be measured."""
    parts = leading_cycle(facts.kernel, x_data)
    if parts is not None:
        amplitudes = fitted_amplitudes(facts, parts.periodic[0].param("period"), x_data)
        if amplitudes is not None:
            return amplitudes.centres, amplitudes.sizes
    x, mean = in_data_range(facts, x_data)
    if x.size < 2 * MIN_POINTS or np.ptp(x) <= 0:
        return None
    edges = np.linspace(float(x[0]), float(x[-1]), SIZE_WINDOWS + 1)
    window = np.minimum(np.searchsorted(edges, x, side="right") - 1, SIZE_WINDOWS - 1)
    held = [k for k in range(SIZE_WINDOWS) if np.sum(window == k) >= MIN_POINTS]
    if len(held) < 2:
        return None
    tops = [int(np.flatnonzero(window == k)[np.argmax(np.abs(mean[window == k]))]) for k in held]
    parts = factors_of(facts.kernel)
    if parts is not None and parts.head == "constant":  # c·Π g(x): its ends are the data's
        tops = sorted({0, *tops, x.size - 1})
    sizes = np.abs(mean[tops])
    return (x[tops], sizes) if sizes.max() > 0 else None


def level_side(facts: ComponentFacts, x_data: np.ndarray | None) -> int:
    """Which side of zero (the reference every level is measured from) a component that is not
    a cycle keeps over the data: +1 when its fitted curve stays above it, −1 below, 0 when it
    crosses it (beyond ``FLAT_SHARE`` of its largest |m|) or is a cycle. A level that shrinks
    on one side moves towards the reference: the words say which way it goes, so that a
    level rising from −19,400 to −78 is not said to 'fade' (read as 'fall')."""
    if leading_cycle(facts.kernel, x_data) is not None:
        return 0
    _, mean = in_data_range(facts, x_data)
    top = float(np.max(np.abs(mean))) if mean.size else 0.0
    if top <= 0.0:
        return 0
    if float(mean.min()) >= -FLAT_SHARE * top:
        return 1
    if float(mean.max()) <= FLAT_SHARE * top:
        return -1
    return 0


@dataclass(frozen=True)
class TrendShape:
    """A trend's curve where it applies within the data: its level there, whether a straight
    line fits it (``linear``), and whether the curve (its 5th to 95th percentile) stays within
    ``FLAT_SHARE`` of its size (``flat``: neither a slope nor a swing about its level); the
    slopes of lines fitted to its first and last third (``slopes``, per unit of x), and
    ``bend``: "faster" when the later slope is steeper the same way by more than
    ``SLOPE_SHARE``, "slower" when flatter, None when they agree or change sign."""

    level: float
    linear: bool
    flat: bool
    slopes: tuple[float, float] = (0.0, 0.0)
    bend: str | None = None


def third_slopes(x: np.ndarray, mean: np.ndarray) -> tuple[float, float] | None:
    """The least-squares slopes b of m ≈ a + b·x over the first and the last third of ``x``'s
    range; None when a third holds fewer than two points."""
    edges = np.linspace(float(x[0]), float(x[-1]), 4)
    first, last = x <= edges[1], x >= edges[2]
    if first.sum() < 2 or last.sum() < 2:
        return None
    return float(np.polyfit(x[first], mean[first], 1)[0]), float(
        np.polyfit(x[last], mean[last], 1)[0]
    )


def slope_bend(slopes: tuple[float, float]) -> str | None:
    """ "faster" or "slower" when two slopes of one sign differ by more than ``SLOPE_SHARE`` of
    the larger |b| (|b₁ − b₂| > share · max |b|), the later steeper or flatter; else None."""
    early, late = slopes
    top = max(abs(early), abs(late))
    if top <= 0.0 or early * late <= 0.0 or abs(early - late) <= SLOPE_SHARE * top:
        return None
    return "faster" if abs(late) > abs(early) else "slower"


def trend_shape(x: np.ndarray, mean: np.ndarray) -> TrendShape | None:
    """The shape of a trend's curve ``mean`` on ``x`` (the part where it applies); None with
    fewer than three points. A line m ≈ a + b·x is fitted by least squares; R² = 1 − SSE/SST;
    linear needs R² ≥ ``LINEAR_SHARE`` and the thirds' slopes to agree (``slope_bend``)."""
    x = np.asarray(x, dtype=float)
    mean = np.asarray(mean, dtype=float)
    if x.size < 3:
        return None
    level = float(np.median(mean))
    slope, intercept = np.polyfit(x, mean, 1)
    spread = float(np.sum((mean - mean.mean()) ** 2))
    residual = float(np.sum((mean - (intercept + slope * x)) ** 2))
    linear = spread <= 0.0 or 1.0 - residual / spread >= LINEAR_SHARE
    scale = max(abs(level), float(np.max(np.abs(mean))))
    low, high = np.percentile(mean, [5.0, 95.0])  # a point on the switch itself aside
    flat = scale <= 0.0 or float(high - low) <= FLAT_SHARE * scale
    slopes = third_slopes(x, mean)
    bend = slope_bend(slopes) if slopes is not None and not flat else None
    return TrendShape(level, linear and bend is None, flat, slopes or (0.0, 0.0), bend)


def trend_bend(facts: ComponentFacts, x_data: np.ndarray | None) -> str | None:
    """How a rising or falling trend's slope changes where it applies (``TrendShape.bend``),
    in words: "rises ever faster", "rises ever more slowly", "falls ever faster" or "falls ever
    more slowly"; None when it keeps one slope (or is no trend)."""
    if leading_cycle(facts.kernel, x_data) is not None or facts.is_noise:
        return None
    shape = trend_shape(*applied_part(facts, x_data))
    if shape is None or shape.bend is None:
        return None
    return bend_words(shape.slopes[1], shape.bend)


def bend_words(slope: float, bend: str) -> str:
    """'rises ever faster', 'falls ever more slowly': the way a trend of the later ``slope``
    goes, and its ``bend`` (``slope_bend``) in words."""
    verb = "rises" if slope > 0 else "falls"
    return f"{verb} ever {'faster' if bend == 'faster' else 'more slowly'}"


def applied_part(facts: ComponentFacts, x_data: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """The curve over the data where the component applies: within the intervals its change
    factors switch it on (all of the data when it has none, or they scale it gradually)."""
    x, mean = in_data_range(facts, x_data)
    parts = factors_of(facts.kernel, x_data)
    if parts is None or not parts.gates or is_gradual(parts.gates, x_data):
        return x, mean
    inside = np.zeros(x.shape, dtype=bool)
    for i in stated_intervals(parts.gates, x_data):
        inside |= (x >= i.low) & (x <= i.high)
    return (x[inside], mean[inside]) if inside.sum() >= 3 else (x, mean)


def mean_trend(facts: ComponentFacts, x_data: np.ndarray | None = None) -> str:
    """Whether the component's posterior mean is "increasing", "decreasing", "flat" or "not
    monotonic" where it applies over the data: a component switched off within the data is
    judged where it is on (its switch is a step, not a fall), and there it is flat when its
    whole range is below ``FLAT_SHARE`` of its size (its level is then the step's size,
    measured from zero where it is off)."""
    x, mean = applied_part(facts, x_data)
    shape = trend_shape(x, mean)
    switched = x.size < in_data_range(facts, x_data)[0].size
    if switched and shape is not None and shape.flat:
        return "flat"
    return classify_trend(mean)


def repeat_harmonic(facts: ComponentFacts, x_data: np.ndarray | None) -> int | None:
    """The k ≥ 2 at whose period/k what a cycle fits (its partial residuals) mostly repeats,
    its periodogram peaking there rather than at the period (``periods.strongest_harmonic``)
    and its fitted values rising and falling k times in a period (``periods.peaks_per_period``);
    None for a component that is not a cycle, whose data peak at its period, or whose fitted
    curve is flat at zero (``flat_in_band``: it fits nothing that could repeat)."""
    parts = leading_cycle(facts.kernel, x_data)
    if parts is None or x_data is None or facts.partial.size != len(x_data):
        return None
    if flat_in_band(facts):
        return None
    period = parts.periodic[0].param("period")
    x = np.asarray(x_data, dtype=float)
    k = strongest_harmonic(x, facts.partial, period)
    if k is None or peaks_per_period(x, facts.data_mean, period) != k:
        return None  # its curve must show the k rises and falls the words will state
    return k


def harmonic_sentences(facts: ComponentFacts, axis: Axis, x_data: np.ndarray | None) -> list[str]:
    """Where a cycle's data repeat most strongly, when not at its period (``repeat_harmonic``);
    [] otherwise."""
    k = repeat_harmonic(facts, x_data)
    parts = leading_cycle(facts.kernel, x_data)
    if k is None or parts is None:
        return []
    period = parts.periodic[0].param("period")
    return [
        f"The periodogram of what it fits peaks at {format_span(period / k, axis)}, not at its"
        f" period: within each period of {format_span(period, axis)} the data mostly rise and"
        f" fall {number_word(k)} times."
    ]


def slow_cycle_sentences(facts: ComponentFacts, axis: Axis, x_data: np.ndarray | None) -> list[str]:
    """What the data can show of a cycle of which they hold fewer than ``SLOW_CYCLES``
    periods: its fitted period against the data's span, and that they show a slow swing, not
    a repetition; [] for any other component."""
    parts = leading_cycle(facts.kernel, x_data)
    span = data_range(x_data)
    if parts is None or span is None:
        return []
    period = parts.periodic[0].param("period")
    seen = cycles_in_data(period, x_data)
    if seen is None or seen >= SLOW_CYCLES:
        return []
    than = "longer than" if seen < 1.0 else "more than half"
    return [
        f"Its fitted period, {format_span(period, axis)}, is {than} the span of the data"
        f" ({format_span(span[1] - span[0], axis)}): the data hold"
        f" {format_number(seen, decimals=1)} of its cycles, so they show a slow swing, not"
        " that it repeats."
    ]
