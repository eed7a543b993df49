"""The mixed forecasts a report shows: the several searches' of ``abcd search --seeds K``, and
the posterior's of ``--method posterior``.

The models of the K searches are mixed with evidence weights w_k ∝ exp(−BIC_k/2), as
``abcd predict --average-seeds`` does (:mod:`abcd_cli.prediction`); the posterior's particles
with their weights (:mod:`abcd_cli.kernel_search.posterior`), as ``abcd predict`` does with its
model file. Each is the mixture's mean, standard deviation and central 95% bounds on the
report's grid: plain records, computed here so that the report only presents them.

The posterior's record also says whether its structures agree about the future: each
structure's own mixture over its parameter draws, and the part of the mixture's variance that
comes from the structures' means differing (law of total variance), past the data.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from abcd_cli.calibration import Calibration
from abcd_cli.kernel_search.posterior import StructurePosterior
from abcd_cli.model import (
    Model,
    Particles,
    particle_models,
    searches_of,
    seed_models,
)
from abcd_cli.prediction import (
    evidence_weights,
    mixture_moments,
    mixture_quantile,
    predictive_table,
)


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


#: A structure is drawn and described on its own past the data when its weight is at least
#: TOP_WEIGHT, and at most TOP_COUNT of them are (the most probable first): enough to show the
#: futures that carry weight, few enough to tell apart in one figure.
TOP_WEIGHT = 0.05
TOP_COUNT = 5

#: The structures "disagree about the future" where the spread of their means makes up at
#: least this share of the mixture's variance past the data. Why one half: two structures of
#: equal weight and equal spread s whose means are d apart have the share
#: (d/2)² / (s² + (d/2)²), one half exactly when d = 2s, where their mixture turns from one
#: hump into two; with weights 0.6 to 0.9 it turns at shares 0.50 to 0.61. Below it the
#: structures widen one forecast; above it, which structure is right decides the forecast more
#: than its parameters and the noise do, and the band holds different futures. The noise is
#: in each structure's spread, as it is in the band: on a noisy series, means that differ by
#: less than the noise count as agreeing (largest shares past the data measured on seven
#: benchmark posteriors: airline 0.498, call centre 0.19, unemployment 0.13, radio 0.11,
#: wheat 0.08, solar 0.03, wages 0.005).
DISAGREEMENT_SHARE = 0.5


@dataclass(frozen=True)
class StructureMean:
    """One structure of the posterior on the grid: its place in the posterior (0 = the most
    probable, the one the report decomposes), its text without values, its weight w_s and
    the mean of its own mixture over its parameter draws, m_s = Σ_{p∈s} w_p m_p / w_s."""

    rank: int
    structure: str
    weight: float
    mean: np.ndarray


@dataclass(frozen=True)
class PosteriorForecast:
    """The posterior's mixture on a grid of x: how many structures have weight, the largest
    weight (the decomposed model's), the most parameter draws a structure has, the
    mixture's mean, sd and central 95% bounds, and how many searches' structures it mixes.

    Whether its structures agree past the data: ``structures`` are those of weight at least
    ``TOP_WEIGHT`` (at most ``TOP_COUNT``, most probable first) with their own means, and
    ``share`` is, at each grid point, the structures' part of the mixture's variance (the law
    of total variance over the structures s, of weights w_s, means m_s and variances v_s):

        var = Σ_s w_s v_s + Σ_s w_s (m_s − m̄)²,   share = Σ_s w_s (m_s − m̄)² / var;

    ``parameter_share`` the part their parameter draws p make by differing within their
    structure, Σ_s Σ_{p∈s} w_p (m_p − m_s)² / var (the rest, 1 − share − parameter_share,
    is the particles' own variance: the function's, given its parameters, and the noise).

    Past the last observation (``data_end``) the share is largest at grid point
    ``peak_index`` (None when the grid stops at the data); ``parting`` is the first grid x
    past the data where it reaches ``DISAGREEMENT_SHARE`` (None when it never does: the
    structures agree)."""

    structure_count: int
    top_weight: float
    draws: int
    x: np.ndarray
    mean: np.ndarray
    sd: np.ndarray
    low: np.ndarray
    high: np.ndarray
    structures: list[StructureMean]
    share: np.ndarray
    parameter_share: np.ndarray
    data_end: float
    peak_index: int | None
    parting: float | None
    searches: int = 1  # the searches (seeds) whose structures the posterior weighed together
    sampled: bool = False  # the sampler's particles (--method smc), not a weighed pool
    #: the band's calibration on the series' own past (None: a file written before it); when
    #: present, ``sd``, ``low`` and ``high`` past the data are widened by it
    calibration: Calibration | None = None

    @property
    def disagree(self) -> bool:
        """The structures' means part past the data: their share reaches the threshold."""
        return self.parting is not None

    @property
    def peak_share(self) -> float:
        """The largest share past the data (NaN when the grid stops at the data)."""
        return math.nan if self.peak_index is None else float(self.share[self.peak_index])

    @property
    def peak_x(self) -> float:
        """Where past the data the structures differ most (NaN when the grid stops there)."""
        return math.nan if self.peak_index is None else float(self.x[self.peak_index])

    @property
    def others_weight(self) -> float:
        """The weight of the structures not among ``structures``, together."""
        return max(0.0, 1.0 - sum(s.weight for s in self.structures))

    def at_peak(self) -> list[tuple[StructureMean, float]]:
        """Each of ``structures`` with its mean at ``peak_x``, lowest first ([] when the grid
        stops at the data)."""
        if self.peak_index is None:
            return []
        i = self.peak_index
        return sorted(((s, float(s.mean[i])) for s in self.structures), key=lambda p: p[1])

    def agreement_dict(self) -> dict[str, Any]:
        """The numbers on the structures' agreement, for the JSON report (NaN kept: the view
        writes it as null)."""
        return {
            "threshold": DISAGREEMENT_SHARE,
            "disagree": self.disagree,
            "from": self.parting,
            "peak_share": self.peak_share,
            "peak_x": self.peak_x,
            "share": self.share.tolist(),
            "parameter_share": self.parameter_share.tolist(),
            "structures": [
                {
                    "rank": s.rank,
                    "structure": s.structure,
                    "weight": s.weight,
                    "mean": s.mean.tolist(),
                }
                for s in self.structures
            ],
            "others_weight": self.others_weight,
        }


def posterior_forecast(
    model: Model,
    posterior: StructurePosterior,
    search: Mapping[str, Any],
    x_grid: np.ndarray,
    particles: Particles | None = None,
) -> PosteriorForecast | None:
    """The forecast of the ``posterior`` (the method's weighted particles; ``search``, its
    document, gives the calibration and the searches weighed together) on ``x_grid`` (a
    series' grid), its particles on ``model``'s data (``particles``: the models and weights
    ``model.particle_models`` gave, when they are at hand already; else conditioned here),
    with its structures' own means and their share of its variance; None for the model
    alone (``is_single``). The mixture is of the structures holding the weight
    (``StructurePosterior.held``); the count of structures and the top weight are the whole
    posterior's. Its band past the data is widened by the search's calibration when it has
    one (``Calibration.widen``; the structures' shares are of the mixture before it)."""
    if posterior.is_single:
        return None
    models, weights = particles or particle_models(model, posterior)
    groups = np.array([i for (i, _), _, _ in posterior.held().particles()])
    x = np.asarray(x_grid, dtype=float)
    moments = [m.predict(x) for m in models]  # the costly part: once per particle
    means = np.array([mean for mean, _ in moments])
    sds = np.array([sd for _, sd in moments])
    mean, sd = mixture_moments(means, sds, weights)
    ranks, w_s, m_s, _ = structure_moments(means, sds, weights, groups)
    share = spread_share(w_s, m_s, sd)
    data_end = float(np.max(model.X[:, 0]))
    past = np.flatnonzero(x > data_end)
    peak = None if past.size == 0 else int(past[np.argmax(share[past])])
    parting = past[share[past] >= DISAGREEMENT_SHARE]
    top = [i for i in np.argsort(-w_s, kind="stable")[:TOP_COUNT] if w_s[i] >= TOP_WEIGHT]
    table = {
        "mean": mean,
        "sd": sd,
        "q2.5": mixture_quantile(means, sds, 0.025, weights),
        "q97.5": mixture_quantile(means, sds, 0.975, weights),
    }
    entry = search.get("calibration")
    calibration = None if entry is None else Calibration.from_dict(entry)
    if calibration is not None:
        table = calibration.widen(table, x, data_end)
    return PosteriorForecast(
        sampled=posterior.halves is not None,  # the sampler's, not weighed again by an update
        structure_count=posterior.structure_count,
        top_weight=float(posterior.weights[0]),
        draws=int(np.bincount(groups).max()),
        x=x,
        mean=mean,
        sd=table["sd"],
        low=table["q2.5"],
        high=table["q97.5"],
        structures=[
            StructureMean(
                rank=int(ranks[i]),
                structure=posterior.structures[ranks[i]].kernel.to_text(
                    params=False, names=model.x_names
                ),
                weight=float(w_s[i]),
                mean=m_s[i],
            )
            for i in top or [int(np.argmax(w_s))]
        ],
        share=share,
        parameter_share=spread_share(weights, means, sd) - share,
        data_end=data_end,
        peak_index=peak,
        parting=float(x[parting[0]]) if parting.size else None,
        searches=searches_of(dict(search)),
        calibration=calibration,
    )


def structure_moments(
    means: np.ndarray, sds: np.ndarray, weights: np.ndarray, groups: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Group the particles (rows of ``means`` and ``sds``, of ``weights`` summing to one) by
    their structure (``groups``): each structure's label, weight w_s = Σ_{p∈s} w_p, mean
    m_s = Σ_{p∈s} w_p m_p / w_s and variance v_s = Σ_{p∈s} w_p (s_p² + (m_p − m_s)²) / w_s
    (its own mixture over its draws), in the order the labels first appear."""
    labels, first = np.unique(groups, return_index=True)
    labels = labels[np.argsort(first)]
    rows = [groups == g for g in labels]
    w_s = np.array([weights[r].sum() for r in rows])
    m_s = np.array([weights[r] @ means[r] / w for r, w in zip(rows, w_s, strict=True)])
    v_s = np.array(
        [
            weights[r] @ (sds[r] ** 2 + (means[r] - m) ** 2) / w
            for r, w, m in zip(rows, w_s, m_s, strict=True)
        ]
    )
    return labels, w_s, m_s, v_s


def spread_share(weights: np.ndarray, means: np.ndarray, sd: np.ndarray) -> np.ndarray:
    """At each x, the part of the mixture's variance sd² that the means of its parts (rows
    of ``means``, of ``weights``: its structures, or its particles) make by differing,
    Σ_k w_k (m_k − m̄)² / sd², 0 where sd = 0."""
    spread = weights @ (means - weights @ means) ** 2
    var = sd**2
    return np.divide(spread, var, out=np.zeros_like(var), where=var > 0)
