"""The screen of a table by one fit of the additive GP (``kernel_search.screening``): inputs
that do nothing are dropped, real pairwise interactions kept, no spurious higher order."""

from __future__ import annotations

import math

import numpy as np
import pytest

from abcd_cli.kernel_search.screening import (
    BORDER_SHARE,
    INPUT_SHARE,
    Shares,
    decide,
    order_coefficients,
    screen_table,
    screens,
    time_inputs,
    variance_shares,
)
from abcd_cli.kernels import Additive
from abcd_cli.kernels.additive import elementary_symmetric


def _table(seed: int = 3, n: int = 160) -> tuple[np.ndarray, np.ndarray]:
    """Five inputs: x0 smooth, x1 · x2 an interaction, x3 linear, x4 nothing."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, (n, 5))
    y = np.sin(X[:, 0]) + 0.8 * X[:, 1] * X[:, 2] + 0.5 * X[:, 3] + 0.1 * rng.normal(size=n)
    return X, (y - y.mean()) / y.std()


@pytest.fixture(scope="module")
def screened():
    X, y = _table()
    return screen_table(X, y, seed=0, restarts=2, max_iter=100)


def test_an_input_that_does_nothing_is_dropped(screened):
    assert 4 not in screened.inputs
    assert {0, 1, 2, 3} <= set(screened.inputs)
    assert screened.shares.inputs[4] < 0.01


def test_a_real_interaction_is_kept_and_no_spurious_third_order(screened):
    assert (1, 2) in screened.pairs
    assert all(4 not in pair for pair in screened.pairs)
    assert screened.max_order == 2
    assert screened.shares.orders[2] < 0.02


def test_an_additive_table_names_no_interaction():
    rng = np.random.default_rng(5)
    X = rng.uniform(-2, 2, (150, 3))
    y = np.sin(X[:, 0]) + 0.5 * X[:, 1] + 0.1 * rng.normal(size=150)
    screen = screen_table(X, (y - y.mean()) / y.std(), seed=0, restarts=2, max_iter=100)
    assert screen.pairs == ()
    assert screen.max_order == 1
    assert 2 not in screen.inputs


def test_order_coefficients_rewrite_the_kernel_in_u():
    """Σ_r σ_r² e_r(z) equals a constant plus Σ_t c_t e_t(1 − z), entry by entry."""
    rng = np.random.default_rng(0)
    z = [rng.uniform(0.1, 1.0, (4, 4)) for _ in range(4)]
    sds = (0.7, 1.3, 0.4)
    _, e_z = elementary_symmetric(z, 3)
    _, e_u = elementary_symmetric([1.0 - zd for zd in z], 3)
    c = order_coefficients(sds, 4)
    left = sum(sd**2 * e_z[r] for r, sd in enumerate(sds, start=1))
    constant = sum(sd**2 * math.comb(4, r) for r, sd in enumerate(sds, start=1))
    right = constant + sum(c[t - 1] * e_u[t] for t in range(1, 4))
    np.testing.assert_allclose(left, right, rtol=1e-12, atol=1e-12)


def test_an_input_of_long_lengthscale_has_no_share():
    X = np.random.default_rng(1).uniform(-1, 1, (40, 2))
    kernel = Additive.on_inputs(2, 2).with_own_values([1.0, 0.5, 0.7, 1e6])
    shares = variance_shares(kernel, 0.1, X, np.sin(3 * X[:, 0]))
    assert shares.inputs[1] < 1e-9 and shares.pairs[(0, 1)] < 1e-9
    assert shares.inputs[0] > 0.5


def test_the_rule_on_shares():
    shares = Shares((0.3, 0.01, 0.001, 0.2), {(0, 1): 0.1, (0, 3): 0.01}, (0.8, 0.19, 0.01))
    screen = decide(shares, change_inputs=(2, 3))
    assert screen.inputs == (0, 1, 3)  # x1 kept for its interaction, x2 dropped
    assert screen.pairs == ((0, 1),)
    assert screen.max_order == 2
    assert screen.change_inputs == (3,)


def test_which_searches_screen_and_which_inputs_are_time():
    assert screens("abcd", True, 3)
    assert not screens("abcd", True, 1)  # a series' search is unchanged
    assert not screens("abcd", False, 3)
    assert not screens("mkl", True, 3)
    assert time_inputs(("weight", "year", "t_s")) == (1, 2)


def test_no_third_order_without_three_inputs_interacting_pairwise():
    pairs = {(0, 1): 0.2, (1, 2): 0.2, (0, 2): 0.001}
    shares = Shares((0.3, 0.3, 0.3), pairs, (0.5, 0.3, 0.2))
    assert decide(shares).max_order == 2
    triangle = Shares((0.3, 0.3, 0.3), {**pairs, (0, 2): 0.2}, (0.5, 0.3, 0.2))
    assert decide(triangle).max_order == 3


def test_a_borderline_input_is_kept_from_the_floor_with_its_share_stated():
    shares = Shares((0.4, 0.015, 0.003, 0.012), {(0, 3): 0.05}, (0.9, 0.1))
    assert decide(shares).inputs == (0, 3)  # x1 (1.5%) under INPUT_SHARE: dropped
    screen = decide(shares, floor=BORDER_SHARE)
    assert BORDER_SHARE <= 0.015 < INPUT_SHARE
    assert screen.inputs == (0, 1, 3)  # x2 (0.3%) under the floor; x3 held by its pair
    assert screen.borderline == (1,)
    document = screen.to_dict()
    assert document["borderline_inputs"] == ["x2"]
    assert screen.floor == document["floor"] == BORDER_SHARE
    assert decide(shares).floor == INPUT_SHARE
    assert document["input_shares"]["x2"] == 0.015
