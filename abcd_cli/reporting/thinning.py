"""Which points of a long series a figure draws: per pixel column, the first and last point and
each curve's lowest and highest (the "M4" reduction of a line chart). Drawn at that width, the
kept points cover the same pixels as all of them, and no extreme is lost; a column holds at most
2 + 2·(curves) points, however many the data have.
"""

from __future__ import annotations

import numpy as np

#: Above this many points a figure draws the thinned series (below it, every point).
THIN_ABOVE = 5000
#: Columns per inch of figure width: the PNG figures' resolution.
COLUMNS_PER_INCH = 150


def needs_thinning(n: int) -> bool:
    """Whether a series of ``n`` points is drawn thinned."""
    return n > THIN_ABOVE


def thin(x: np.ndarray, columns: int, *curves: np.ndarray) -> np.ndarray:
    """Indices of the points to draw, in x order: in each of ``columns`` equal slices of x's
    range, the first and last point and the lowest and highest value of each curve (curves
    sharing x). Every index, in x order, when x holds no more points than four per column."""
    x = np.asarray(x, dtype=float)
    order = np.argsort(x, kind="stable")
    if x.size <= 4 * columns:
        return order
    xs = x[order]
    span = xs[-1] - xs[0]
    column = np.zeros(x.size, dtype=int)
    if span > 0:
        column = np.minimum(((xs - xs[0]) / span * columns).astype(int), columns - 1)
    starts = np.flatnonzero(np.r_[True, column[1:] != column[:-1]])
    kept = [starts, np.r_[starts[1:], x.size] - 1]
    for curve in curves:
        values = np.asarray(curve, dtype=float)[order]
        for signed in (values, -values):
            ranked = np.lexsort((signed, column))  # by column, then value: lowest first
            kept.append(ranked[starts])  # starts: each column's first position in ranked too
    return order[np.unique(np.concatenate(kept))]
