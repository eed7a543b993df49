"""Posterior predictive checks of a fitted model.

Under the model, the standardised one-step-ahead prediction errors (the engine's
``Posterior.standardised_errors``; exact: e = L⁻¹ y with K = L Lᵀ and the data in x order) are
independent N(0, 1). Their autocorrelation, periodogram and quantiles are compared with
simulated N(0, I) draws; a p-value is the share of draws whose statistic is at least the
observed one.
"""

from __future__ import annotations

import numpy as np
from scipy.stats import norm

from abcd_cli.decompose.facts import ModelCheck
from abcd_cli.engines.base import Posterior

N_SIMULATIONS = 1000


def _acf(e: np.ndarray, lags: int) -> np.ndarray:
    e = e - e.mean()
    denom = float(e @ e) or 1.0
    return np.array([float(e[:-h] @ e[h:]) / denom for h in range(1, lags + 1)])


def _periodogram(e: np.ndarray) -> np.ndarray:
    power = np.abs(np.fft.rfft(e - e.mean())) ** 2 / e.size
    return power[1:]


def _qq_gap(e: np.ndarray, theory: np.ndarray) -> np.ndarray:
    return np.sort(e) - theory


def _check(
    name: str, statistic: str, observed: np.ndarray, simulated: np.ndarray, axis_values: np.ndarray
) -> ModelCheck:
    """p = share of simulations whose max |value| reaches the observed max |value|."""
    obs_stat = float(np.max(np.abs(observed)))
    sim_stat = np.max(np.abs(simulated), axis=1)
    p = float((1 + np.sum(sim_stat >= obs_stat)) / (1 + sim_stat.size))
    low, high = np.percentile(simulated, [2.5, 97.5], axis=0)
    return ModelCheck(name, statistic, p, observed, low, high, axis_values)


def model_checks(post: Posterior, rng: np.random.Generator) -> list[ModelCheck]:
    """Autocorrelation, periodogram and quantile checks of the standardised errors."""
    e = post.standardised_errors()
    n = e.size
    sims = rng.standard_normal((N_SIMULATIONS, n))
    lags = max(1, min(30, n // 4))
    theory = norm.ppf((np.arange(1, n + 1) - 0.5) / n)
    freqs = np.arange(1, n // 2 + 1) / n
    return [
        _check(
            "autocorrelation",
            f"largest autocorrelation of the standardised residuals over lags 1-{lags}",
            _acf(e, lags),
            np.array([_acf(s, lags) for s in sims]),
            np.arange(1, lags + 1),
        ),
        _check(
            "periodogram",
            "largest peak of the standardised residuals' periodogram",
            _periodogram(e),
            np.array([_periodogram(s) for s in sims]),
            freqs[: n // 2],
        ),
        _check(
            "quantile-quantile",
            "largest gap between residual quantiles and normal quantiles",
            _qq_gap(e, theory),
            np.array([_qq_gap(s, theory) for s in sims]),
            theory,
        ),
    ]
