"""The Durbin-Levinson likelihood (``engines.levinson``) against the dense Cholesky of the exact
engine, and the cases it must leave alone: non-stationary kernels, gaps, repeated points, more
than one input, a matrix that is not positive definite."""

from __future__ import annotations

import numpy as np
import pytest

from abcd_cli.engines.exact import negative_log_likelihood
from abcd_cli.engines.levinson import grid_exact_nll, toeplitz_form, toeplitz_nll
from abcd_cli.kernels.text import parse_kernel

STATIONARY = [
    "SE(lengthscale=1.5, sd=1.0) + WN(sd=0.3)",
    "RQ(lengthscale=1.0, sd=1.2, alpha=0.8) * Cos(period=2.0, sd=0.8) + C(sd=0.5) + WN(sd=0.05)",
    "SE(lengthscale=5.0, sd=1.0) * Per(lengthscale=1.0, period=2.4, sd=0.7)"
    " + SE(lengthscale=0.3, sd=0.2) + WN(sd=0.01)",
    "(SE(lengthscale=2.0, sd=1.0) + WN(sd=0.1)) * Per(lengthscale=1.2, period=3.0, sd=0.9)"
    " + WN(sd=0.2)",
]
NOT_STATIONARY = [
    "Lin(sd=0.3, location=4.0) + WN(sd=0.5)",
    "SE(lengthscale=3.0, sd=0.5) * Lin(sd=0.2, location=1.0) + WN(sd=0.3)",
    "CP(SE(lengthscale=2.0, sd=1.0), Per(lengthscale=1.0, period=2.0, sd=0.6), location=5.0,"
    " steepness=0.5) + WN(sd=0.3)",
    "CW(SE(lengthscale=1.0, sd=0.8), C(sd=0.4), location=6.0, width=2.0, steepness=0.3)"
    " + WN(sd=0.3)",
]


def _shuffled_grid(rng: np.random.Generator, n: int) -> np.ndarray:
    """The complete grid 0.37 + 0.1 k, k = 0 … n − 1, in random order."""
    return (0.37 + 0.1 * rng.permutation(n))[:, None]


@pytest.mark.parametrize("text", STATIONARY)
@pytest.mark.parametrize("constant_mean", [False, True])
def test_levinson_is_the_dense_cholesky_likelihood(text: str, constant_mean: bool):
    rng = np.random.default_rng(len(text))
    X = _shuffled_grid(rng, 400)
    y = np.sin(X[:, 0]) + 3.0 + rng.standard_normal(400)  # a far level, with constant_mean
    kernel = parse_kernel(text)
    found = grid_exact_nll(kernel, X, y, constant_mean)
    expected = negative_log_likelihood(kernel, X, y, constant_mean)
    assert found is not None
    assert found == pytest.approx(expected, rel=1e-10, abs=1e-8)


def test_the_column_is_the_first_row_of_the_gram_in_grid_order():
    rng = np.random.default_rng(1)
    X = _shuffled_grid(rng, 50)
    kernel = parse_kernel(STATIONARY[3])
    form = toeplitz_form(kernel, X)
    assert form is not None
    order, column = form
    np.testing.assert_array_equal(np.diff(X[order, 0]) > 0, True)
    np.testing.assert_allclose(column, kernel.gram(X[order])[0], rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("text", NOT_STATIONARY)
def test_a_kernel_that_is_not_stationary_takes_no_levinson_path(text: str):
    kernel = parse_kernel(text)
    assert not kernel.stationary
    X = _shuffled_grid(np.random.default_rng(2), 100)
    assert toeplitz_form(kernel, X) is None
    assert grid_exact_nll(kernel, X, np.ones(100)) is None


def test_stationarity_is_each_kernel_class_declaration():
    assert parse_kernel(
        "SE(lengthscale=1.0, sd=1.0) * Per(lengthscale=1.0, period=2.0, sd=1.0)"
        " + C(sd=1.0) + WN(sd=0.1)"
    ).stationary
    assert not parse_kernel("Lin(sd=0.3, location=4.0)").stationary
    assert not parse_kernel("SE(lengthscale=1.0, sd=1.0) * Lin(sd=0.3, location=4.0)").stationary


@pytest.mark.parametrize("inputs", ["gap", "repeat", "uneven", "two columns"])
def test_inputs_that_are_not_a_complete_grid_take_no_levinson_path(inputs: str):
    rng = np.random.default_rng(3)
    kernel = parse_kernel(STATIONARY[0])
    k = np.arange(100.0)
    if inputs == "gap":
        X = np.delete(k, 40)[:, None]
    elif inputs == "repeat":
        X = np.append(k, 7.0)[:, None]
    elif inputs == "uneven":
        X = np.sort(rng.uniform(0.0, 10.0, 100))[:, None]
    else:
        X = np.column_stack([k, k % 7])
    assert toeplitz_form(kernel, X) is None
    assert grid_exact_nll(kernel, X, rng.standard_normal(X.shape[0]), True) is None


def test_a_column_that_is_not_positive_definite_gives_none():
    column = np.array([1.0, 0.9, 0.2, -0.8])  # the 4×4 Toeplitz matrix has a negative eigenvalue
    assert (
        np.linalg.eigvalsh(column[np.abs(np.subtract.outer(np.arange(4), np.arange(4)))]).min() < 0
    )
    assert toeplitz_nll(column, np.ones(4), False) is None
