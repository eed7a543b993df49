"""Figures that read (reporting/figures.py over reporting/density.py): a dense cycle is drawn
over a window of a few cycles, with the whole span in a second panel, and every panel holds a
readable density of peaks."""

from __future__ import annotations

import numpy as np

from abcd_cli.reporting import figures as plots
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
    fig = plots.component_figure(GRID, mean, sd, span, "year", "y", "Component 1")
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
    fig = plots.cumulative_figure(GRID, mean, sd, X_DATA, y, "year", "y", "Components 1-2")
    fig.canvas.draw()
    top, whole = fig.axes
    assert _peaks_per_inch(top, GRID, mean) <= MAX_PEAKS_PER_INCH


def test_a_slow_cycle_keeps_one_panel() -> None:
    mean = np.sin(2 * np.pi * GRID / 10.0)
    span = (float(X_DATA[0]), float(X_DATA[-1]))
    fig = plots.component_figure(GRID, mean, 0.1 * np.ones_like(GRID), span, "year", "y", "C")
    assert len(fig.axes) == 1
