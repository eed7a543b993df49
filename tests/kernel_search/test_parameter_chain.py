"""The Metropolis chain over a structure's parameters (kernel_search/parameter_chain.py)."""

from __future__ import annotations

import math

import numpy as np

from abcd_cli.data.summary import InputSummaries
from abcd_cli.engines import get_engine
from abcd_cli.kernel_search.evidence import laplace
from abcd_cli.kernel_search.parameter_chain import metropolis, posterior_draws
from abcd_cli.kernels import WN

EXACT = get_engine("exact")


def _gaussian(mean: np.ndarray, cov: np.ndarray):
    precision = np.linalg.inv(cov)

    def log_target(t: np.ndarray) -> float:
        diff = t - mean
        return float(-0.5 * diff @ precision @ diff)

    return log_target


def test_the_chain_samples_its_target_from_a_poor_proposal() -> None:
    mean, cov = np.array([1.0, -2.0]), np.array([[1.0, 0.8], [0.8, 2.0]])
    chain = metropolis(
        _gaussian(mean, cov), np.zeros(2), 0.1 * np.eye(2), 40_000, 2_000, np.random.default_rng(0)
    )
    np.testing.assert_allclose(chain.states.mean(axis=0), mean, atol=0.1)
    np.testing.assert_allclose(np.cov(chain.states.T), cov, atol=0.15)
    assert 0.15 < chain.acceptance < 0.35  # the warm-up found a scale near the 0.234 aim


def test_a_state_the_target_rules_out_is_never_taken() -> None:
    def half_plane(t: np.ndarray) -> float:
        return -0.5 * float(t @ t) if t[0] > 0 else -math.inf

    chain = metropolis(
        half_plane, np.array([1.0, 0.0]), np.eye(2), 3_000, 300, np.random.default_rng(1)
    )
    assert np.all(chain.states[:, 0] > 0)


def test_one_seed_gives_one_chain() -> None:
    args = (_gaussian(np.zeros(2), np.eye(2)), np.zeros(2), np.eye(2), 200, 50)
    first = metropolis(*args, np.random.default_rng(7))
    again = metropolis(*args, np.random.default_rng(7))
    np.testing.assert_array_equal(first.states, again.states)


def test_draws_of_a_noise_level_have_the_posterior_spread() -> None:
    """log σ of white noise from 200 points: posterior variance ≈ 1 / (2N + prior precision)."""
    rng = np.random.default_rng(3)
    X = np.linspace(-1.5, 1.5, 200)[:, None]
    y = rng.normal(0.0, 0.7, 200)
    approx = laplace(
        WN((float(np.sqrt(np.mean(y**2))),)), X, y, InputSummaries.from_data(X, y), EXACT
    )
    kernels, chain = posterior_draws(approx, X, y, EXACT, 50, rng, steps=6_000, warmup=500)
    assert len(kernels) == 50 and kernels[-1].structure == "WN"
    expected = approx.covariance[0, 0]
    assert abs(np.var(chain.states[:, 0]) / expected - 1.0) < 0.2
