"""Whether a curve can be read at the width it is drawn: a curve with more than
``MAX_PEAKS_PER_INCH`` peaks per inch of figure (60 years of a yearly cycle in 3.2 inches)
draws as a solid block. Such a curve is drawn over a window of ``WINDOW_CYCLES`` of its
cycles at the end of the data, with the whole span in a second panel.

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
#: neighbouring minima.
PEAK_SHARE = 0.05


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
    x: np.ndarray, y: np.ndarray, end: float, width: float
) -> tuple[float, float] | None:
    """The window to draw a curve ``y`` on ``x`` over when it is too dense for a figure
    ``width`` inches wide: ``WINDOW_CYCLES`` typical cycles ending at ``end`` (the data's last
    x); None when it reads as it is."""
    x = np.asarray(x, dtype=float)
    peaks = peak_count(y)
    if width <= 0 or peaks <= MAX_PEAKS_PER_INCH * width:
        return None
    cycle = float(np.ptp(x)) / peaks
    return max(float(x.min()), end - WINDOW_CYCLES * cycle), end
