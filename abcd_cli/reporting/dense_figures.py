"""A series' component figures (the component alone, and the sum of the components so far
against the data), half width. A curve too dense to read over the whole span
(:mod:`density`) gets two panels: above, its last few cycles of the data, drawn from the
decomposition's fine window of whole periods (``decompose/window.py``) when there is one, else
from the whole span's grid over about four peak spacings; below, the whole span as an
envelope (the lowest and highest value per slice of one or more whole periods of the cycle the
curve shows, among its covariance's periods: ``density.shown_period``, ``density.envelope``),
so that neither panel is a solid block and a steady cycle's envelope is a band of even width.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from abcd_cli.reporting.density import MAX_PEAKS_PER_INCH, dense_window, envelope, shown_period
from abcd_cli.reporting.figures import (
    ACCENT,
    BAND_ALPHA,
    HALF_HEIGHT,
    HALF_WIDTH,
    ArrayLike,
    as_arrays,
    draw_band,
    draw_points,
    new_axes,
    new_panels,
    set_labels,
    shade_extrapolation,
    zoom_to,
)

#: The heading of a dense curve's window: it ends at the data's end and spans a few of the
#: curve's cycles (whole periods on the fine window; peak spacings on the whole span's grid,
#: which for a modulated or jagged cycle are fewer than its cycles). Short, so that
#: 'Sum of components 1-12: end of the data' fits a half-width panel.
WINDOW_TITLE = "end of the data"
#: What the caption says of a section whose figures have two panels: the envelope below
#: shows how the cycles' size and level move, not their shape (the window above shows that).
ENVELOPE_NOTE = (
    "Where a figure has two panels, the upper one shows the end of the data, where the shape"
    " of each cycle can be read; the lower one shows the whole span as an envelope: the dark"
    " band is the range the fitted mean sweeps within each slice of one or more whole periods"
    " of the cycle it shows, the light one that of its ±2 standard deviations. The envelope"
    " shows how the size and level of the cycles change across the data, not their shape: a"
    " band of even width is a cycle that keeps its size."
)
#: Added to ``ENVELOPE_NOTE`` when a curve drawn as an envelope has no period to slice by.
NO_PERIOD_NOTE = (
    "A curve with no period is cut into as many equal slices as it has peaks, at most"
    f" {int(MAX_PEAKS_PER_INCH * HALF_WIDTH)} across the panel."
)


def is_dense(x_grid: ArrayLike, mean: ArrayLike, end: float) -> bool:
    """Whether a half-width figure of ``mean`` on ``x_grid`` draws two panels (a window and
    the whole span's envelope) because the curve is too dense to read whole."""
    x_grid, mean = as_arrays(("x_grid", x_grid), ("mean", mean))
    return dense_window(x_grid, mean, end, HALF_WIDTH) is not None


#: A curve on the fine window: (x, mean, sd).
Curve = tuple[ArrayLike, ArrayLike, ArrayLike]


def envelope_period(x: ArrayLike, mean: ArrayLike, periods: Sequence[float]) -> float | None:
    """The period whose whole multiples slice a dense curve's envelope: that of the cycle
    ``mean`` shows among its covariance's ``periods`` (``density.shown_period``); None when
    none fits twice in the span."""
    x, mean = as_arrays(("x", x), ("mean", mean))
    return shown_period(x, mean, periods)


def draw_envelope(
    ax: Axes,
    x: np.ndarray,
    mean: np.ndarray,
    sd: np.ndarray,
    label: str,
    periods: Sequence[float] = (),
) -> None:
    """The whole span of a dense curve as its envelope: the range the mean sweeps in each
    slice of whole periods of the cycle it shows among ``periods`` (solid) inside the range
    of its ±2 sd band (translucent)."""
    sd = np.abs(sd)
    centres, ((low, high), (band_low, _), (_, band_high)) = envelope(
        x,
        HALF_WIDTH,
        mean,
        mean - 2 * sd,
        mean + 2 * sd,
        period=shown_period(x, mean, periods),
    )
    ax.fill_between(
        centres, band_low, band_high, color=ACCENT, alpha=BAND_ALPHA, linewidth=0, label="±2 sd"
    )
    ax.fill_between(
        centres, low, high, color=ACCENT, alpha=0.4, linewidth=0, label=f"range of the {label}"
    )


def _window_panel(
    ax: Axes,
    fine: Curve | None,
    coarse: tuple[np.ndarray, np.ndarray, np.ndarray],
    window: tuple[float, float],
    label: str,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Draw the window's curve (the fine one when given) and return what was drawn."""
    x, mean, sd = (
        coarse if fine is None else as_arrays(("x", fine[0]), ("m", fine[1]), ("s", fine[2]))
    )
    draw_band(ax, x, mean, sd, label)
    low, high = (window[0], window[1]) if fine is None else (float(x.min()), float(x.max()))
    zoom_to(ax, (low, high), x, mean - 2 * np.abs(sd), mean + 2 * np.abs(sd))
    return x, mean, sd


def component_figure(
    x_grid: ArrayLike,
    mean: ArrayLike,
    sd: ArrayLike,
    x_data_range: tuple[float, float],
    x_label: str,
    y_label: str,
    title: str,
    fine: Curve | None = None,
    periods: Sequence[float] = (),
    points: tuple[ArrayLike, ArrayLike] | None = None,
) -> Figure:
    """Posterior mean ± 2 sd of one component, half width; the range beyond the data shaded;
    ``points``: what it takes up at the data (the data less the other components), drawn as
    dots over the whole span: a noise's residuals, a dense cycle's partial residuals over its
    envelope, so that neither is a solid block.
    A curve too dense to read is drawn over its last few cycles (``fine``: the component on
    the decomposition's window), with the whole span's envelope in a second panel below,
    sliced by whole periods of the cycle it shows among its covariance's ``periods``."""
    x_grid, mean, sd = as_arrays(("x_grid", x_grid), ("mean", mean), ("sd", sd))
    end = float(x_data_range[1])
    window = dense_window(x_grid, mean, end, HALF_WIDTH)
    if window is None:
        fig, ax = new_axes(HALF_WIDTH, HALF_HEIGHT)
        if points is not None:
            px, py = as_arrays(("x", points[0]), ("residuals", points[1]))
            draw_points(ax, px, py, size=1.6, label="residuals")
        draw_band(ax, x_grid, mean, sd, "fitted mean")
        shade_extrapolation(ax, x_grid, end)
        set_labels(ax, x_label, y_label, title)
        return fig
    fig, top, bottom = new_panels(HALF_WIDTH, HALF_HEIGHT)
    _window_panel(top, fine, (x_grid, mean, sd), window, "fitted mean")
    set_labels(top, x_label, y_label, f"{title}: {WINDOW_TITLE}")
    draw_envelope(bottom, x_grid, mean, sd, "fitted mean", periods)
    if points is not None:
        px, py = as_arrays(("x", points[0]), ("residuals", points[1]))
        draw_points(bottom, px, py, size=1.2, label="data less the others")
        bottom.lines[-1].set_zorder(3)  # above the envelope, even when thinned
    shade_extrapolation(bottom, x_grid, end)
    set_labels(bottom, x_label, y_label, f"{title}: whole span")
    return fig


def cumulative_figure(
    x_grid: ArrayLike,
    mean: ArrayLike,
    sd: ArrayLike,
    x: ArrayLike,
    y: ArrayLike,
    x_label: str,
    y_label: str,
    title: str,
    fine: Curve | None = None,
    period: float | None = None,
    periods: Sequence[float] = (),
) -> Figure:
    """Sum of the components so far (mean ± 2 sd) against the data points, half width; a
    curve too dense to read drawn as :func:`component_figure` draws it, over ``period``s
    when given (a cycle with rough terms: its window shows whole cycles, not their wiggles),
    its envelope sliced by whole periods of the cycle it shows among the summed components'
    ``periods``. The window's y limits hold its ±2 sd band and the data there."""
    x_grid, mean, sd = as_arrays(("x_grid", x_grid), ("mean", mean), ("sd", sd))
    x, y = as_arrays(("x", x), ("y", y))
    end = float(np.max(x)) if x.size else float(np.max(x_grid))
    window = dense_window(x_grid, mean, end, HALF_WIDTH, period)
    if window is None:
        fig, ax = new_axes(HALF_WIDTH, HALF_HEIGHT)
        draw_band(ax, x_grid, mean, sd, "sum of components")
        draw_points(ax, x, y, size=1.8)
        set_labels(ax, x_label, y_label, title)
    else:
        fig, top, ax = new_panels(HALF_WIDTH, HALF_HEIGHT)
        wx, wmean, wsd = _window_panel(top, fine, (x_grid, mean, sd), window, "sum of components")
        draw_points(top, x, y, size=1.8)
        band = 2 * np.abs(wsd)
        zoom_to(
            top,
            top.get_xlim(),
            np.concatenate([wx, wx, x]),
            np.concatenate([wmean - band, wmean + band, y]),
        )
        set_labels(top, x_label, y_label, f"{title}: {WINDOW_TITLE}")
        draw_envelope(ax, x_grid, mean, sd, "sum of components", periods)
        draw_points(ax, x, y, size=1.8)
        ax.lines[-1].set_zorder(3)  # above the envelope, even when thinned
        set_labels(ax, x_label, y_label, f"{title}: whole span")
    if x.size:
        shade_extrapolation(ax, x_grid, end)
    return fig
