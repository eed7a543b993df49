"""Figures for the report: matplotlib functions that take arrays and return a ``Figure``.

No pyplot and no global state: every function builds a :class:`matplotlib.figure.Figure`
directly and styles its own axes, so the functions are safe in worker processes and do not
touch ``rcParams``. :func:`figure_to_svg`, :func:`figure_to_png_base64` and
:func:`embed_figure` turn a figure into the strings the report context holds.

Style: full-width figures are 6.5 in wide, half-width figures 3.2 in (two fit side by side on an
A4 page); a quiet grey for data points, one accent colour for means, a translucent band of the
accent colour for ±2 standard deviations, a light grey shade over the extrapolated range.

Long series (more than ``thinning.THIN_ABOVE`` points) are drawn thinned to each pixel
column's extremes (:mod:`abcd_cli.reporting.thinning`), their data points lighter and beneath
the model's curves, so the figure stays light and the curves stay visible.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator, ScalarFormatter

from abcd_cli.reporting.thinning import COLUMNS_PER_INCH, needs_thinning, thin

FULL_WIDTH = 6.5
HALF_WIDTH = 3.2
FULL_HEIGHT = 2.5
HALF_HEIGHT = 2.35

DATA_COLOUR = "#3a3a3a"
DENSE_DATA_COLOUR = "#8f8f8f"  # the data of a long series, drawn beneath the model's curves
ACCENT = "#1f5d99"
AVERAGE_COLOUR = "#b35806"  # the several searches' averaged forecast
# the posterior's structures past the data, most probable first (none blue or orange)
STRUCTURE_COLOURS = ("#5e3c99", "#1b7837", "#c51b7d", "#4d4d4d", "#01665e")
BAND_ALPHA = 0.22
CHECK_BAND = "#9aa5b1"
EXTRAPOLATION_SHADE = "#000000"
EXTRAPOLATION_ALPHA = 0.045
GRID_COLOUR = "#d9d9d9"
TEXT_COLOUR = "#222222"
FONT_SIZE = 8.0
TITLE_SIZE = 8.5

CHECK_LABELS: dict[str, tuple[str, str]] = {
    "acf": ("Lag", "Autocorrelation"),
    "autocorrelation": ("Lag", "Autocorrelation"),
    "periodogram": ("Frequency", "Power"),
    "quantile-quantile": ("Theoretical quantile", "Observed quantile"),
    "qq": ("Theoretical quantile", "Observed quantile"),
}

SVG_METADATA = ("Date", "Creator", "Format", "Type")  # set to None: no <metadata> block

ArrayLike = Sequence[float] | np.ndarray


def as_arrays(*named: tuple[str, Any]) -> list[np.ndarray]:
    """Convert to 1-d float arrays of one common length, naming the culprit otherwise."""
    out = [np.asarray(value, dtype=float).ravel() for _, value in named]
    lengths = {len(a) for a in out}
    if len(lengths) > 1:
        sizes = ", ".join(f"{name}={len(a)}" for (name, _), a in zip(named, out, strict=True))
        raise ValueError(f"arrays must have the same length, got {sizes}")
    return out


def new_axes(width: float, height: float) -> tuple[Figure, Axes]:
    """A figure with one styled axes, laid out so labels are never clipped."""
    fig = Figure(figsize=(width, height), layout="constrained")
    fig.get_layout_engine().set(w_pad=0.03, h_pad=0.03)
    ax = fig.add_subplot()
    _style(ax)
    return fig, ax


def new_panels(width: float, height: float) -> tuple[Figure, Axes, Axes]:
    """A figure of two styled axes, one above the other, each ``height`` high: a window of a
    dense curve above, its whole span below."""
    fig = Figure(figsize=(width, 2 * height), layout="constrained")
    fig.get_layout_engine().set(w_pad=0.03, h_pad=0.03)
    top, bottom = fig.subplots(2, 1)
    _style(top)
    _style(bottom)
    return fig, top, bottom


def _style(ax: Axes) -> None:
    """The report's look for one axes: white, a light grid, no top or right spine."""
    ax.set_facecolor("white")
    ax.grid(True, color=GRID_COLOUR, linewidth=0.6, alpha=0.8)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    for side in ("left", "bottom"):
        ax.spines[side].set_color("#888888")
        ax.spines[side].set_linewidth(0.7)
    ax.tick_params(labelsize=FONT_SIZE - 0.5, colors="#444444", width=0.6, length=3)
    ax.xaxis.label.set_color(TEXT_COLOUR)
    ax.yaxis.label.set_color(TEXT_COLOUR)
    _plain_ticks(ax)


#: Ticks on the x axis of a dense curve's window (labels such as 1959.25 overlapped at more).
WINDOW_TICKS = 4


def zoom_to(ax: Axes, window: tuple[float, float], x: np.ndarray, *curves: np.ndarray) -> None:
    """Show only ``window`` of x, the y limits fitted to the ``curves`` (on x) there; at
    most ``WINDOW_TICKS`` ticks on x, as its labels may need decimals (1959.25)."""
    low, high = window
    inside = (x >= low) & (x <= high)
    values = np.concatenate([c[inside] for c in curves]) if inside.any() else np.zeros(0)
    ax.set_xlim(low, high)
    ax.xaxis.set_major_locator(MaxNLocator(nbins=WINDOW_TICKS, steps=[1, 2, 2.5, 5, 10]))
    if values.size and np.ptp(values) > 0:
        pad = 0.05 * float(np.ptp(values))
        ax.set_ylim(float(values.min()) - pad, float(values.max()) + pad)


def _plain_ticks(ax: Axes) -> None:
    """No offset on either axis; plain numbers and round steps on x so decimal years read as
    years (1950, 1952, ... rather than 1950.0, 1952.5)."""
    ax.xaxis.set_major_locator(MaxNLocator(nbins="auto", steps=[1, 2, 2.5, 5, 10], integer=True))
    x_format = ScalarFormatter(useOffset=False)
    x_format.set_scientific(False)
    ax.xaxis.set_major_formatter(x_format)
    ax.yaxis.set_major_formatter(ScalarFormatter(useOffset=False))


def set_labels(ax: Axes, x_label: str, y_label: str, title: str | None = None) -> None:
    ax.set_xlabel(x_label, fontsize=FONT_SIZE)
    ax.set_ylabel(y_label, fontsize=FONT_SIZE)
    if title:
        ax.set_title(title, fontsize=TITLE_SIZE, color=TEXT_COLOUR, loc="left", pad=4)


def _columns(ax: Axes) -> int:
    """Pixel columns across the figure at the PNG resolution."""
    return int(ax.figure.get_figwidth() * COLUMNS_PER_INCH)


def draw_band(ax: Axes, x: np.ndarray, mean: np.ndarray, sd: np.ndarray, label: str) -> None:
    """Posterior mean as a line with a translucent ±2 sd band (a long one thinned)."""
    sd = np.abs(sd)
    draw_interval(ax, x, mean, mean - 2 * sd, mean + 2 * sd, label, "±2 sd")


def draw_interval(
    ax: Axes,
    x: np.ndarray,
    mean: np.ndarray,
    low: np.ndarray,
    high: np.ndarray,
    label: str,
    band_label: str,
) -> None:
    """A mean as a line with a translucent band from ``low`` to ``high`` (a long one
    thinned)."""
    order = np.argsort(x, kind="stable")
    if needs_thinning(x.size):
        order = thin(x, _columns(ax), low, high, mean)
    x, mean, low, high = x[order], mean[order], low[order], high[order]
    ax.fill_between(x, low, high, color=ACCENT, alpha=BAND_ALPHA, linewidth=0, label=band_label)
    ax.plot(x, mean, color=ACCENT, linewidth=1.3, label=label)


def _legend(ax: Axes, loc: str) -> None:
    """A small legend on a translucent white box, so it stays legible over the data."""
    ax.legend(
        loc=loc,
        fontsize=FONT_SIZE - 1.5,
        frameon=True,
        framealpha=0.85,
        edgecolor="none",
        handlelength=1.5,
        borderaxespad=0.3,
    )


def draw_points(
    ax: Axes, x: np.ndarray, y: np.ndarray, size: float = 2.2, label: str = "data"
) -> None:
    """The data as dots; a long series thinned, smaller, lighter and beneath the curves."""
    style: dict[str, Any] = {"markersize": size, "color": DATA_COLOUR, "alpha": 0.8}
    if needs_thinning(x.size):
        keep = thin(x, _columns(ax), y)
        x, y = x[keep], y[keep]
        style = {"markersize": size * 0.6, "color": DENSE_DATA_COLOUR, "alpha": 0.7, "zorder": 0.9}
    ax.plot(x, y, linestyle="none", marker="o", markeredgewidth=0, label=label, **style)


def shade_extrapolation(ax: Axes, x_grid: np.ndarray, data_end: float, label: bool = False) -> None:
    """Shade the part of the grid beyond the last data point; with ``label``, name it if there
    is room."""
    if x_grid.size == 0:
        return
    grid_end = float(np.max(x_grid))
    if not grid_end > data_end:
        return
    ax.axvspan(
        data_end, grid_end, color=EXTRAPOLATION_SHADE, alpha=EXTRAPOLATION_ALPHA, linewidth=0
    )
    ax.axvline(data_end, color="#777777", linewidth=0.7, linestyle=(0, (3, 2)))
    grid_start = min(float(np.min(x_grid)), data_end)
    if label and (grid_end - data_end) >= 0.12 * (grid_end - grid_start):
        ax.text(
            (data_end + grid_end) / 2,
            0.98,
            "extrapolation",
            transform=ax.get_xaxis_transform(),
            ha="center",
            va="top",
            fontsize=FONT_SIZE - 1.5,
            color="#666666",
            style="italic",
        )
    ax.set_xlim(grid_start, grid_end)


def data_figure(x: ArrayLike, y: ArrayLike, x_label: str, y_label: str) -> Figure:
    """The raw series: points joined by a faint line, full width."""
    x, y = as_arrays(("x", x), ("y", y))
    fig, ax = new_axes(FULL_WIDTH, FULL_HEIGHT)
    order = thin(x, _columns(ax), y) if needs_thinning(x.size) else np.argsort(x, kind="stable")
    ax.plot(x[order], y[order], color=DATA_COLOUR, linewidth=0.6, alpha=0.45)
    draw_points(ax, x, y, size=2.6)
    ax.margins(x=0.01)
    set_labels(ax, x_label, y_label)
    return fig


def forecast_figure(
    x: ArrayLike,
    y: ArrayLike,
    x_grid: ArrayLike,
    mean: ArrayLike,
    sd: ArrayLike,
    x_label: str,
    y_label: str,
    averaged: tuple[ArrayLike, ArrayLike, ArrayLike] | None = None,
    band: tuple[ArrayLike, ArrayLike] | None = None,
    structures: Sequence[tuple[str, ArrayLike]] | None = None,
) -> Figure:
    """The full model's posterior mean ± 2 sd over the grid with the data, full width, or,
    with ``band`` (2.5% and 97.5% quantiles on the grid), the mean within that central 95%;
    with ``averaged`` (mean, 2.5% and 97.5% quantiles on the grid), the several searches'
    averaged forecast as a dashed line between dotted bounds; with ``structures`` (a label
    and a mean on the grid each, most probable first), those means as thin lines past the
    data.

    Lines rather than a fan of quantile bands: where structures disagree the mixture may have
    several humps, which nested bands (50%, 80%, 95%) hide within one widening shape, while
    a line per structure shows each future and, by its label, how much weight it holds."""
    x, y = as_arrays(("x", x), ("y", y))
    x_grid, mean, sd = as_arrays(("x_grid", x_grid), ("mean", mean), ("sd", sd))
    fig, ax = new_axes(FULL_WIDTH, FULL_HEIGHT + 0.2)
    if band is None:
        draw_band(ax, x_grid, mean, sd, "forecast mean")
    else:
        low, high = as_arrays(("band 2.5%", band[0]), ("band 97.5%", band[1]))
        draw_interval(ax, x_grid, mean, low, high, "forecast mean", "central 95%")
    if averaged is not None:
        grid, *lines = as_arrays(
            ("x_grid", x_grid),
            ("averaged mean", averaged[0]),
            ("averaged 2.5%", averaged[1]),
            ("averaged 97.5%", averaged[2]),
        )
        order = np.argsort(grid, kind="stable")
        for line, style, label in zip(
            lines,
            ((0, (5, 2)), (0, (1, 1.5)), (0, (1, 1.5))),
            ("searches averaged", "their central 95%", None),
            strict=True,
        ):
            ax.plot(
                grid[order],
                line[order],
                color=AVERAGE_COLOUR,
                linewidth=1.0,
                linestyle=style,
                label=label,
            )
    if structures and x.size:
        _structure_lines(ax, x_grid, float(np.max(x)), structures)
    draw_points(ax, x, y, size=2.4)
    if x.size:
        shade_extrapolation(ax, x_grid, float(np.max(x)), label=True)
    set_labels(ax, x_label, y_label)
    _legend(ax, "upper left")
    return fig


def _structure_lines(
    ax: Axes, x_grid: np.ndarray, data_end: float, structures: Sequence[tuple[str, ArrayLike]]
) -> None:
    """Each structure's mean as a thin line from the last grid point within the data to the
    grid's end, in its own colour, labelled."""
    order = np.argsort(x_grid, kind="stable")
    grid = x_grid[order]
    start = max(int(np.searchsorted(grid, data_end, side="right")) - 1, 0)
    for k, (label, mean) in enumerate(structures):
        (line,) = as_arrays((f"structure {label}", mean))
        if line.size != grid.size:
            raise ValueError(f"structure {label}: {line.size} values for {grid.size} grid points")
        ax.plot(
            grid[start:],
            line[order][start:],
            color=STRUCTURE_COLOURS[k % len(STRUCTURE_COLOURS)],
            linewidth=0.9,
            label=label,
        )


def check_figure(
    kind: str,
    lag_or_freq: ArrayLike,
    observed: ArrayLike,
    low: ArrayLike,
    high: ArrayLike,
    title: str,
) -> Figure:
    """A posterior predictive check, half width: the observed statistic as a line over the
    central 95% band of the statistic on data simulated from the model.

    ``kind`` is ``"acf"`` (x = lag), ``"periodogram"`` (x = frequency) or ``"quantile-quantile"``
    (x = theoretical quantiles, ``observed`` = observed quantiles, with the line y = x).
    """
    t, observed, low, high = as_arrays(
        ("lag_or_freq", lag_or_freq), ("observed", observed), ("low", low), ("high", high)
    )
    key = kind.strip().lower()
    x_label, y_label = CHECK_LABELS.get(key, ("", kind))
    qq = key in ("quantile-quantile", "qq")
    order = np.argsort(t, kind="stable")
    t, observed, low, high = t[order], observed[order], low[order], high[order]
    fig, ax = new_axes(HALF_WIDTH, HALF_HEIGHT)
    ax.fill_between(
        t, low, high, color=CHECK_BAND, alpha=0.35, linewidth=0, label="95% of simulations"
    )
    if qq:
        finite = np.concatenate([t, observed])
        finite = finite[np.isfinite(finite)]
        if finite.size:
            lo, hi = float(finite.min()), float(finite.max())
            ax.plot([lo, hi], [lo, hi], color="#888888", linewidth=0.7, linestyle=(0, (3, 2)))
        ax.plot(
            t,
            observed,
            linestyle="none",
            marker="o",
            markersize=2.2,
            markeredgewidth=0,
            color=ACCENT,
            label="observed",
        )
    else:
        # a series of 5-7 points has a single lag: a line of one point would not show
        marker = "o" if t.size == 1 else None
        ax.plot(t, observed, color=ACCENT, linewidth=1.1, marker=marker, label="observed")
        if key in ("acf", "autocorrelation"):
            ax.axhline(0.0, color="#888888", linewidth=0.6)
    if t.size > 1 and t[-1] > t[0]:
        ax.set_xlim(float(t[0]), float(t[-1]))
    set_labels(ax, x_label, y_label, title)
    _legend(ax, "upper left" if qq else "upper right")
    return fig


def figure_to_svg(fig: Figure) -> str:
    """The figure as SVG markup starting at ``<svg`` (no XML prologue, no DOCTYPE, no date),
    text drawn as paths so it needs no fonts."""
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", metadata=dict.fromkeys(SVG_METADATA), facecolor="white")
    text = buffer.getvalue()
    return text[text.index("<svg") :].strip()


def figure_to_png_base64(fig: Figure, dpi: int = 150) -> str:
    """The figure as a PNG data URI: ``data:image/png;base64,...``."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, metadata={"Software": None}, facecolor="white")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def embed_figure(fig: Figure, alt: str, kind: Literal["svg", "png"] = "svg") -> dict[str, str]:
    """The report context's figure entry: ``{"kind", "content", "alt"}``."""
    if kind == "svg":
        return {"kind": "svg", "content": figure_to_svg(fig), "alt": alt}
    if kind == "png":
        return {"kind": "png", "content": figure_to_png_base64(fig), "alt": alt}
    raise ValueError(f"figure kind must be 'svg' or 'png', got {kind!r}")
