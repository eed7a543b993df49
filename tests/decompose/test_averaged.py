"""The posterior's mixture forecast (``decompose/averaged.py: posterior_forecast``): its
structures' own means, their share of its variance (the law of total variance) and whether
they disagree past the data, on posteriors built by hand."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy.stats import norm

from abcd_cli.data.scaling import Scaling
from abcd_cli.decompose.averaged import (
    DISAGREEMENT_SHARE,
    TOP_COUNT,
    TOP_WEIGHT,
    PosteriorForecast,
    posterior_forecast,
    structure_moments,
)
from abcd_cli.kernel_search.posterior import HELD_NEGLIGIBLE, StructurePosterior, Weighed
from abcd_cli.kernels.text import parse_kernel
from abcd_cli.model import Model, particle_models, posterior_of
from abcd_cli.prediction import predictive_table
from abcd_cli.reporting.json_view import clean

# A rising line through the data: one structure carries the trend on past them, the other
# (smooth, no trend) returns to the data's mean, some 20 units lower four years on.
TREND = "Lin(sd=2.0, location=2006.0) + WN(sd=0.5)"
FLAT = "SE(lengthscale=1.0, sd=6.0) + WN(sd=0.5)"
# another structure that also carries the trend on: it agrees with TREND
WIGGLY_TREND = "Lin(sd=2.0, location=2006.0) + SE(lengthscale=0.5, sd=0.3) + WN(sd=0.5)"
DRAWS = 4
GRID = np.linspace(2000.0, 2016.0, 161)  # the data end at 2012


def trending_series() -> tuple[np.ndarray, np.ndarray]:
    """Twelve years of quarterly data on a line rising 2 a year, with noise of sd 0.5."""
    x = 2000.0 + (np.arange(48) + 0.5) / 4.0
    y = 100.0 + 2.0 * (x - 2000.0) + 0.5 * np.random.default_rng(1).standard_normal(x.size)
    return x, y


def posterior_model(structures: list[tuple[str, float]]) -> tuple[Model, dict]:
    """The trending series' model of the first structure, and a model document whose
    posterior holds ``structures`` (kernel text in the user's units, weight), most probable
    first, each with DRAWS parameter draws jittered about its values."""
    x, y = trending_series()
    scaling = Scaling.from_data(x, y)
    rng = np.random.default_rng(7)
    weighed = []
    for text, _ in structures:
        kernel = scaling.kernel_in(parse_kernel(text))
        theta = kernel.theta() + 0.03 * rng.standard_normal((DRAWS, kernel.n_params))
        weighed.append(Weighed(kernel, 0.0, 0.0, theta))
    weights = np.array([w for _, w in structures])
    first = weighed[0].kernel
    model = Model(first, scaling, x, y, 0.0)
    doc = model.to_dict()
    doc["posterior"] = StructurePosterior(weighed, weights / weights.sum(), DRAWS).to_dict()
    return model, doc


def forecast_of(structures: list[tuple[str, float]]) -> PosteriorForecast:
    model, doc = posterior_model(structures)
    forecast = posterior_forecast(model, posterior_of(doc, model), doc, GRID)
    assert forecast is not None
    return forecast


@pytest.fixture(scope="module")
def parting() -> PosteriorForecast:
    return forecast_of([(TREND, 0.6), (FLAT, 0.37), (WIGGLY_TREND, 0.03)])


@pytest.fixture(scope="module")
def agreeing() -> PosteriorForecast:
    return forecast_of([(TREND, 0.55), (WIGGLY_TREND, 0.45)])


def test_the_variance_splits_into_the_structures_own_and_their_means_spread() -> None:
    """Law of total variance: the mixture's sd² (as ``abcd predict`` computes it) is
    Σ_s w_s v_s + Σ_s w_s (m_s − m̄)², each structure's m_s and v_s those of its own draws'
    mixture; the record's share is the second term over the sum. Within a structure, v_s is
    its draws' own variances and their means' spread: the parameters' share."""
    structures = [(TREND, 0.6), (FLAT, 0.37), (WIGGLY_TREND, 0.03)]
    model, doc = posterior_model(structures)
    forecast = posterior_forecast(model, posterior_of(doc, model), doc, GRID)
    assert forecast is not None
    posterior = posterior_of(doc, model)
    assert posterior is not None
    models, weights = particle_models(model, posterior)
    mixed = predictive_table(models, GRID, weights)
    np.testing.assert_allclose(forecast.mean, mixed["mean"], rtol=1e-12)
    np.testing.assert_allclose(forecast.sd, mixed["sd"], rtol=1e-12)
    np.testing.assert_allclose(forecast.low, mixed["q2.5"], rtol=1e-12)
    np.testing.assert_allclose(forecast.high, mixed["q97.5"], rtol=1e-12)

    # each structure on its own, through the mixture code of abcd predict
    own = [
        predictive_table(models[s * DRAWS : (s + 1) * DRAWS], GRID) for s in range(len(structures))
    ]
    w = posterior.weights
    m_s = np.array([t["mean"] for t in own])
    within = w @ np.array([t["sd"] ** 2 for t in own])
    between = w @ (m_s - w @ m_s) ** 2
    np.testing.assert_allclose(within + between, mixed["sd"] ** 2, rtol=1e-9)
    np.testing.assert_allclose(forecast.share, between / mixed["sd"] ** 2, rtol=1e-9, atol=1e-12)
    # within each structure, its draws' means spread about its own: the parameters' part
    draws = [predictive_table([m], GRID) for m in models]
    m_p = np.array([t["mean"] for t in draws])
    particles_own = weights @ np.array([t["sd"] ** 2 for t in draws])
    parameters = weights @ (m_p - np.repeat(m_s, DRAWS, axis=0)) ** 2
    np.testing.assert_allclose(particles_own + parameters + between, mixed["sd"] ** 2, rtol=1e-9)
    np.testing.assert_allclose(
        forecast.parameter_share, parameters / mixed["sd"] ** 2, rtol=1e-7, atol=1e-12
    )
    assert np.all(forecast.parameter_share > 0)
    assert [s.weight for s in forecast.structures] == pytest.approx(w[:2])
    for shown in forecast.structures:
        np.testing.assert_allclose(shown.mean, m_s[shown.rank], rtol=1e-12)


def test_a_negligible_structure_is_left_out_and_moves_the_forecast_by_its_weight() -> None:
    """A structure of weight δ below ``HELD_NEGLIGIBLE`` is left out of the mixture (none of its
    draws is conditioned). The whole mixture is (1 − δ) × the kept one + δ × the left-out
    one, so its mean differs from the kept one's by δ (m_left − m_kept), and its probability
    below each of the kept mixture's quantiles by at most δ; the record still counts every
    structure of the posterior and gives the top weight as it is."""
    delta = 0.4 * HELD_NEGLIGIBLE
    structures = [(TREND, 0.6), (FLAT, 0.4 - delta), (WIGGLY_TREND, delta)]
    model, doc = posterior_model(structures)
    posterior = posterior_of(doc, model)
    assert posterior is not None
    models, weights = particle_models(model, posterior)
    assert len(models) == 2 * DRAWS and weights.sum() == pytest.approx(1.0)
    forecast = posterior_forecast(model, posterior_of(doc, model), doc, GRID)
    assert forecast is not None
    assert forecast.structure_count == 3 and forecast.top_weight == pytest.approx(0.6)

    # the whole mixture, every draw of every structure conditioned
    means, sds, shares = [], [], []
    for (i, _), kernel, weight in posterior.particles():
        drawn = Model(kernel, model.scaling, model.x, model.y, math.nan)
        mean, sd = drawn.predict(GRID)
        means.append(mean)
        sds.append(sd)
        shares.append((i, weight))
    means, sds = np.array(means), np.array(sds)
    w = np.array([weight for _, weight in shares])
    left = np.array([i == 2 for i, _ in shares])
    whole_mean = w @ means
    left_mean = w[left] @ means[left] / w[left].sum()
    np.testing.assert_allclose(
        whole_mean - forecast.mean, delta * (left_mean - forecast.mean), rtol=1e-6, atol=1e-9
    )
    for quantile, p in ((forecast.low, 0.025), (forecast.high, 0.975)):
        below = w @ norm.cdf((quantile[None, :] - means) / sds)
        assert np.all(np.abs(below - p) <= delta + 1e-9)


def test_structure_moments_group_particles_in_order_of_appearance() -> None:
    means = np.array([[1.0], [3.0], [10.0], [0.0]])
    sds = np.array([[1.0], [1.0], [2.0], [1.0]])
    weights = np.array([0.2, 0.2, 0.5, 0.1])
    labels, w_s, m_s, v_s = structure_moments(means, sds, weights, np.array([4, 4, 1, 7]))
    assert labels.tolist() == [4, 1, 7]
    assert w_s == pytest.approx([0.4, 0.5, 0.1])
    assert m_s[:, 0] == pytest.approx([2.0, 10.0, 0.0])
    assert v_s[:, 0] == pytest.approx([1.0 + 1.0, 4.0, 1.0])  # own sd² plus the draws' spread


def test_a_trend_that_continues_in_one_structure_and_stops_in_another_is_a_disagreement(
    parting: PosteriorForecast,
) -> None:
    assert parting.disagree and parting.parting is not None
    past = parting.data_end < GRID
    assert parting.data_end == pytest.approx(trending_series()[0].max())
    # within the data both structures follow it; past it the trend's is higher and higher
    assert parting.share[~past].max() < DISAGREEMENT_SHARE
    assert parting.parting > parting.data_end
    first = int(np.flatnonzero(parting.parting == GRID)[0])
    assert parting.share[first] >= DISAGREEMENT_SHARE
    assert np.all(parting.share[past & (parting.parting > GRID)] < DISAGREEMENT_SHARE)
    assert parting.peak_share == pytest.approx(parting.share[past].max())
    assert parting.peak_x > parting.parting
    # the structures shown: weight at least TOP_WEIGHT, the most probable first
    assert [s.rank for s in parting.structures] == [0, 1]
    assert all(s.weight >= TOP_WEIGHT for s in parting.structures)
    assert parting.others_weight == pytest.approx(0.03)
    assert [s.structure for s in parting.structures] == ["Lin + WN", "SE + WN"]
    # where they differ most, the smooth structure (rank 1) lies below the trend (rank 0)
    (low, low_value), (high, high_value) = parting.at_peak()
    assert (low.rank, high.rank) == (1, 0)
    i = parting.peak_index
    assert i is not None
    assert high_value - low_value > 2 * (parting.sd[i] * (1 - parting.share[i]) ** 0.5)


def test_two_structures_that_both_carry_the_trend_on_agree(agreeing: PosteriorForecast) -> None:
    assert not agreeing.disagree and agreeing.parting is None
    assert 0 <= agreeing.peak_share < 0.1
    assert [s.rank for s in agreeing.structures] == [0, 1]
    assert agreeing.others_weight == pytest.approx(0.0, abs=1e-12)


def test_at_most_top_count_structures_are_shown() -> None:
    many = [(TREND, 1.0)] + [(FLAT, 1.0)] * TOP_COUNT
    forecast = forecast_of(many)
    assert [s.rank for s in forecast.structures] == list(range(TOP_COUNT))
    assert forecast.others_weight == pytest.approx(1 / len(many))


def test_a_grid_within_the_data_has_no_peak_and_no_parting() -> None:
    model, doc = posterior_model([(TREND, 0.5), (FLAT, 0.5)])
    forecast = posterior_forecast(
        model, posterior_of(doc, model), doc, np.linspace(2001.0, 2010.0, 20)
    )
    assert forecast is not None
    assert forecast.peak_index is None and forecast.parting is None
    assert np.isnan(forecast.peak_share) and forecast.at_peak() == []


def test_the_agreement_numbers_are_plain_json(parting: PosteriorForecast) -> None:
    view = json.loads(json.dumps(clean(parting.agreement_dict())))
    assert view["threshold"] == DISAGREEMENT_SHARE and view["disagree"] is True
    assert view["from"] == parting.parting and view["peak_x"] == parting.peak_x
    assert len(view["share"]) == len(view["parameter_share"]) == GRID.size
    assert [s["weight"] for s in view["structures"]] == [s.weight for s in parting.structures]
    assert view["structures"][1]["mean"] == parting.structures[1].mean.tolist()
    assert view["others_weight"] == pytest.approx(0.03)
