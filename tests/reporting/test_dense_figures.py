"""Figures that read (reporting/dense_figures.py over reporting/density.py): a dense cycle is
drawn over a window of a few cycles, with the whole span as an envelope in a second panel, and
every panel, the sums so far too, holds a readable density of peaks as drawn."""

from __future__ import annotations

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg

from abcd_cli.reporting import dense_figures, density
from abcd_cli.reporting.density import MAX_PEAKS_PER_INCH, peak_count
from abcd_cli.reporting.figures import HALF_WIDTH

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


def _dark_band(ax) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The envelope's dark band as drawn: its slices' centres and its lower and upper edges."""
    (band,) = [c for c in ax.collections if c.get_label().startswith("range of the")]
    xy = band.get_paths()[0].vertices
    centres = np.unique(xy[:, 0])
    low = np.array([xy[xy[:, 0] == c, 1].min() for c in centres])
    high = np.array([xy[xy[:, 0] == c, 1].max() for c in centres])
    return centres, low, high


def test_a_steady_cycle_s_envelope_is_a_band_of_even_width() -> None:
    """Airline: a yearly cycle of two peaks a year has more peaks than cycles, so the old
    envelope's 25 slices of 0.57 years each missed a peak or a trough in turn and its band
    zig-zagged (top at about -8 at 1959.1 of a cycle swinging about ±100), read as a change
    of size. Sliced by whole periods (1.0019 years, 27.96 grid steps), the band's edges stay
    within 2% of the cycle's highest and lowest value in every slice."""
    period = 1.0019014209412163
    grid = np.linspace(1949.0, 1949.0 + 14.3, 400)
    wave = lambda t: 100 * (np.sin(2 * np.pi * t / period) + 0.6 * np.sin(4 * np.pi * t / period))  # noqa: E731
    fine = wave(np.linspace(0, period, 100_001))
    top, bottom = float(fine.max()), float(fine.min())  # the cycle's true extremes
    fig = dense_figures.component_figure(
        grid, wave(grid), np.ones_like(grid), (1949.0, 1960.9), "year", "y", "Component 2",
        periods=[period, 4.368204220327399],
    )  # fmt: skip
    fig.canvas.draw()
    centres, low, high = _dark_band(fig.axes[1])
    assert centres.size >= 10
    assert np.all(np.abs(high - top) <= 0.02 * (top - bottom)), high
    assert np.all(np.abs(low - bottom) <= 0.02 * (top - bottom)), low


def test_a_steady_sinusoid_s_envelope_holds_its_amplitude_in_every_slice() -> None:
    """A sinusoid of amplitude 2 and period 1.07 (14.6 grid steps) over 13.6 periods: equal
    slices as many as its 14 peaks are shorter than a period and miss crests; slices of whole
    periods reach ±2 within 3% in every one."""
    period = 1.07
    grid = np.linspace(0.0, 13.6 * period, 200)
    mean = 2.0 * np.sin(2 * np.pi * grid / period + 1.3)
    centres, ((low, high),) = density.envelope(grid, HALF_WIDTH, mean, period=period)
    assert centres.size == 13 + 2  # 13 slices' centres, and the span's two ends
    assert centres[0] == grid[0] and centres[-1] == grid[-1]  # the band spans the panel
    assert np.all(np.abs(high - 2.0) <= 0.06) and np.all(np.abs(low + 2.0) <= 0.06)
    # every slice spans whole periods: the edges step by a period, the last takes the rest
    edges = density.slice_edges(grid, HALF_WIDTH, mean, period)
    assert np.allclose(np.diff(edges)[:-1], period) and np.diff(edges)[-1] >= period


def test_the_envelope_slices_by_the_cycle_the_curve_shows() -> None:
    """Among a curve's covariance periods, the cycle it shows: a yearly cycle modulated by a
    4.4-year one (airline's component 2) is yearly; a yearly cycle gathered with a small
    monthly one is yearly, not monthly (slices of months would cut the yearly swing into a
    saw-tooth); a weekly cycle on a yearly swing and a trend (births' sums) is weekly, so
    the yearly swing stays in the band's level (its weekly cycle, two grid points a week, is
    taken when the yearly one does not repeat); a 5-year cycle over 18 years that mostly
    rises and falls every year (call-centre's, whose 3 slices of 5 years hid its drop at
    1974) is its harmonic of 1 year; a period the span holds less than twice is none."""
    x = np.linspace(1949.0, 1963.3, 400)
    modulated = np.sin(2 * np.pi * x) * (1.5 + np.sin(2 * np.pi * x / 4.37))
    assert density.shown_period(x, modulated, [4.37, 1.0]) == 1.0
    gathered = np.sin(2 * np.pi * x) + 0.1 * np.sin(2 * np.pi * x * 12) + 3 * (x - 1949)
    assert density.shown_period(x, gathered, [1 / 12, 1.0]) == 1.0  # months under 4 steps
    fine = np.linspace(1949.0, 1963.3, 3000)  # 17 steps a month: the monthly lag is read
    gathered = np.sin(2 * np.pi * fine) + 0.1 * np.sin(2 * np.pi * fine * 12) + 3 * (fine - 1949)
    assert density.shown_period(fine, gathered, [1 / 12, 1.0]) == 1.0
    grid, mean, _, _ = _births_like()
    assert density.shown_period(grid, mean, [1.0, 1 / 52.18]) == 1 / 52.18
    years = np.linspace(1962.0, 1979.9, 400)
    yearly = np.sin(2 * np.pi * years) * (1 + 0.3 * np.sin(2 * np.pi * years / 5.0))
    assert density.shown_period(years, yearly + 0.3 * np.sin(2 * np.pi * years / 5.0), [5.0]) == 1.0
    assert density.shown_period(x, modulated, [10.0]) is None


def test_the_window_of_a_dense_sum_holds_its_band() -> None:
    """Solar: 'Sum of components 1-6: end of the data' fitted its y limits to the mean and the
    data, so its ±2 sd band ran off the top and the bottom of the panel."""
    mean = np.sin(2 * np.pi * GRID)
    sd = 0.6 * np.ones_like(GRID)
    y = np.sin(2 * np.pi * X_DATA)
    fig = dense_figures.cumulative_figure(
        GRID, mean, sd, X_DATA, y, "year", "y", "Sum of components 1-6", periods=[1.0]
    )
    fig.canvas.draw()
    top = fig.axes[0]
    low, high = top.get_xlim()
    shown = (low <= GRID) & (high >= GRID)
    bottom_limit, top_limit = top.get_ylim()
    assert bottom_limit <= float((mean - 2 * sd)[shown].min())
    assert top_limit >= float((mean + 2 * sd)[shown].max())


def test_a_noise_figure_draws_the_residuals_it_takes_up() -> None:
    """Held-out reports: every noise figure was a flat line in an even band, a solid block
    that says nothing; its residuals as dots show what the band holds."""
    x = np.linspace(1871.0, 1970.0, 100)
    grid = np.linspace(1871.0, 1990.0, 400)
    residuals = np.random.default_rng(0).normal(0.0, 116.0, x.size)
    fig = dense_figures.component_figure(
        grid,
        0 * grid,
        116.0 + 0 * grid,
        (1871.0, 1970.0),
        "year",
        "volume",
        "Component 2",
        points=(x, residuals),
    )
    dots = [line for line in fig.axes[0].lines if line.get_label() == "residuals"]
    assert len(dots) == 1 and np.allclose(dots[0].get_ydata(), residuals)


def test_a_dense_components_whole_span_draws_what_it_takes_up() -> None:
    """Held-out El Niño: the whole span of a 60-year monthly cycle was an even dark band; its
    partial residuals drawn over it show where the data leave it (the 1983 and 1998 events)."""
    mean = np.sin(2 * np.pi * GRID)
    span = (float(X_DATA[0]), float(X_DATA[-1]))
    partial = np.sin(2 * np.pi * X_DATA) + 0.2 * np.random.default_rng(0).standard_normal(
        X_DATA.size
    )
    fig = dense_figures.component_figure(
        GRID, mean, 0.1 + 0 * GRID, span, "year", "y", "Component 1", points=(X_DATA, partial)
    )
    top, whole = fig.axes
    assert [line.get_label() for line in whole.lines].count("data less the others") == 1
    assert "data less the others" not in [line.get_label() for line in top.lines]
