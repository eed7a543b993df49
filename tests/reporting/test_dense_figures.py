"""Figures that read (reporting/dense_figures.py over reporting/density.py): a dense cycle is
drawn over a window of a few cycles, with the whole span as an envelope in a second panel, and
every panel, the sums so far too, holds a readable density of peaks as drawn."""

from __future__ import annotations

import numpy as np

from abcd_cli.reporting import dense_figures
from abcd_cli.reporting.density import MAX_PEAKS_PER_INCH, peak_count

X_DATA = 1950.0 + np.arange(720) / 12.0  # 60 years, monthly
GRID = np.linspace(1950.0, 2022.0, 900)


def _peaks_per_inch(ax, x: np.ndarray, y: np.ndarray) -> float:
    low, high = ax.get_xlim()
    shown = (x >= low) & (x <= high)
    width = ax.get_position().width * ax.figure.get_figwidth()
    return peak_count(y[shown]) / width


def test_sixty_years_of_a_monthly_cycle_are_not_a_solid_block() -> None:
    mean = np.sin(2 * np.pi * GRID)
    sd = 0.1 * np.ones_like(GRID)
    span = (float(X_DATA[0]), float(X_DATA[-1]))
    fig = dense_figures.component_figure(GRID, mean, sd, span, "year", "y", "Component 1")
    fig.canvas.draw()
    top, whole = fig.axes
    assert whole.get_xlim()[1] - whole.get_xlim()[0] > 60  # the whole span, below
    assert top.get_xlim()[1] - top.get_xlim()[0] < 6  # a few cycles, above
    assert _peaks_per_inch(top, GRID, mean) <= MAX_PEAKS_PER_INCH
    assert "whole span" in whole.get_title(loc="left")
    # the window's heading claims no count of cycles: on a modulated or jagged cycle the peak
    # spacing it is cut by is shorter than the period ('last 4 cycles' over 1.8 of them)
    assert top.get_title(loc="left") == "Component 1: the data's last stretch"
    low, high = top.get_xlim()
    ticks = [t for t in top.get_xticks() if low <= t <= high]
    assert 2 <= len(ticks) <= 5  # decimal-year labels that do not run into each other

    y = np.sin(2 * np.pi * X_DATA) + 0.1
    fig = dense_figures.cumulative_figure(GRID, mean, sd, X_DATA, y, "year", "y", "Components 1-2")
    fig.canvas.draw()
    top, whole = fig.axes
    assert _peaks_per_inch(top, GRID, mean) <= MAX_PEAKS_PER_INCH


def test_a_slow_cycle_keeps_one_panel() -> None:
    mean = np.sin(2 * np.pi * GRID / 10.0)
    span = (float(X_DATA[0]), float(X_DATA[-1]))
    fig = dense_figures.component_figure(
        GRID, mean, 0.1 * np.ones_like(GRID), span, "year", "y", "C"
    )
    assert len(fig.axes) == 1


def _drawn_peaks_per_inch(ax) -> float:
    """The most peaks per inch of any curve or filled band as drawn in the panel (its visible
    part): a band's outline is read along its upper and its lower edge; the data's points
    (markers, no line) are the data, not a curve."""
    low, high = ax.get_xlim()
    width = ax.get_position().width * ax.figure.get_figwidth()
    worst = 0.0
    curves = [
        (line.get_xdata(), line.get_ydata())
        for line in ax.get_lines()
        if line.get_linestyle() not in ("None", "none", "")
    ]
    for collection in ax.collections:
        for path in collection.get_paths():
            xy = path.vertices
            half = len(xy) // 2
            curves += [(xy[:half, 0], xy[:half, 1]), (xy[half:, 0], xy[half:, 1])]
    for x, y in curves:
        x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
        if x.size < 3 or np.unique(x).size < 3:  # data points, a vertical rule
            continue
        shown = (x >= low) & (x <= high)
        worst = max(worst, peak_count(y[shown]) / width)
    return worst


def _births_like() -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple]:
    """14 years of a weekly cycle on a slow yearly swing and a trend, on a 400-point grid
    (about two points per week: the aliased curve births' figures drew), with its window."""
    grid = np.linspace(1977.0, 1993.8, 400)
    mean = 20 * np.sin(2 * np.pi * grid * 52.18) + 5 * np.sin(2 * np.pi * grid) + (grid - 1977)
    end, week = 1991.0, 1 / 52.18
    fine_x = np.linspace(end - 4 * week, end, 161)
    fine = 20 * np.sin(2 * np.pi * fine_x * 52.18) + 5 * np.sin(2 * np.pi * fine_x) + fine_x - 1977
    return grid, mean, 0.5 * np.ones_like(grid), (fine_x, fine, 0.5 * np.ones_like(fine_x))


def test_every_panel_of_a_dense_cycle_reads_as_drawn() -> None:
    """Mauna, internet, births: the whole-span panels (the sums so far too) were solid
    blocks, and the window of births' weekly cycle drew the 400-point grid's zigzags."""
    grid, mean, sd, fine = _births_like()
    x = np.sort(np.random.default_rng(0).uniform(1977.0, 1991.0, 1000))
    y = np.interp(x, grid, mean)
    for fig in (
        dense_figures.component_figure(grid, mean, sd, (1977.0, 1991.0), "x", "y", "C", fine),
        dense_figures.cumulative_figure(grid, mean, sd, x, y, "x", "y", "Sum", fine),
    ):
        fig.canvas.draw()
        top, whole = fig.axes
        for ax in (top, whole):
            assert _drawn_peaks_per_inch(ax) <= MAX_PEAKS_PER_INCH, ax.get_title(loc="left")
        (line,) = top.get_lines()[:1]
        drawn = np.asarray(line.get_xdata())
        assert drawn.min() == fine[0][0] and drawn.max() == fine[0][-1]  # whole periods
        assert drawn.size >= 4 * 30  # enough points per period to draw the cycle's shape
        assert whole.get_xlim()[1] - whole.get_xlim()[0] > 14
