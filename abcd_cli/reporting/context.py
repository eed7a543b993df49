"""Build the report: decomposition + sentences + figures → one plain context → HTML / PDF / JSON.

The context is a dict of strings, numbers and embedded figures; ``render`` only presents it.
``context["json"]`` holds everything the report states (numbers and sentences) for machines.
"""

from __future__ import annotations

import math
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from abcd_cli import __version__
from abcd_cli.decompose.components import Decomposition
from abcd_cli.decompose.facts import Axis
from abcd_cli.model import seed_models
from abcd_cli.prediction import describe_weights, evidence_weights, predictive_table
from abcd_cli.reporting import describe
from abcd_cli.reporting import figures as plots
from abcd_cli.reporting.wording import format_amount, format_position, format_span

FIGURE_KIND = "svg"
PNG_ABOVE_POINTS = 1500  # larger series are drawn as PNG: vector plots of many points are slow


def _figure(fig: Any, alt: str, n_points: int) -> dict[str, str]:
    kind = "png" if n_points > PNG_ABOVE_POINTS else FIGURE_KIND
    return plots.embed_figure(fig, alt, kind=kind)


def _finite(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


#: The summary table's first row: what the model predicts before any component.
BASELINE_NAMES = {
    "data": "Baseline (mean)",
    "zero": "Baseline (zero)",
    "constant": "Baseline (level)",
}


def data_description(dec: Decomposition, n_dropped: int) -> str:
    """N, span, spacing, rows dropped; and the level the components are measured from, when the
    model estimates one."""
    axis, x = dec.axis, dec.model.x
    gaps = np.diff(np.sort(x))
    gaps = gaps[gaps > 0]
    spacing = format_span(float(np.median(gaps)), axis) if gaps.size else "none"
    dropped = f"{n_dropped} row{'s' if n_dropped != 1 else ''} with missing values dropped"
    return (
        f"{x.size} observations of {axis.y_name} from {format_position(float(x.min()), axis)}"
        f" to {format_position(float(x.max()), axis)} (a span of"
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


def build_context(
    dec: Decomposition,
    title: str,
    source: str,
    search: dict[str, Any],
    n_dropped: int = 0,
) -> dict[str, Any]:
    """The full report context. ``search`` is the search's JSON (trace, settings, notes...)."""
    axis: Axis = dec.axis
    model = dec.model
    x, y = model.x, model.y
    n = x.size
    x_label = axis.x_name if not axis.is_time else f"{axis.x_name} (years)"
    x_range = (float(x.min()), float(x.max()))
    summary = describe.summary_sentences(dec.components, axis, x_data=x)
    components = []
    previous = 0.0
    for k, c in enumerate(dec.components):
        phrase = describe.noun_phrase(c.kernel, axis, x_data=x)
        components.append(
            {
                "index": c.index,
                "phrase": phrase,
                "structure": c.kernel.structure,
                "kernel": c.kernel.to_text(digits=6),
                "paragraph": describe.component_paragraph(c, axis, previous, x_data=x),
                "extrapolation": describe.describe_extrapolation(c, axis, x_data=x),
                "stats": {
                    "cum_r2": c.cum_r2,
                    "delta_r2": c.delta_r2,
                    "residual_r2": c.residual_r2,
                    "cv_mae_before": c.cv_mae_before,
                    "cv_mae": c.cv_mae,
                    "mae_reduction": c.mae_reduction,
                },
                "figure_component": _figure(
                    plots.component_figure(
                        c.x_grid,
                        c.mean,
                        c.sd,
                        x_range,
                        x_label,
                        axis.y_name,
                        f"Component {c.index}",
                    ),
                    f"Posterior of component {c.index}: {phrase}",
                    n,
                ),
                "figure_cumulative": _figure(
                    plots.cumulative_figure(
                        dec.x_grid,
                        dec.cumulative_mean[k],
                        dec.cumulative_sd[k],
                        x,
                        y,
                        x_label,
                        axis.y_name,
                        f"Sum of components 1-{c.index}" if c.index > 1 else "Component 1",
                    ),
                    f"Sum of the first {c.index} components against the data",
                    n,
                ),
            }
        )
        previous = c.cum_r2
    table_rows = [
        {
            "index": comp["index"],
            "phrase": comp["phrase"],
            **{k: comp["stats"][k] for k in ("cum_r2", "delta_r2", "residual_r2", "cv_mae")},
            "mae_reduction": comp["stats"]["mae_reduction"],
        }
        for comp in components
    ]
    checks_text = describe.describe_checks(dec.checks)
    check_rows = [
        {
            "name": ch.name,
            "statistic": ch.statistic,
            "p_value": ch.p_value,
            "significant": ch.significant,
        }
        for ch in dec.checks
    ]
    check_figures = [
        _figure(
            plots.check_figure(
                ch.name,
                ch.lag_or_freq,
                ch.observed,
                ch.simulated_low,
                ch.simulated_high,
                ch.name.capitalize(),
            ),
            f"Posterior predictive check: {ch.name}",
            n,
        )
        for ch in dec.checks
    ]
    forecast_text = (
        f"The full model's forecast extends {format_span(float(dec.x_grid[-1] - x_range[1]), axis)}"
        f" past the last observation, to {format_position(float(dec.x_grid[-1]), axis)}; the band"
        " shows two standard deviations of a new observation, noise included."
    )
    averaged = averaged_forecast(search, dec.x_grid)
    if averaged is not None:
        forecast_text += averaged_sentence(averaged)
    settings = search.get("settings", {})
    elapsed = float(search.get("elapsed_seconds", 0.0))
    appendix = {
        "kernel": model.user_kernel.to_text(digits=6),
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
        "elapsed": f"{elapsed:.1f} s of search",
        "notes": list(search.get("notes", []))
        + ([search["stopped_early"]] if search.get("stopped_early") else []),
    }
    context: dict[str, Any] = {
        "title": title,
        "subtitle": f"An automatic analysis of {Path(source).name}",
        "generated": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "data": {
            "description": data_description(dec, n_dropped),
            "figure": _figure(plots.data_figure(x, y, x_label, axis.y_name), "The data", n),
        },
        "summary": summary,
        "table": {
            "baseline": BASELINE_NAMES[model.prior_mean],
            "baseline_mae": dec.baseline_mae,
            "rows": table_rows,
        },
        "components": components,
        "forecast": {
            "text": forecast_text,
            "figure": _figure(
                plots.forecast_figure(
                    x,
                    y,
                    dec.x_grid,
                    dec.forecast_mean,
                    dec.forecast_sd,
                    x_label,
                    axis.y_name,
                    averaged=None
                    if averaged is None
                    else (averaged["mean"], averaged["q2.5"], averaged["q97.5"]),
                ),
                "Forecast of the full model",
                n,
            ),
            "component_sentences": [
                f"Component {c['index']}: {c['extrapolation']}" for c in components
            ],
        },
        "checks": {"text": checks_text, "rows": check_rows, "figures": check_figures},
        "appendix": appendix,
    }
    context["json"] = _json_view(context, dec, search, averaged)
    return context


def averaged_forecast(search: dict[str, Any], x_grid: np.ndarray) -> dict[str, Any] | None:
    """With the models of several searches in ``search`` (``--seeds K``), their mixture's
    forecast on ``x_grid``, each model weighted by its evidence exp(−BIC/2) (as ``abcd predict
    --average-seeds``): the seeds, weights, mean, sd and 2.5/97.5% quantiles; else None."""
    models = seed_models(search)
    if len(models) < 2:
        return None
    weights = evidence_weights([m.bic for m in models.values()])
    table = predictive_table(list(models.values()), x_grid, weights)
    return {
        "seeds": list(models),
        "weights": weights.tolist(),
        **{key: table[key] for key in ("mean", "sd", "q2.5", "q97.5")},
    }


def averaged_sentence(averaged: dict[str, Any]) -> str:
    """What the dashed line of the forecast figure is, and each search's weight in it."""
    k = len(averaged["seeds"])
    return (
        f" The search was run {k} times, with different seeds, and this report describes the"
        f" model with the lowest BIC. The dashed line averages the {k} models' forecasts, each"
        " weighted by its evidence, exp(−BIC/2) over the sum of these"
        f" ({describe_weights(averaged['seeds'], averaged['weights'])}); the dotted lines bound"
        " the central 95% of that average."
    )


def _json_view(
    context: dict[str, Any],
    dec: Decomposition,
    search: dict[str, Any],
    averaged: dict[str, Any] | None,
) -> dict[str, Any]:
    """Everything the report states, without figures, NaN turned into null."""
    model_json = dict(search)
    model_json.pop("data", None)

    def clean(value: Any) -> Any:
        if isinstance(value, float):
            return _finite(value)
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items() if not k.startswith("figure")}
        if isinstance(value, list):
            return [clean(v) for v in value]
        return value

    return clean(
        {
            "title": context["title"],
            "data": {
                "description": context["data"]["description"],
                "n": int(dec.model.n),
                "level": {"value": dec.level[0], "sd": dec.level[1]} if dec.level else None,
            },
            "summary": context["summary"],
            "table": context["table"],
            "components": context["components"],
            "forecast": {
                "text": context["forecast"]["text"],
                "component_sentences": context["forecast"]["component_sentences"],
                "x": dec.x_grid.tolist(),
                "mean": dec.forecast_mean.tolist(),
                "sd": dec.forecast_sd.tolist(),
                **(
                    {}
                    if averaged is None
                    else {"averaged": {k: np.asarray(v).tolist() for k, v in averaged.items()}}
                ),
            },
            "checks": {"text": context["checks"]["text"], "rows": context["checks"]["rows"]},
            "model": model_json,
            "version": __version__,
        }
    )
