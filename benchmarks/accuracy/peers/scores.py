"""How a forecast fares on the test points: errors of its mean, the coverage of its 95%
interval and how far that interval is from the right width, and its log density."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import binomtest

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

    @property
    def coverage(self) -> float:
        return self.covered / self.n


def score(forecast: Forecast, y: np.ndarray) -> Scores:
    """Every measure of ``forecast`` against the test values ``y``."""
    y = np.asarray(y, dtype=float)
    mean = np.asarray(forecast.mean, dtype=float)
    inside = (y >= forecast.lower) & (y <= forecast.upper)
    error, mlpd = rmse(mean, y), None
    if forecast.sd is not None:
        error, mlpd = test_scores(y, mean, np.asarray(forecast.sd, dtype=float))
    return Scores(
        rmse=error,
        mae=float(np.mean(np.abs(y - mean))),
        covered=int(inside.sum()),
        n=int(y.size),
        width_factor=width_factor(forecast, y),
        mlpd=mlpd,
    )


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
