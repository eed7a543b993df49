"""A time axis shorter than a year or so reads as dates, not decimal years
(reporting/date_ticks.py): internet's hourly data were labelled 2004.90, 2004.92, ..."""

from __future__ import annotations

import re

import numpy as np

from abcd_cli.data.dates import from_calendar_year
from abcd_cli.decompose.facts import Axis
from abcd_cli.reporting import figures as plots
from abcd_cli.reporting.date_ticks import figure_dates

YEARS = Axis("year", "x", "traffic")


def _labels(x: np.ndarray) -> tuple[list[str], list[float], str]:
    fig = plots.data_figure(x, np.sin(np.arange(x.size) / 3.8), "x (years)", "traffic")
    figure_dates(fig, YEARS)
    ax = fig.axes[0]
    labels = [ax.xaxis.get_major_formatter()(t, k) for k, t in enumerate(ax.get_xticks())]
    return labels, list(ax.get_xticks()), ax.get_xlabel()


def test_hourly_data_over_weeks_are_labelled_with_dates() -> None:
    x = 2004.88887 + np.arange(900) / (24 * 366.0)  # 900 hours from 20 November 2004
    labels, ticks, label = _labels(x)
    assert len(labels) >= 3
    assert all(re.fullmatch(r"\d{1,2} [A-Z][a-z]{2}( \d\d:\d\d)?", t) for t in labels), labels
    for text, tick in zip(labels, ticks, strict=True):  # each label is the date at its tick
        moment = from_calendar_year(tick)
        assert moment is not None and moment.strftime("%d %b").lstrip("0") in text
        assert moment.hour == 0 and moment.minute == 0  # round dates
    assert label == "x (date, 2004)"


def test_a_long_axis_keeps_its_years() -> None:
    x = 1950.0 + np.arange(240) / 12.0
    labels, _, label = _labels(x)
    assert label == "x (years)" and all(re.fullmatch(r"\d{4}", t) for t in labels if t)


def test_each_panel_of_a_dense_figure_over_two_months_reads_as_dates() -> None:
    """Internet's whole-span panels kept decimal years (2004.90, 2004.95): no tick step fitted
    the panel's width, so none was chosen."""
    from abcd_cli.reporting import dense_figures

    grid = np.linspace(2004.889, 2005.112, 400)
    mean = np.sin(2 * np.pi * grid * 365.0)
    fig = dense_figures.component_figure(
        grid, mean, 0 * mean + 0.1, (2004.889, 2005.075), "x (years)", "y", "C"
    )
    figure_dates(fig, YEARS)
    for ax in fig.axes:
        labels = [ax.xaxis.get_major_formatter()(t, k) for k, t in enumerate(ax.get_xticks())]
        assert len(labels) >= 2 and not any(re.search(r"\d{4}\.\d", t) for t in labels), labels
        assert ax.get_xlabel().startswith("x (date, ")
