"""The mixed forecasts a report shows: the several searches' of ``abcd search --seeds K``, and
the posterior's of ``--method posterior``.

The models of the K searches are mixed with evidence weights w_k ∝ exp(−BIC_k/2), as
``abcd predict --average-seeds`` does (:mod:`abcd_cli.prediction`); the posterior's particles
with their weights (:mod:`abcd_cli.kernel_search.posterior`), as ``abcd predict`` does with its
model file. Each is the mixture's mean, standard deviation and central 95% bounds on the
report's grid: plain records, computed here so that the report only presents them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from abcd_cli.model import Model, particle_models, posterior_of, seed_models
from abcd_cli.prediction import evidence_weights, predictive_table


@dataclass(frozen=True)
class AveragedForecast:
    """The evidence-weighted mixture of the searches' models on a grid of x."""

    seeds: list[int]  # in the model file's order
    weights: list[float]  # each seed's share, summing to one
    mean: np.ndarray  # on the grid
    sd: np.ndarray
    low: np.ndarray  # 2.5% quantile
    high: np.ndarray  # 97.5% quantile


def averaged_forecast(search: Mapping[str, Any], x_grid: np.ndarray) -> AveragedForecast | None:
    """With the models of several searches in ``search`` (a model file of ``--seeds K``), their
    mixture's forecast on ``x_grid``, each model weighted by exp(−BIC/2) over the sum of these;
    None when the file holds one search."""
    models = seed_models(dict(search))
    if len(models) < 2:
        return None
    weights = evidence_weights([m.bic for m in models.values()])
    table = predictive_table(list(models.values()), x_grid, weights)
    return AveragedForecast(
        seeds=list(models),
        weights=weights.tolist(),
        mean=table["mean"],
        sd=table["sd"],
        low=table["q2.5"],
        high=table["q97.5"],
    )


@dataclass(frozen=True)
class PosteriorForecast:
    """The posterior's mixture on a grid of x: how many structures have weight, the largest
    weight (the decomposed model's), and the mixture's mean, sd and central 95% bounds."""

    structure_count: int
    top_weight: float
    mean: np.ndarray
    sd: np.ndarray
    low: np.ndarray
    high: np.ndarray


def posterior_forecast(
    model: Model, search: Mapping[str, Any], x_grid: np.ndarray
) -> PosteriorForecast | None:
    """The forecast of the posterior in ``search`` (a model file of ``--method posterior``)
    on ``x_grid``, its particles on ``model``'s data; None without one."""
    posterior = posterior_of(dict(search))
    if posterior is None:
        return None
    models, weights = particle_models(model, posterior)
    table = predictive_table(models, x_grid, weights)
    return PosteriorForecast(
        structure_count=posterior.structure_count,
        top_weight=float(posterior.weights[0]),
        mean=table["mean"],
        sd=table["sd"],
        low=table["q2.5"],
        high=table["q97.5"],
    )
