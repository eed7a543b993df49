"""Posterior predictive checks of a fitted model.

Under the model, the standardised one-step-ahead prediction errors (the engine's
``Posterior.standardised_errors``; exact: e = L⁻¹ y with K = L Lᵀ and the data in x order) are
independent N(0, 1). Their autocorrelation, periodogram and quantiles are compared with
simulated N(0, I) draws; a p-value is the share of draws whose statistic is at least the
observed one. Long series keep each statistic's curve in bins (``CHECK_POSITIONS``).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import numpy as np
from scipy.stats import norm

from abcd_cli.decompose.facts import ModelCheck
from abcd_cli.engines.base import Posterior

N_SIMULATIONS = 1000
#: Positions (lags, frequencies, quantiles) a check keeps: beyond this many, consecutive
#: positions are pooled into this many bins, each holding its most extreme value (largest
#: |value|, signed), which leaves each statistic (the largest |value|) and its p-value unchanged.
CHECK_POSITIONS = 1000
#: Numbers in one block of simulated series (8 MiB): what bounds the checks' memory.
BLOCK_ELEMENTS = 2**20


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


def _bins(size: int) -> np.ndarray | None:
    """Edges of ``CHECK_POSITIONS`` bins of consecutive positions; None when there are no more
    positions than that (each is its own bin)."""
    if size <= CHECK_POSITIONS:
        return None
    return np.round(np.linspace(0, size, CHECK_POSITIONS + 1)).astype(int)


def _extremes(values: np.ndarray, edges: np.ndarray | None) -> np.ndarray:
    """Each row's value of largest |value| (with its sign) in each bin: the largest |value| of
    a row is unchanged."""
    if edges is None:
        return values
    high = np.maximum.reduceat(values, edges[:-1], axis=-1)
    low = np.minimum.reduceat(values, edges[:-1], axis=-1)
    return np.where(high >= -low, high, low)


def _centres(axis_values: np.ndarray, edges: np.ndarray | None) -> np.ndarray:
    """Each bin's place: the middle of its first and last positions."""
    if edges is None:
        return axis_values
    return (axis_values[edges[:-1]] + axis_values[edges[1:] - 1]) / 2.0


def model_checks(
    post: Posterior, rng: np.random.Generator, only: tuple[str, ...] | None = None
) -> list[ModelCheck]:
    """Autocorrelation, periodogram and quantile checks of the standardised errors (``only``:
    those of these names).

    The N(0, I) series are drawn ``BLOCK_ELEMENTS`` numbers at a time (the same draws as all at
    once), and each statistic is kept in at most ``CHECK_POSITIONS`` bins: memory O(N +
    simulations · bins), never simulations × N."""
    e = post.standardised_errors()
    n = e.size
    lags = max(1, min(30, n // 4))
    theory = norm.ppf((np.arange(1, n + 1) - 0.5) / n)
    freqs = np.arange(1, n // 2 + 1) / n
    specs: list[tuple[str, str, Callable[[np.ndarray], np.ndarray], np.ndarray]] = [
        (
            "autocorrelation",
            f"largest autocorrelation of the standardised residuals over lags 1-{lags}",
            partial(_acf, lags=lags),
            np.arange(1, lags + 1),
        ),
        (
            "periodogram",
            "largest peak of the standardised residuals' periodogram",
            _periodogram,
            freqs[: n // 2],
        ),
        (
            "quantile-quantile",
            "largest gap between residual quantiles and normal quantiles",
            partial(_qq_gap, theory=theory),
            theory,
        ),
    ]
    if only is not None:
        specs = [spec for spec in specs if spec[0] in only]
    edges = [_bins(axis.size) for *_, axis in specs]
    blocks: list[list[np.ndarray]] = [[] for _ in specs]
    rows = max(1, min(N_SIMULATIONS, BLOCK_ELEMENTS // max(n, 1)))
    for start in range(0, N_SIMULATIONS, rows):
        sims = rng.standard_normal((min(rows, N_SIMULATIONS - start), n))
        for (_, _, stat, _), bins, kept in zip(specs, edges, blocks, strict=True):
            kept.append(_extremes(np.array([stat(s) for s in sims]), bins))
    return [
        _check(
            name,
            text,
            _extremes(stat(e), bins),
            np.concatenate(kept),
            _centres(axis, bins),
        )
        for (name, text, stat, axis), bins, kept in zip(specs, edges, blocks, strict=True)
    ]
