"""The report's extrapolation section: the full model's forecast and, after a search with
several seeds, their averaged forecast (computed by :mod:`abcd_cli.decompose.averaged`)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any

from abcd_cli.decompose.averaged import AveragedForecast
from abcd_cli.decompose.components import Decomposition
from abcd_cli.reporting import figures as plots
from abcd_cli.reporting.numbers import format_number
from abcd_cli.reporting.sections import Frame, frame_of
from abcd_cli.reporting.trends import ends_precision
from abcd_cli.reporting.wording import format_position, format_span


def forecast_section(
    dec: Decomposition,
    components: list[dict[str, Any]],
    averaged: AveragedForecast | None,
    frame: Frame | None = None,
) -> dict[str, Any]:
    """The forecast's sentences and figure, and each component's sentence on extrapolation."""
    frame = frame or frame_of(dec)
    figure = partial(
        plots.forecast_figure,
        frame.x,
        frame.y,
        dec.x_grid,
        dec.forecast_mean,
        dec.forecast_sd,
        frame.x_label,
        frame.y_label,
        averaged=None if averaged is None else (averaged.mean, averaged.low, averaged.high),
    )
    return {
        "text": forecast_text(dec) + ("" if averaged is None else averaged_sentence(averaged)),
        "figure": frame.embed(figure, "Forecast of the full model"),
        "component_sentences": [
            f"Component {c['index']}: {c['extrapolation']}" for c in components
        ],
    }


def forecast_text(dec: Decomposition) -> str:
    """How far the forecast reaches past the data, and what its band shows."""
    end, last = float(dec.x_grid[-1]), float(dec.model.x.max())
    precision = ends_precision(dec.model.x) if dec.axis.is_time else None
    return (
        f"The full model's forecast extends {format_span(end - last, dec.axis)}"
        f" past the last observation, to {format_position(end, dec.axis, precision)}; the band"
        " shows two standard deviations of a new observation, noise included."
    )


def averaged_sentence(averaged: AveragedForecast) -> str:
    """What the dashed line of the forecast figure is, and each search's weight in it."""
    k = len(averaged.seeds)
    return (
        f" The search was run {k} times, with different seeds, and this report describes the"
        f" model with the lowest BIC. The dashed line averages the {k} models' forecasts, each"
        " weighted by its evidence, exp(−BIC/2) over the sum of these"
        f" ({seed_shares(averaged.seeds, averaged.weights)}); the dotted lines bound"
        " the central 95% of that average."
    )


def seed_shares(seeds: Sequence[int], weights: Sequence[float]) -> str:
    """Each seed's share of the average to two decimals: "seed 4 0.62, seed 5 0.38"."""
    return ", ".join(
        f"seed {seed} {format_number(w, decimals=2)}"
        for seed, w in zip(seeds, weights, strict=True)
    )
