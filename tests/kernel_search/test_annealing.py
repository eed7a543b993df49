"""Data annealing for sequential Monte Carlo (kernel_search/annealing.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import multivariate_normal

from abcd_cli.engines import get_engine
from abcd_cli.kernel_search.annealing import data_steps, log_predictive, step_weight
from abcd_cli.kernels import SE, WN, Sum

EXACT = get_engine("exact")


def test_steps_are_nested_and_end_with_every_row() -> None:
    steps = data_steps(100, 10, 10)
    assert [s.size for s in steps] == list(range(10, 101, 10))
    assert all(set(a) <= set(b) for a, b in zip(steps, steps[1:], strict=False))
    order = np.random.default_rng(0).permutation(50)
    shuffled = data_steps(50, 5, 10, order)
    assert set(shuffled[0]) == set(order[:10]) and shuffled[-1].tolist() == list(range(50))
    with pytest.raises(ValueError):
        data_steps(5, 2, 1, np.array([0, 0, 1, 2, 3]))


def test_the_predictive_of_new_points_is_the_gaussian_conditional() -> None:
    """log p(y_new | y_old) against N(K_no K_oo⁻¹ y_o, K_nn − K_no K_oo⁻¹ K_on) written out."""
    rng = np.random.default_rng(2)
    X = np.sort(rng.uniform(0, 4, 40))[:, None]
    y = np.sin(2 * X[:, 0]) + rng.normal(0, 0.2, 40)
    kernel = Sum((SE((0.6, 1.0)), WN((0.2,))))
    old, new = np.arange(25), np.arange(40)
    K = kernel.gram(X)
    o, n = old, np.arange(25, 40)
    gain = K[np.ix_(n, o)] @ np.linalg.inv(K[np.ix_(o, o)])
    mean = gain @ y[o]
    cov = K[np.ix_(n, n)] - gain @ K[np.ix_(o, n)]
    expected = multivariate_normal(mean, cov).logpdf(y[n])
    assert log_predictive(kernel, X, y, old, new, EXACT) == pytest.approx(expected, abs=1e-8)


def test_the_steps_predictives_add_up_to_the_marginal_likelihood() -> None:
    rng = np.random.default_rng(3)
    X = np.linspace(0, 3, 30)[:, None]
    y = np.cos(3 * X[:, 0]) + rng.normal(0, 0.1, 30)
    kernel = Sum((SE((0.5, 1.0)), WN((0.1,))))
    steps = data_steps(30, 4, 6)
    total = sum(
        log_predictive(kernel, X, y, old, new, EXACT)
        for old, new in zip([np.arange(0)] + steps[:-1], steps, strict=True)
    )
    assert total == pytest.approx(-EXACT.objective_value(kernel, X, y), abs=1e-8)


def test_a_step_a_particle_cannot_be_conditioned_on_weighs_nothing() -> None:
    """The sampler's weight of a failed particle: −inf (``evidence.normalised`` makes it 0)."""
    assert step_weight(-10.0, -math.inf) == -math.inf
    assert step_weight(-math.inf, -10.0) == -math.inf
    assert step_weight(-10.0, -12.5) == -2.5
    assert [s.size for s in data_steps(30, 1, 6)] == [30]  # one step: every row at once
