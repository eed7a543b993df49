"""The forecast page's words and figure on the band's calibration on the series' own past
(:mod:`abcd_cli.calibration`, measured by :mod:`abcd_cli.kernel_search.backtest`): what the
backtest found and what it did to the band, or why the band is not calibrated."""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from abcd_cli.calibration import Z95, Calibration
from abcd_cli.decompose.averaged import PosteriorForecast
from abcd_cli.decompose.components import Decomposition
from abcd_cli.decompose.facts import Axis
from abcd_cli.reporting import figures as plots
from abcd_cli.reporting.numbers import format_number
from abcd_cli.reporting.sections import Frame
from abcd_cli.reporting.wording import format_span, join_words

#: Factors within this of 1 are said as "as wide as the mixture gives it" (two decimals).
SAME = 0.005


def calibration_part(
    dec: Decomposition, posterior: PosteriorForecast | None, frame: Frame
) -> dict[str, Any]:
    """The section's keys on the calibration: its sentence (``calibration``) and, when the
    backtest ran, its figure (``figure_calibration``); {} without a calibration (a greedy
    search, or a model file written before calibrations)."""
    if posterior is None or posterior.calibration is None:
        return {}
    c = posterior.calibration
    part: dict[str, Any] = {"calibration": calibration_sentence(c, dec.axis)}
    if c.present and c.z.size:
        part["figure_calibration"] = frame.embed(
            partial(backtest_figure, c, horizon_label(dec.axis)),
            "Standardised errors of forecasts from the series' own past, by horizon",
        )
    return part


def table_calibration_note(dec: Decomposition, search: Mapping[str, Any]) -> str | None:
    """For a model without a series (a table of several inputs, or of one input that is not
    time), why its band is not calibrated: the sentence of the model file's absent
    calibration; None for a series (its forecast says it) or a search without one."""
    entry = search.get("calibration")
    if dec.series is not None or entry is None:
        return None
    return calibration_sentence(Calibration.from_dict(entry), dec.axis)


def calibration_sentence(c: Calibration, axis: Axis) -> str:
    """The calibration in words: "Forecasts made from this series' own past (8 forecast
    origins ...) missed by more than their bands said, so the band past the data is 1.7 times
    as wide up to a horizon of 8.5 months, 2.2 times up to 1.4 years and ...", or why there is
    none."""
    if not c.present:
        return f"The band is not calibrated on the series' own past: {c.reason}."
    made = (
        f"Forecasts made from this series' own past ({c.origins} forecast origins in its last"
        f" half, {c.errors} errors)"
    )
    wider = any(f > 1 + SAME for f in c.factors)
    narrower = any(f < 1 - SAME for f in c.factors)
    if not wider and not narrower:
        return (
            f"{made} missed by no more than their bands said, so the band is as the mixture"
            " gives it."
        )
    changed = [abs(f - 1) > SAME for f in c.factors]
    where = "" if all(changed) else " at some horizons"
    missed = (
        "by more than their bands said at some horizons and by less at others"
        if wider and narrower
        else f"by {'more' if wider else 'less'} than their bands said{where}"
    )
    bands = [
        _band_width(f) + (" up to a horizon of " if i == 0 else " up to ") + format_span(edge, axis)
        for i, (f, edge) in enumerate(zip(c.factors, c.edges, strict=True))
    ]
    return (
        f"{made} missed {missed}, so the band past the data is {join_words(bands)}. The figure"
        " below shows those errors, each divided by the spread its forecast gave it, against"
        " the band's edges."
    )


def _band_width(factor: float) -> str:
    """One band's width in words: "as the mixture gives it" within ``SAME`` of 1, else "1.7
    times as wide" (two decimals where one would print 1.0)."""
    if abs(factor - 1) <= SAME:
        return "as the mixture gives it"
    decimals = 1 if abs(factor - 1) >= 0.05 else 2
    return f"{format_number(factor, decimals=decimals)} times as wide"


def horizon_label(axis: Axis) -> str:
    """The figure's x label: the horizon in the data's time units."""
    unit = axis.unit
    return f"horizon ({unit}s)" if unit else f"horizon (units of {axis.x_name})"


def backtest_figure(c: Calibration, x_label: str) -> Figure:
    """The backtest's standardised errors z against their horizons h, with the uncalibrated
    95% band (±1.96) and the calibrated one (±1.96·f(h))."""
    fig, ax = plots.new_axes(plots.FULL_WIDTH, plots.FULL_HEIGHT)
    ax.scatter(c.h, c.z, s=4, color=plots.DATA_COLOUR, linewidths=0, label="standardised error")
    h = np.linspace(0.0, float(c.edges[-1]), 200)[1:]
    f = c.factor_at(h)
    for sign in (1, -1):
        ax.plot(
            h,
            sign * Z95 * np.ones_like(h),
            color=plots.CHECK_BAND,
            linewidth=1.0,
            label="band given" if sign == 1 else None,
        )
        ax.plot(
            h,
            sign * Z95 * f,
            color=plots.ACCENT,
            linewidth=1.2,
            label="band calibrated" if sign == 1 else None,
        )
    plots.set_labels(ax, x_label, "error / forecast's sd")
    ax.legend(loc="upper left", fontsize=plots.FONT_SIZE - 1, frameon=False)
    return fig
