"""Figures that read (reporting/dense_figures.py over reporting/density.py): a dense cycle is
drawn over a window of a few cycles, with the whole span as an envelope in a second panel, and
every panel, the sums so far too, holds a readable density of peaks as drawn."""

from __future__ import annotations

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg

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
    assert top.get_title(loc="left") == "Component 1: end of the data"
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


def test_a_long_title_of_a_dense_sum_fits_its_panel() -> None:
    """Mauna: 'Sum of components 1-2: the data's last stretch' ran past the panel's edge and
    was cut ('... last stretc')."""
    mean = np.sin(2 * np.pi * GRID) + 0.5 * (GRID - 1950.0)
    y = np.interp(X_DATA, GRID, mean)
    sd = 0.1 * np.ones_like(GRID)
    fig = dense_figures.cumulative_figure(
        GRID, mean, sd, X_DATA, y, "x (years)", "y", "Sum of components 1-12"
    )
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    for ax in fig.axes:
        title = ax._left_title  # set_labels titles on the left
        assert title.get_text().startswith("Sum of components 1-12")
        assert title.get_window_extent(renderer).x1 <= fig.bbox.x1, title.get_text()


def test_a_steady_dense_cycle_says_what_its_envelope_shows() -> None:
    """A steady yearly cycle over 30 years: its whole-span panel is a band of even width,
    which shows the cycle's size, not its shape; the caption says what the band is and that
    the panel above holds the shape. A slow cycle, drawn whole, has no such note."""
    from abcd_cli.data.scaling import Scaling
    from abcd_cli.decompose.components import decompose
    from abcd_cli.decompose.facts import Axis
    from abcd_cli.engines.exact import negative_log_likelihood
    from abcd_cli.kernels.text import parse_kernel
    from abcd_cli.model import Model
    from abcd_cli.reporting.context import build_context
    from tests.reporting.test_report import _search_doc

    rng = np.random.default_rng(3)
    x = 1960.0 + np.arange(120) / 4.0  # quarterly, 30 years: 33 yearly peaks on the grid
    notes = {}
    for period in (1.0, 20.0):
        y = 2.0 * np.sin(2 * np.pi * x / period) + 0.3 * rng.standard_normal(x.size)
        sc = Scaling.from_data(x, y)
        text = f"Per(lengthscale=2.0, period={period}, sd=1.5) + WN(sd=0.3)"
        kernel = sc.kernel_in(parse_kernel(text))
        nll = sc.nll_out(negative_log_likelihood(kernel, sc.x_in(x), sc.y_in(y)), y.size)
        model = Model(kernel, sc, x, y, nll)
        dec = decompose(model, (Axis("year", "date", "y"),), extrapolate=0.1, seed=0)
        context = build_context(dec, "Y", "y.csv", _search_doc(model), figures=False)
        cycle = next(c for c in context["components"] if "noise" not in c["phrase"])
        notes[period] = cycle["envelope_note"]
    assert "envelope" in notes[1.0] and "not their shape" in notes[1.0]
    assert "a band of even width is a cycle that keeps its size" in notes[1.0]
    assert notes[20.0] == ""
