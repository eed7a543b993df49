"""The report's sections, one function each: data, summary, summary table, checks and
appendix (the components' sections are in :mod:`abcd_cli.reporting.component_sections`, the
forecast in :mod:`~abcd_cli.reporting.forecast`, the variance table of a model of several
inputs in :mod:`~abcd_cli.reporting.variance_section`).

Each function takes the finished :class:`~abcd_cli.decompose.components.Decomposition` of a
model of any number of inputs (and what else it needs) and returns that section's plain part of
the report context: sentences, numbers and embedded figures. Nothing is computed about the
model here.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from abcd_cli import __version__
from abcd_cli.decompose.certainty import PosteriorFacts
from abcd_cli.decompose.components import Decomposition
from abcd_cli.decompose.facts import Axis, ModelCheck
from abcd_cli.reporting import describe, inputs_figures
from abcd_cli.reporting import figures as plots
from abcd_cli.reporting.certainty import (
    certainty_summary,
    component_finding,
    component_tag,
    findings_json,
)
from abcd_cli.reporting.component_text import column, component_phrases
from abcd_cli.reporting.date_ticks import figure_dates
from abcd_cli.reporting.effects import summary_bullets
from abcd_cli.reporting.numbers import format_number
from abcd_cli.reporting.sampler_appendix import is_sampler, sampler_settings, sampler_trace
from abcd_cli.reporting.trends import data_spacing, ends_precision
from abcd_cli.reporting.weak import weak_reasons
from abcd_cli.reporting.wording import (
    format_amount,
    format_position,
    format_span,
    join_words,
    number_word,
)

FIGURE_KIND = "svg"
PNG_ABOVE_POINTS = 1500  # larger series are drawn as PNG: vector plots of many points are slow

#: The summary table's first row: what the model predicts before any component.
BASELINE_NAMES = {
    "data": "Baseline (mean)",
    "zero": "Baseline (zero)",
    "constant": "Baseline (level)",
}
#: The statistics of a component that the context and the summary table carry.
TABLE_STATS = ("cum_r2", "delta_r2", "residual_r2", "cv_mae", "mae_reduction")
#: A cumulative R² the table shows as 100.0%.
FULL_R2 = 0.9995
#: Why a table of several inputs keeps only the quantile check.
CHECKS_LEFT_OUT = (
    " The autocorrelation and periodogram checks are left out: they read the residuals in"
    " the order of a time series, which the rows of a table of several inputs do not have."
)


@dataclass(frozen=True)
class Frame:
    """What every section's figures share: the data along the first input, its axis and
    labels."""

    axis: Axis
    x: np.ndarray
    y: np.ndarray
    figures: bool = True  # False: no figure is drawn (the JSON report has none)

    @property
    def x_label(self) -> str:
        return axis_label(self.axis)

    @property
    def y_label(self) -> str:
        return self.axis.y_name

    def embed(self, draw: Callable[[], Figure], alt: str) -> dict[str, str]:
        """The figure ``draw`` makes, as the context holds it: SVG, or PNG for long series,
        a time axis shorter than a year or so labelled with dates (``date_ticks``); nothing is
        drawn (an empty entry) when the frame has no figures."""
        if not self.figures:
            return {}
        kind = "png" if self.x.size > PNG_ABOVE_POINTS else FIGURE_KIND
        return plots.embed_figure(figure_dates(draw(), self.axis), alt, kind=kind)


def axis_label(axis: Axis) -> str:
    """An input's axis label: its name, with '(years)' on a calendar axis."""
    return f"{axis.x_name} (years)" if axis.is_time else axis.x_name


def frame_of(dec: Decomposition, figures: bool = True) -> Frame:
    """The decomposition's data along its first input, for its sections' figures."""
    return Frame(dec.axis, column(dec, 0), dec.model.y, figures)


# -- data ------------------------------------------------------------------------------------


def data_section(dec: Decomposition, n_dropped: int, frame: Frame) -> dict[str, Any]:
    """The data's description and its figure: y against x for a series; for several inputs
    y against each input, and the inputs' names and kinds."""
    level = level_sentence(dec.level, dec.axis) if dec.level else reference_sentence(dec)
    if dec.series is not None:
        draw = partial(plots.data_figure, frame.x, frame.y, frame.x_label, frame.y_label)
        return {
            "description": series_description(dec, n_dropped) + level,
            "figure": frame.embed(draw, "The data"),
        }
    draw = partial(
        inputs_figures.inputs_data_figure, dec.model.X, dec.model.y, list(dec.names), dec.y_name
    )
    return {
        "description": inputs_description(dec, n_dropped) + level,
        "inputs": [
            {"name": a.x_name, "kind": a.kind, "time": d == dec.time_dim}
            for d, a in enumerate(dec.axes)
        ],
        "figure": frame.embed(draw, f"{dec.y_name} against each input"),
    }


def _dropped(n_dropped: int) -> str:
    rows = "row" if n_dropped == 1 else "rows"
    if not n_dropped:
        return "no rows dropped"
    return f"{format_number(int(n_dropped))} {rows} with missing values dropped"


def format_mean(mean: float, spread: float) -> str:
    """The series' mean to the precision its spread is read at (the decimals that give the
    sd to two significant digits): levels of a few tenths measured from a mean of 1,360.65
    need its decimals, or a level of −0.50 would place the series below every observation."""
    digits = 1 - math.floor(math.log10(spread)) if spread > 0 and math.isfinite(spread) else 0
    return format_number(mean, decimals=digits) if digits > 0 else format_number(mean)


def reference_sentence(dec: Decomposition) -> str:
    """What every level and size in the report is measured from, stated once: the series'
    mean when the model subtracts it (``prior_mean`` "data"), else zero; a model with its own
    constant level says so in :func:`level_sentence`."""
    prior = dec.model.prior_mean
    if prior == "constant":
        return ""
    if prior == "zero":
        return f" Levels below are in the units of {dec.y_name}, measured from zero."
    mean = format_mean(dec.model.scaling.y_shift, dec.model.scaling.y_scale)
    return (
        f" The mean of {dec.y_name} is {mean}; every level below is in the units of {dec.y_name}"
        f" and measured from that mean (a component at −10 lies 10 below it)."
    )


def series_description(dec: Decomposition, n_dropped: int) -> str:
    """N, span, spacing, rows dropped."""
    axis, x = dec.axis, column(dec, 0)
    precision = ends_precision(x) if axis.is_time else None
    return (
        f"{format_number(int(x.size))} observations of {axis.y_name} from"
        f" {format_position(float(x.min()), axis, precision)}"
        f" to {format_position(float(x.max()), axis, precision)} (a span of"
        f" {format_span(float(x.max() - x.min()), axis)}), {_spacing_words(x, axis)};"
        f" {_dropped(n_dropped)}."
    )


#: Gaps between neighbouring observations within this share of their median read as one
#: spacing (calendar months of 28 to 31 days); a series with at least ``EVEN_GAPS`` of its
#: gaps so is regular with gaps, one with fewer irregular.
EVEN_SHARE = 0.15
EVEN_GAPS = 0.9


def _spacing_words(x: np.ndarray, axis: Axis) -> str:
    """'typically 1.0 month apart' for gaps within ``EVEN_SHARE`` of their median; for others
    their range and median ('at irregular intervals, from 1.0 day to 31 days apart, 2.0 days
    at the median': temperature's 'typically 2.0 days apart' hid that most gaps are a day)."""
    step = data_spacing(x)
    if step is None:
        return "with no spacing to speak of"
    gaps = np.diff(np.unique(np.asarray(x, dtype=float)))
    spacing = format_span(step, axis)
    even = np.abs(gaps - step) <= EVEN_SHARE * step
    low, high = format_span(float(gaps.min()), axis), format_span(float(gaps.max()), axis)
    if gaps.size < 2 or even.all():
        return f"typically {spacing} apart"
    if even.mean() >= EVEN_GAPS:  # a regular series with a few gaps (Mauna Loa's months)
        return f"typically {spacing} apart, with gaps of up to {high}"
    return f"at irregular intervals, from {low} to {high} apart, {spacing} at the median"


def inputs_description(dec: Decomposition, n_dropped: int) -> str:
    """N, each input's range, rows dropped."""

    def value(d: int, x: float) -> str:
        axis = dec.axes[d]
        return format_position(x, axis) if axis.is_time else format_number(x, 4, trim=True)

    ranges = [
        f"{name} from {value(d, float(column(dec, d).min()))}"
        f" to {value(d, float(column(dec, d).max()))}"
        for d, name in enumerate(dec.names)
    ]
    return (
        f"{format_number(int(dec.model.n))} observations of {dec.y_name} with"
        f" {number_word(len(dec.names))} inputs: {join_words(ranges)}; {_dropped(n_dropped)}."
    )


def level_sentence(level: tuple[float, float], axis: Axis) -> str:
    """The constant level of a ``--prior-mean constant`` model, with its standard deviation."""
    value, sd = level
    return (
        f" The components below are deviations from a constant level, estimated with the model"
        f" at {format_amount(value, axis)} (standard deviation {format_amount(sd, axis)})."
    )


# -- summary and its table ---------------------------------------------------------------------


#: What a greedy report says of the method that made it.
GREEDY_METHOD = (
    "These are the components of the one structure that the search scored best (the appendix"
    " gives its score and the settings), so the report gives no probabilities; a search that"
    " weighs its best structures against each other says how sure each finding is."
)


def summary_section(
    dec: Decomposition,
    facts: PosteriorFacts | None = None,
    weak: Mapping[int, str] | None = None,
) -> dict[str, Any]:
    """The executive summary's sentences and one bullet per component; with a posterior over
    structures (``facts``), its findings with their probabilities first, and each bullet
    tagged with the probability of what its component shows. ``weak``: the weak cycles'
    reasons by component index (``weak.weak_reasons``; computed here when not given)."""
    weak = weak_reasons(dec) if weak is None else weak
    phrases = [
        possibly(phrase, weak.get(c.index))
        for c, phrase in zip(dec.components, component_phrases(dec), strict=True)
    ]
    if facts is not None:
        settled = not facts.unsettled
        tags = [component_tag(component_finding(c, facts), dec, settled) for c in dec.components]
        phrases = [f"{p} ({tag})" if tag else p for p, tag in zip(phrases, tags, strict=True)]
    x_data = column(dec, 0) if dec.series is not None else None
    summary: dict[str, Any] = describe.summary_sentences(
        dec.components, dec.axis, x_data=x_data, phrases=phrases
    )
    if dec.series is None:  # what each component does along its inputs; small ones folded
        summary["bullets"] = summary_bullets(dec, phrases)
    if facts is None:
        return summary | {"method": GREEDY_METHOD}
    n = len(dec.components)
    summary["intro"] = (
        f"The most probable structure has {number_word(n)} additive"
        f" component{'' if n == 1 else 's'}."
    )
    return (
        summary
        | certainty_summary(facts, dec, weak)
        | {"findings": findings_json(facts, dec, weak)}
    )


def possibly(phrase: str, reason: str | None) -> str:
    """A weak cycle's bullet (``reporting/weak.py``): 'possibly a periodic function ... (not
    established: its period is one of four comparable peaks ...)'; other phrases unchanged."""
    return f"possibly {phrase} (not established: {reason})" if reason else phrase


def table_section(dec: Decomposition, components: list[dict[str, Any]]) -> dict[str, Any]:
    """The summary table: the baseline's error, then one row per component section; with
    several inputs, how the cross-validation's folds were drawn."""
    rows = [
        {"index": c["index"], "phrase": c["phrase"], **{k: c["stats"][k] for k in TABLE_STATS}}
        for c in components
    ]
    table = {
        "baseline": BASELINE_NAMES[dec.model.prior_mean],
        "baseline_mae": dec.baseline_mae,
        "rows": rows,
    }
    noise = [c.index for c in dec.components if c.is_noise]
    full = noise and dec.components[-1].cum_r2 >= FULL_R2
    table["noise_note"] = noise_sentence(noise[0]) if full else None
    if dec.series is None:
        table["folds"] = folds_sentence(dec)
    return table


def noise_sentence(index: int) -> str:
    """Why the table's last row reaches a cumulative R² of 100%: the posterior mean of every
    component, noise included, is E[f + ε | y] = y at the data."""
    return (
        f"With component {index}, the noise, the model's mean at the data passes through every"
        " observation, so the cumulative R² reaches 100% by construction once every component"
        " is in; how well the model fits is read from the CV MAE, which predicts points left"
        " out."
    )


def folds_sentence(dec: Decomposition) -> str:
    """How the cross-validation's folds of a table were drawn."""
    if dec.folds == "shuffled":
        return (
            "The cross-validation uses 10 folds of rows drawn at random (seeded, so the same"
            " seed gives the same folds): the rows of a table have no order to keep."
        )
    return (
        f"The cross-validation uses 10 blocks of consecutive {dec.names[dec.time_dim or 0]}:"
        " each block is predicted from the other times."
    )


# -- model checks ----------------------------------------------------------------------------


def check_curves(check: ModelCheck) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A check's observed curve and its simulations' band as drawn: the quantile check's
    statistic is the gap between the residuals' and the normal quantiles, drawn as the
    residuals' quantiles (the gap plus the normal quantile) against the line y = x."""
    if check.name != "quantile-quantile":
        return check.observed, check.simulated_low, check.simulated_high
    theory = check.lag_or_freq
    return check.observed + theory, check.simulated_low + theory, check.simulated_high + theory


def checks_section(dec: Decomposition, frame: Frame) -> dict[str, Any]:
    """The posterior predictive checks: the verdict, one row and one figure per check; a table
    of several inputs says why it has only the quantile check."""
    rows = [
        {
            "name": ch.name,
            "statistic": ch.statistic,
            "p_value": ch.p_value,
            "significant": ch.significant,
        }
        for ch in dec.checks
    ]
    figures = [
        frame.embed(
            partial(
                plots.check_figure, ch.name, ch.lag_or_freq, *check_curves(ch), ch.name.capitalize()
            ),
            f"Posterior predictive check: {ch.name}",
        )
        for ch in dec.checks
    ]
    text = describe.describe_checks(dec.checks) + ("" if dec.series else CHECKS_LEFT_OUT)
    return {"text": text, "rows": rows, "figures": figures}


# -- appendix --------------------------------------------------------------------------------


def appendix_section(dec: Decomposition, search: dict[str, Any]) -> dict[str, Any]:
    """What reproduces the run: the kernel (its inputs named by their columns when there are
    several), the search's trace, its settings and notes; the sampler's (``--method smc``) are
    its own settings and its trace by data step (``sampler_trace``, ``sampler``), as it has no
    levels."""
    settings = search.get("settings", {})
    elapsed = float(search.get("elapsed_seconds", 0.0))
    if is_sampler(search):
        return {
            "kernel": dec.model.user_kernel.to_text(digits=6, names=dec.names),
            "sampler_trace": sampler_trace(search),
            "settings": sampler_settings(settings, dec.model.engine.name),
            "seed": settings.get("seed", 0),
            "version": __version__,
            "elapsed": f"{format_number(elapsed, decimals=1)} s of sampling",
            "notes": list(search.get("notes", [])),
        }
    return {
        "kernel": dec.model.user_kernel.to_text(digits=6, names=dec.names),
        "trace": [
            {
                "level": t["level"],
                "structure": t.get("structure") or "(all failed)",
                "bic": t.get("bic") if t.get("bic") is not None else float("nan"),
                "candidates": t.get("candidates", 0),
            }
            for t in search.get("trace", [])
        ],
        "settings": [[k, str(v)] for k, v in settings.items()],
        "seed": settings.get("seed", 0),
        "version": __version__,
        "elapsed": f"{format_number(elapsed, decimals=1)} s of search",
        "notes": list(search.get("notes", []))
        + ([search["stopped_early"]] if search.get("stopped_early") else []),
    }
