"""How a forecast fares on the test points: errors of its mean, the coverage of its 95%
interval and how far that interval is from the right width, its log density and its CRPS.

The continuous ranked probability score of a predictive F at y is E|Y − y| − ½ E|Y − Y'|
(Y, Y' independent draws of F; lower is better, in y's units; Gneiting & Raftery 2007). For a
Gaussian mixture Σ_k w_k N(μ_k, σ_k²) it has a closed form:
Σ_k w_k A(y − μ_k, σ_k²) − ½ Σ_jk w_j w_k A(μ_j − μ_k, σ_j² + σ_k²), with
A(μ, s²) = E|N(μ, s²)| = 2s φ(μ/s) + μ (2Φ(μ/s) − 1); a Gaussian is the mixture of one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import binomtest, norm

from benchmarks.accuracy.peers.split import Forecast
from benchmarks.accuracy.runs import rmse, test_scores

STATED = 0.95
#: a coverage is "about the stated rate" unless a two-sided binomial test rejects 95% at this
#: level (it treats the test points as independent, which the extrapolation points are not)
TEST_LEVEL = 0.05


@dataclass(frozen=True)
class Scores:
    """The measures of one forecast on one split."""

    rmse: float
    mae: float
    covered: int  # test points inside the 95% interval
    n: int
    width_factor: float  # see :func:`width_factor`
    mlpd: float | None  # None where the tool gives no density
    crps: float | None = None  # the mean CRPS; None where the tool gives no distribution

    @property
    def coverage(self) -> float:
        return self.covered / self.n


def score(forecast: Forecast, y: np.ndarray) -> Scores:
    """Every measure of ``forecast`` against the test values ``y``."""
    y = np.asarray(y, dtype=float)
    mean = np.asarray(forecast.mean, dtype=float)
    inside = (y >= forecast.lower) & (y <= forecast.upper)
    error, mlpd, crps = rmse(mean, y), None, None
    if forecast.mixture is not None:
        means, sds, weights = forecast.mixture
        density = weights @ norm.pdf(y[None, :], loc=means, scale=sds)
        mlpd = float(np.mean(np.log(np.maximum(density, 1e-300))))
        crps = crps_mixture(means, sds, weights, y)
    elif forecast.sd is not None:
        sd = np.asarray(forecast.sd, dtype=float)
        error, mlpd = test_scores(y, mean, sd)
        crps = crps_mixture(mean[None, :], sd[None, :], np.ones(1), y)
    return Scores(
        rmse=error,
        mae=float(np.mean(np.abs(y - mean))),
        covered=int(inside.sum()),
        n=int(y.size),
        width_factor=width_factor(forecast, y),
        mlpd=mlpd,
        crps=crps,
    )


def crps_mixture(means: np.ndarray, sds: np.ndarray, w: np.ndarray, y: np.ndarray) -> float:
    """Mean CRPS at ``y`` of the Gaussian mixtures Σ_k w_k N(means[k], sds[k]²) (rows k; the
    weights sum to one), by the closed form of the module docstring."""

    def mean_abs(mu: np.ndarray, var: np.ndarray) -> np.ndarray:
        s = np.sqrt(np.maximum(var, 1e-300))
        z = mu / s
        return 2 * s * norm.pdf(z) + mu * (2 * norm.cdf(z) - 1)

    keep = w > 0
    means, sds, w = means[keep], sds[keep], w[keep]
    first = np.einsum("k,kt->t", w, mean_abs(y[None, :] - means, sds**2))
    pair = mean_abs(
        means[:, None, :] - means[None, :, :], sds[:, None, :] ** 2 + sds[None, :, :] ** 2
    )
    second = 0.5 * np.einsum("j,k,jkt->t", w, w, pair)
    return float(np.mean(first - second))


def width_factor(forecast: Forecast, y: np.ndarray) -> float:
    """The factor by which the 95% interval's half-widths (mean to bound, on the side of each
    point) would have to be multiplied for 95% of the test points to fall inside: above 1 the
    interval is too narrow by that factor, below 1 too wide. The 95th percentile of
    |y − mean| / (bound − mean) over the test points."""
    y = np.asarray(y, dtype=float)
    mean = np.asarray(forecast.mean, dtype=float)
    above = y >= mean
    half = np.where(above, forecast.upper - mean, mean - forecast.lower)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(half > 0, np.abs(y - mean) / half, np.inf)
    return float(np.percentile(ratio, 100 * STATED))


def coverage_verdict(covered: int, n: int) -> str:
    """``about right``, ``too narrow`` or ``too wide``: whether ``covered`` of ``n`` points is
    consistent with a 95% interval (two-sided binomial test at ``TEST_LEVEL``)."""
    if n == 0:
        return "no test points"
    if binomtest(covered, n, STATED).pvalue >= TEST_LEVEL:
        return "about right"
    return "too narrow" if covered / n < STATED else "too wide"
