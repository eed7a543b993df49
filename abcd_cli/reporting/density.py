"""Whether a curve can be read at the width it is drawn: a curve with more than
``MAX_PEAKS_PER_INCH`` peaks per inch of figure (60 years of a yearly cycle in 3.2 inches)
draws as a solid block. Such a curve is drawn over a window of its last few cycles of the data
(on a fine grid of whole periods when the decomposition has one: ``decompose/window.py``),
with the whole span in a second panel drawn as an envelope (``envelope``): the lowest and the
highest value in each of at most ``MAX_PEAKS_PER_INCH`` slices per inch, each k whole periods
P of the cycle the curve shows (``shown_period``; k = ⌈span / (slices · P)⌉, the last slice
taking the remainder), so every slice holds every phase of the cycle and a steady cycle's
envelope is a band of even width; the panel shows how the cycle's size and level move, not
every cycle. A curve with no period is cut into as many equal slices as it has peaks (at most
``MAX_PEAKS_PER_INCH`` per inch).

A peak is a local maximum of the curve that rises above both neighbouring minima by at least
``PEAK_SHARE`` of the curve's range (wiggles smaller than that are not what fills the figure).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

#: Peaks per inch of figure above which a curve is a solid block.
MAX_PEAKS_PER_INCH = 8.0
#: Cycles (typical distances between peaks) shown in the window of a dense curve.
WINDOW_CYCLES = 4
#: A local maximum counts as a peak when it rises this share of the curve's range above its
#: neighbouring minima (about a pixel of a figure's height: a yearly cycle on a rising trend
#: a few percent of its range still fills the panel).
PEAK_SHARE = 0.02
#: A curve shows the cycle of period P when it changes over a lag of P by at most this share of
#: how much it changes over P/2: rms(m̃(x + P) − m̃(x)) ≤ 0.5 · rms(m̃(x + P/2) − m̃(x)), m̃ the
#: curve less its least-squares quadratic (a pure trend gives 2, a steady cycle 0).
REPEAT_SHARE = 0.5
#: Grid steps per period below which a lag of a period or half of one cannot be read on the
#: grid (the cycle is aliased there: births' weekly cycle, two points a week): such a period
#: is the cycle shown only when no period the grid can test repeats.
MIN_STEPS = 4
#: Slices of whole periods an envelope needs to show a change: a period the span holds fewer
#: times is the cycle shown only when it repeats (call-centre's 5.0-year cycle, 3 slices of
#: 17.9 years, hid its drop at 1974; its curve rises and falls every 1.0 year).
MIN_SLICES = 8
#: The harmonics P/m of a covariance period tried as the cycle a curve shows: m ≤ this (none
#: beside a period of under ``MIN_STEPS`` steps: births' weekly cycle at two points a week
#: shows on the grid as a 0.21-year wave, which a fifth of a year would seem to repeat).
MAX_HARMONIC = 8


def peak_count(y: np.ndarray) -> int:
    """The curve's peaks: local maxima rising above both neighbouring minima by at least
    ``PEAK_SHARE`` of its range."""
    y = np.asarray(y, dtype=float)
    y = y[np.isfinite(y)]
    if y.size < 3 or np.ptp(y) <= 0:
        return 0
    moves = np.flatnonzero(np.diff(y) != 0)  # steps that go up or down
    signs = np.sign(np.diff(y)[moves])
    turns = moves[np.flatnonzero(np.diff(signs) != 0) + 1]  # where a new direction starts
    extremes = np.concatenate(([y[0]], y[turns], [y[-1]]))
    rise = PEAK_SHARE * float(np.ptp(y))
    lower = np.maximum(extremes[:-2], extremes[2:])
    return int(np.sum(extremes[1:-1] - lower >= rise))


def dense_window(
    x: np.ndarray, y: np.ndarray, end: float, width: float, period: float | None = None
) -> tuple[float, float] | None:
    """The window to draw a curve ``y`` on ``x`` over when it is too dense for a figure
    ``width`` inches wide: ``WINDOW_CYCLES`` typical cycles ending at ``end`` (the data's last
    x), each the curve's typical distance between peaks or, when given, ``period`` (a cycle
    whose rough terms' wiggles would otherwise set it); None when it reads as it is."""
    x = np.asarray(x, dtype=float)
    peaks = peak_count(y)
    if width <= 0 or peaks <= MAX_PEAKS_PER_INCH * width:
        return None
    cycle = float(np.ptp(x)) / peaks if period is None else period
    return max(float(x.min()), end - WINDOW_CYCLES * cycle), end


def lag_change(x: np.ndarray, y: np.ndarray, lag: float) -> float:
    """rms(y(x + lag) − y(x)) over the x with x + lag within x's range, y(x + lag) interpolated
    on the grid; NaN when fewer than three such x."""
    inside = x + lag <= x[-1]
    if inside.sum() < 3:
        return float("nan")
    return float(np.sqrt(np.mean((np.interp(x[inside] + lag, x, y) - y[inside]) ** 2)))


def _repeat_ratio(x: np.ndarray, detrended: np.ndarray, period: float) -> float:
    """d(P) / d(P/2) with d = ``lag_change``: 0 for a steady cycle of period P, about 2 for a
    straight line, inf when the curve does not move over half a period."""
    half = lag_change(x, detrended, period / 2)
    ratio = lag_change(x, detrended, period) / half if half > 0 else float("inf")
    return ratio if np.isfinite(ratio) else float("inf")


def shown_period(x: np.ndarray, y: np.ndarray, periods: Sequence[float]) -> float | None:
    """The period of the cycle the curve ``y`` on ``x`` (sorted) shows, from its covariance's
    ``periods`` P and their harmonics P/m (m ≤ ``MAX_HARMONIC``; none when a covariance period
    is aliased on the grid, whose aliases mimic them) that the span holds twice: one
    after which the curve less its quadratic repeats, r = d(P)/d(P/2) ≤ ``REPEAT_SHARE``
    (``_repeat_ratio``), a covariance period before a harmonic and then the smallest r, among
    those the span holds ``MIN_SLICES`` times, else among all; else the shortest covariance
    period of under ``MIN_STEPS`` grid steps (aliased, untestable); else the smallest r of
    those held ``MIN_SLICES`` times (or of all). So a cycle modulated by a longer one, or
    gathered with a smaller shorter one, is the main cycle; one that mostly rises and falls at
    a harmonic of its period (call-centre: every 1.0 year of 5.0) is that harmonic. None when
    none fits."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    span = float(np.ptp(x)) if x.size else 0.0
    own = sorted({float(p) for p in periods if 0 < p <= span / 2})
    if not own:
        return None
    step = span / max(x.size - 1, 1)
    aliased = [p for p in own if p < MIN_STEPS * step]
    tried = [
        (m, p / m)
        for m in range(1, 2 if aliased else MAX_HARMONIC + 1)
        for p in own
        if MIN_STEPS * step <= p / m and 2 * p / m <= span
    ]
    if not tried:
        return aliased[0]
    centred = x - x.mean()
    detrended = y - np.polyval(np.polyfit(centred, y, 2), centred)
    rated = [(_repeat_ratio(x, detrended, p), m, p) for m, p in tried]
    many = [(r, m, p) for r, m, p in rated if MIN_SLICES * p <= span]
    for pool in (many, rated):
        repeating = [(m > 1, r, p) for r, m, p in pool if r <= REPEAT_SHARE]
        if repeating:
            return min(repeating)[2]
    if aliased:
        return aliased[0]
    return min(many or rated)[2]


def slice_edges(x: np.ndarray, width: float, y: np.ndarray, period: float | None) -> np.ndarray:
    """The edges of the envelope's slices of x for a panel ``width`` inches wide: k whole
    ``period``s each, k = ⌈span / (``MAX_PEAKS_PER_INCH`` · width · P)⌉, the last slice also
    taking what is left (under k periods); without a period fitting twice, as many equal slices
    as ``y`` has peaks, at most ``MAX_PEAKS_PER_INCH`` per inch and at least two."""
    most = max(2, int(MAX_PEAKS_PER_INCH * width))
    low, high = float(x.min()), float(x.max())
    span = high - low
    if period is None or not period > 0 or span < 2 * period:
        return np.linspace(low, high, max(2, min(most, peak_count(y) or 2)) + 1)
    length = period * max(1, math.ceil(span / (most * period) - 1e-9))
    count = max(1, int(span / length + 1e-9))
    edges = low + length * np.arange(count + 1)
    edges[-1] = high
    return edges


def envelope(
    x: np.ndarray, width: float, *curves: np.ndarray, period: float | None = None
) -> tuple[np.ndarray, list[tuple[np.ndarray, np.ndarray]]]:
    """The curves' envelope for a panel ``width`` inches wide: x cut into slices of whole
    ``period``s of the cycle shown (``slice_edges``); where it is drawn (each slice's centre,
    and x's two ends, which hold the first and the last slice's values, so the band spans the
    panel), and per curve the lowest and highest value of the slice there. Its edges have at
    most half as many peaks as slices, so the drawing reads."""
    x = np.asarray(x, dtype=float)
    edges = slice_edges(x, width, np.asarray(curves[0], dtype=float), period)
    slices = edges.size - 1
    where = np.clip(np.searchsorted(edges, x, side="right") - 1, 0, slices - 1)
    held = [k for k in range(slices) if np.any(where == k)]
    centres = (edges[held] + edges[np.array(held) + 1]) / 2
    drawn = [held[0], *held, held[-1]]  # the first and the last slice again, at x's ends
    out = []
    for curve in curves:
        values = np.asarray(curve, dtype=float)
        out.append(
            (
                np.array([values[where == k].min() for k in drawn]),
                np.array([values[where == k].max() for k in drawn]),
            )
        )
    return np.concatenate(([edges[0]], centres, [edges[-1]])), out
