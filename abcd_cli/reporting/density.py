"""Whether a curve can be read at the width it is drawn: a curve with more than
``MAX_PEAKS_PER_INCH`` peaks per inch of figure (60 years of a yearly cycle in 3.2 inches)
draws as a solid block. Such a curve is drawn over a window of its last few cycles of the data
(on a fine grid of whole periods when the decomposition has one: ``decompose/window.py``),
with the whole span in a second panel drawn as an envelope (``envelope``): the lowest and the
highest value in each of at most ``MAX_PEAKS_PER_INCH`` slices per inch, each a cycle or more
wide, so the panel shows how the cycle's size and level move, not every cycle.

A peak is a local maximum of the curve that rises above both neighbouring minima by at least
``PEAK_SHARE`` of the curve's range (wiggles smaller than that are not what fills the figure).
"""

from __future__ import annotations

import numpy as np

#: Peaks per inch of figure above which a curve is a solid block.
MAX_PEAKS_PER_INCH = 8.0
#: Cycles (typical distances between peaks) shown in the window of a dense curve.
WINDOW_CYCLES = 4
#: A local maximum counts as a peak when it rises this share of the curve's range above its
#: neighbouring minima (about a pixel of a figure's height: a yearly cycle on a rising trend
#: a few percent of its range still fills the panel).
PEAK_SHARE = 0.02


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


def envelope(
    x: np.ndarray, width: float, *curves: np.ndarray
) -> tuple[np.ndarray, list[tuple[np.ndarray, np.ndarray]]]:
    """The curves' envelope for a panel ``width`` inches wide: x cut into equal slices, as
    many as the first curve has peaks but at most ``MAX_PEAKS_PER_INCH`` per inch (each slice a
    cycle or more wide); each slice's centre, and per curve its lowest and highest value there.
    Its edges have at most half as many peaks as slices, so the drawing reads."""
    x = np.asarray(x, dtype=float)
    slices = max(2, min(int(MAX_PEAKS_PER_INCH * width), peak_count(curves[0]) or 2))
    edges = np.linspace(float(x.min()), float(x.max()), slices + 1)
    where = np.clip(np.searchsorted(edges, x, side="right") - 1, 0, slices - 1)
    held = [k for k in range(slices) if np.any(where == k)]
    centres = (edges[held] + edges[np.array(held) + 1]) / 2
    out = []
    for curve in curves:
        values = np.asarray(curve, dtype=float)
        out.append(
            (
                np.array([values[where == k].min() for k in held]),
                np.array([values[where == k].max() for k in held]),
            )
        )
    return centres, out
