"""Figures of a model of several inputs: y against each input, a component of one input with
its partial residuals, and a component of two inputs as a filled contour plot.

They share the one-input figures' style and helpers (:mod:`abcd_cli.reporting.figures`): the
same sizes, colours, band and data points, thinned above ``thinning.THIN_ABOVE`` points.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from abcd_cli.reporting.figures import (
    DATA_COLOUR,
    DENSE_DATA_COLOUR,
    FONT_SIZE,
    FULL_WIDTH,
    HALF_HEIGHT,
    HALF_WIDTH,
    draw_band,
    draw_points,
    new_axes,
    set_labels,
    shade_extrapolation,
)
from abcd_cli.reporting.thinning import THIN_ABOVE, needs_thinning

#: Panels per row of the data figure.
PANELS_PER_ROW = 3
#: Filled contour levels of a surface.
LEVELS = 12


def _every(n: int, at_most: int = THIN_ABOVE) -> np.ndarray:
    """Positions of at most ``at_most`` of n points, evenly spread over the rows."""
    if n <= at_most:
        return np.arange(n)
    return np.unique(np.linspace(0, n - 1, at_most).round().astype(int))


def inputs_data_figure(X: np.ndarray, y: np.ndarray, names: Sequence[str], y_label: str) -> Figure:
    """y against each input, one small panel per input, ``PANELS_PER_ROW`` to a row."""
    X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    n_inputs = X.shape[1]
    rows = -(-n_inputs // PANELS_PER_ROW)
    cols = min(n_inputs, PANELS_PER_ROW)
    fig = Figure(figsize=(FULL_WIDTH, 2.1 * rows), layout="constrained")
    keep = _every(y.size)
    colour = DENSE_DATA_COLOUR if needs_thinning(y.size) else DATA_COLOUR
    for d, name in enumerate(names):
        ax = fig.add_subplot(rows, cols, d + 1)
        ax.plot(X[keep, d], y[keep], linestyle="none", marker="o", markersize=2.0,
                markeredgewidth=0, color=colour, alpha=0.7)  # fmt: skip
        ax.tick_params(labelsize=FONT_SIZE - 1.0)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
        ax.set_xlabel(name, fontsize=FONT_SIZE)
        if d % cols == 0:
            ax.set_ylabel(y_label, fontsize=FONT_SIZE)
    return fig


def partial_figure(
    x_grid: np.ndarray,
    mean: np.ndarray,
    sd: np.ndarray,
    x: np.ndarray,
    partial: np.ndarray,
    x_label: str,
    y_label: str,
    title: str,
) -> Figure:
    """A component of one input: its posterior mean ± 2 sd along the input, the partial
    residuals (the data less the other components' means) as points; past the data shaded."""
    fig, ax = new_axes(FULL_WIDTH * 0.62, HALF_HEIGHT + 0.2)
    draw_points(ax, np.asarray(x, dtype=float), np.asarray(partial, dtype=float), size=2.0)
    draw_band(
        ax, np.asarray(x_grid, dtype=float), np.asarray(mean), np.asarray(sd), "posterior mean"
    )
    shade_extrapolation(ax, np.asarray(x_grid, dtype=float), float(np.max(x)), label=True)
    set_labels(ax, x_label, y_label, title)
    return fig


def surface_figure(
    grid_a: np.ndarray,
    grid_b: np.ndarray,
    mean: np.ndarray,
    a: np.ndarray,
    b: np.ndarray,
    labels: tuple[str, str],
    title: str,
) -> Figure:
    """A component of two inputs: filled contours of its posterior mean over both inputs'
    ranges (a diverging scale centred on zero), the data's locations as small dots."""
    fig, ax = new_axes(FULL_WIDTH * 0.62, HALF_WIDTH * 0.95)
    ax.grid(False)
    bound = float(np.max(np.abs(mean))) or 1.0
    levels = np.linspace(-bound, bound, LEVELS + 1)
    filled = ax.contourf(grid_a, grid_b, mean, levels=levels, cmap="RdBu_r")
    keep = _every(np.asarray(a).size)
    ax.plot(np.asarray(a)[keep], np.asarray(b)[keep], linestyle="none", marker=".",
            markersize=2.0, color="#222222", alpha=0.55)  # fmt: skip
    colourbar = fig.colorbar(filled, ax=ax, shrink=0.9, pad=0.02)
    colourbar.ax.tick_params(labelsize=FONT_SIZE - 1.5)
    colourbar.ax.yaxis.set_major_locator(MaxNLocator(5))
    colourbar.set_label("fitted mean", fontsize=FONT_SIZE - 0.5)
    set_labels(ax, labels[0], labels[1], title)
    return fig
