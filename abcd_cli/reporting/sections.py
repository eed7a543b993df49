"""The report's sections, one function each: data, summary, summary table, components, checks
and appendix (the forecast is in :mod:`abcd_cli.reporting.forecast`).

Each function takes the finished :class:`~abcd_cli.decompose.components.Decomposition` (and
what else it needs) and returns that section's plain part of the report context: sentences,
numbers and embedded figures. Nothing is computed about the model here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np
from matplotlib.figure import Figure

from abcd_cli import __version__
from abcd_cli.decompose.components import Decomposition
from abcd_cli.decompose.facts import Axis, ComponentFacts
from abcd_cli.reporting import describe
from abcd_cli.reporting import figures as plots
from abcd_cli.reporting.numbers import format_number
from abcd_cli.reporting.trends import data_spacing, ends_precision
from abcd_cli.reporting.wording import format_amount, format_position, format_span

if TYPE_CHECKING:
    from abcd_cli.decompose.several_inputs import InputsDecomposition

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


@dataclass(frozen=True)
class Frame:
    """What every section's figures share: the data, the axis and its labels."""

    axis: Axis
    x: np.ndarray
    y: np.ndarray
    figures: bool = True  # False: no figure is drawn (the JSON report has none)

    @property
    def x_label(self) -> str:
        return f"{self.axis.x_name} (years)" if self.axis.is_time else self.axis.x_name

    @property
    def y_label(self) -> str:
        return self.axis.y_name

    def embed(self, draw: Callable[[], Figure], alt: str) -> dict[str, str]:
        """The figure ``draw`` makes, as the context holds it: SVG, or PNG for long series;
        nothing is drawn (an empty entry) when the frame has no figures."""
        if not self.figures:
            return {}
        kind = "png" if self.x.size > PNG_ABOVE_POINTS else FIGURE_KIND
        return plots.embed_figure(draw(), alt, kind=kind)


def frame_of(dec: Decomposition, figures: bool = True) -> Frame:
    """The decomposition's data and axis, for its sections' figures."""
    return Frame(dec.axis, dec.model.x, dec.model.y, figures)


# -- data ------------------------------------------------------------------------------------


def data_section(dec: Decomposition, n_dropped: int, frame: Frame | None = None) -> dict[str, Any]:
    """The data's description and its figure."""
    frame = frame or frame_of(dec)
    return {
        "description": data_description(dec, n_dropped),
        "figure": frame.embed(
            partial(plots.data_figure, frame.x, frame.y, frame.x_label, frame.y_label), "The data"
        ),
    }


def data_description(dec: Decomposition, n_dropped: int) -> str:
    """N, span, spacing, rows dropped; and the level the components are measured from, when the
    model estimates one."""
    axis, x = dec.axis, dec.model.x
    step = data_spacing(x)
    spacing = format_span(step, axis) if step is not None else "none"
    rows = "row" if n_dropped == 1 else "rows"
    dropped = f"{format_number(int(n_dropped))} {rows} with missing values dropped"
    precision = ends_precision(x) if axis.is_time else None
    return (
        f"{format_number(int(x.size))} observations of {axis.y_name} from"
        f" {format_position(float(x.min()), axis, precision)}"
        f" to {format_position(float(x.max()), axis, precision)} (a span of"
        f" {format_span(float(x.max() - x.min()), axis)}), typically {spacing} apart;"
        f" {dropped if n_dropped else 'no rows dropped'}."
    ) + (level_sentence(dec.level, axis) if dec.level else "")


def level_sentence(level: tuple[float, float], axis: Axis) -> str:
    """The constant level of a ``--prior-mean constant`` model, with its standard deviation."""
    value, sd = level
    return (
        f" The components below are deviations from a constant level, estimated with the model"
        f" at {format_amount(value, axis)} (standard deviation {format_amount(sd, axis)})."
    )


# -- summary and its table ---------------------------------------------------------------------


def summary_section(dec: Decomposition) -> dict[str, str | list[str]]:
    """The executive summary's sentences and one bullet per component."""
    return describe.summary_sentences(dec.components, dec.axis, x_data=dec.model.x)


def table_section(
    dec: Decomposition | InputsDecomposition, components: list[dict[str, Any]]
) -> dict[str, Any]:
    """The summary table: the baseline's error, then one row per component section."""
    rows = [
        {"index": c["index"], "phrase": c["phrase"], **{k: c["stats"][k] for k in TABLE_STATS}}
        for c in components
    ]
    return {
        "baseline": BASELINE_NAMES[dec.model.prior_mean],
        "baseline_mae": dec.baseline_mae,
        "rows": rows,
    }


# -- components ------------------------------------------------------------------------------


def component_sections(dec: Decomposition, frame: Frame | None = None) -> list[dict[str, Any]]:
    """One section per component, in the report's order."""
    frame = frame or frame_of(dec)
    sections = []
    previous_r2 = 0.0
    for k, facts in enumerate(dec.components):
        sections.append(component_section(dec, k, previous_r2, frame))
        previous_r2 = facts.cum_r2
    return sections


def component_section(
    dec: Decomposition, k: int, previous_r2: float, frame: Frame | None = None
) -> dict[str, Any]:
    """The ``k``-th component (0-based): its phrase, paragraph, statistics and two figures;
    ``previous_r2`` is the share of variance the components before it explain."""
    c: ComponentFacts = dec.components[k]
    frame = frame or frame_of(dec)
    phrase = describe.noun_phrase(c.kernel, dec.axis, x_data=frame.x)
    alone = partial(
        plots.component_figure,
        c.x_grid,
        c.mean,
        c.sd,
        (float(frame.x.min()), float(frame.x.max())),
        frame.x_label,
        frame.y_label,
        f"Component {c.index}",
    )
    so_far = partial(
        plots.cumulative_figure,
        dec.x_grid,
        dec.cumulative_mean[k],
        dec.cumulative_sd[k],
        frame.x,
        frame.y,
        frame.x_label,
        frame.y_label,
        f"Sum of components 1-{c.index}" if c.index > 1 else "Component 1",
    )
    return {
        "index": c.index,
        "phrase": phrase,
        "structure": c.kernel.structure,
        "kernel": c.kernel.to_text(digits=6),
        "paragraph": describe.component_paragraph(c, dec.axis, previous_r2, x_data=frame.x),
        "extrapolation": describe.describe_extrapolation(c, dec.axis, x_data=frame.x),
        "stats": {
            "cum_r2": c.cum_r2,
            "delta_r2": c.delta_r2,
            "residual_r2": c.residual_r2,
            "cv_mae_before": c.cv_mae_before,
            "cv_mae": c.cv_mae,
            "mae_reduction": c.mae_reduction,
        },
        "figure_component": frame.embed(alone, f"Posterior of component {c.index}: {phrase}"),
        "figure_cumulative": frame.embed(
            so_far, f"Sum of the first {c.index} components against the data"
        ),
    }


# -- model checks ----------------------------------------------------------------------------


def checks_section(dec: Decomposition, frame: Frame | None = None) -> dict[str, Any]:
    """The posterior predictive checks: the verdict, one row and one figure per check."""
    frame = frame or frame_of(dec)
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
                plots.check_figure,
                ch.name,
                ch.lag_or_freq,
                ch.observed,
                ch.simulated_low,
                ch.simulated_high,
                ch.name.capitalize(),
            ),
            f"Posterior predictive check: {ch.name}",
        )
        for ch in dec.checks
    ]
    return {"text": describe.describe_checks(dec.checks), "rows": rows, "figures": figures}


# -- appendix --------------------------------------------------------------------------------


def appendix_section(dec: Decomposition, search: dict[str, Any]) -> dict[str, Any]:
    """What reproduces the run: the kernel, the search's trace, its settings and notes."""
    settings = search.get("settings", {})
    elapsed = float(search.get("elapsed_seconds", 0.0))
    return {
        "kernel": dec.model.user_kernel.to_text(digits=6),
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
