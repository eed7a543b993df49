"""The Kalman likelihood's gradient by the filter's adjoint: against central differences of the
filter's own likelihood (to 1e-6 relative) on every base kernel and operator, and against the
dense engine's gradient where the form is exact; segments and a constant mean change nothing."""

from __future__ import annotations

import numpy as np
import pytest

from abcd_cli.engines.base import FAILED_NLL
from abcd_cli.engines.exact import nll_and_grad as dense
from abcd_cli.engines.statespace import gradient
from abcd_cli.engines.statespace.forms import NoStateSpaceForm
from abcd_cli.engines.statespace.kalman import negative_log_likelihood
from abcd_cli.kernels.text import parse_kernel
from tests.sampling import gp_draw

#: Every base kernel and operator the forms hold, with a repeated input and a gap.
X = np.delete(np.linspace(0.0, 10.0, 160), [60, 61, 62])
X[20] = X[19]
KERNELS = [
    "C(sd=1.3) + WN(sd=0.3)",
    "Lin(sd=0.5, location=2.0) + WN(sd=0.3)",
    "SE(lengthscale=1.5, sd=1.0) + WN(sd=0.3)",
    "Per(lengthscale=1.0, period=2.0, sd=1.0) + WN(sd=0.2)",
    "Cos(period=3.0, sd=1.0) + WN(sd=0.2)",
    "RQ(lengthscale=1.0, sd=0.5, alpha=6.0) + WN(sd=0.2)",
    "Per(lengthscale=2.0, period=2.5, sd=1.0) * SE(lengthscale=4.0, sd=1.0) + WN(sd=0.2)",
    "CP(SE(lengthscale=1.0, sd=1.0), Lin(sd=0.4, location=3.0), location=5.0, steepness=0.5)"
    " + Lin(sd=0.2, location=1.0) * WN(sd=0.3) + WN(sd=0.1)",
    "CW(Per(lengthscale=1.5, period=2.0, sd=1.0), C(sd=2.0) + WN(sd=0.5), location=5.0,"
    " width=2.0, steepness=0.3) + WN(sd=0.2)",
    "WN(sd=0.4)",
    "Lin(sd=0.3, location=2.0) * WN(sd=0.4) + WN(sd=0.1)",
]
#: Forms that are exact (no SE, Per or RQ approximation): the dense gradient to 1e-6.
EXACT = {0, 1, 4, 9, 10}


def _data(text: str) -> tuple[object, np.ndarray]:
    k = parse_kernel(text)
    return k, 2.0 + gp_draw(k.gram(X[:, None]), np.random.default_rng(5))


def _differences(k, y, constant_mean: bool) -> np.ndarray:
    theta = k.theta()
    out = np.empty(theta.size)
    for j in range(theta.size):
        e = np.zeros(theta.size)
        e[j] = 1e-5
        up = negative_log_likelihood(k.with_theta(theta + e), X, y, constant_mean)
        down = negative_log_likelihood(k.with_theta(theta - e), X, y, constant_mean)
        out[j] = (up - down) / 2e-5
    return out


@pytest.mark.parametrize("index", range(len(KERNELS)))
@pytest.mark.parametrize("constant_mean", [False, True])
def test_gradient_matches_differences_of_the_filters_likelihood(index, constant_mean):
    k, y = _data(KERNELS[index])
    value, grad = gradient.nll_and_grad(k.theta(), k, X, y, constant_mean)
    assert value == pytest.approx(negative_log_likelihood(k, X, y, constant_mean), rel=1e-10)
    np.testing.assert_allclose(grad, _differences(k, y, constant_mean), rtol=1e-6, atol=1e-5)
    if index in EXACT:
        dense_value, dense_grad = dense(k.theta(), k, X[:, None], y, constant_mean)
        assert value == pytest.approx(dense_value, rel=1e-9)
        np.testing.assert_allclose(grad, dense_grad, rtol=1e-6, atol=1e-6)


def test_the_approximate_forms_gradient_is_near_the_dense_one():
    """SE and Per within their stated accuracy: the gradient within a few hundredths."""
    k, y = _data(KERNELS[6])
    _, grad = gradient.nll_and_grad(k.theta(), k, X, y, True)
    _, exact = dense(k.theta(), k, X[:, None], y, True)
    np.testing.assert_allclose(grad, exact, atol=0.05)


def test_segments_of_kept_states_change_nothing(monkeypatch):
    k, y = _data(KERNELS[7])
    whole = gradient.nll_and_grad(k.theta(), k, X, y, True)
    monkeypatch.setattr(gradient, "STATE_BYTES", 8 * 3 * 40 * 11)  # segments of 11 points
    parts = gradient.nll_and_grad(k.theta(), k, X, y, True)
    assert parts[0] == pytest.approx(whole[0], rel=1e-12)
    np.testing.assert_allclose(parts[1], whole[1], rtol=1e-10, atol=1e-12)


def test_a_periodic_kernel_keeps_its_harmonics_across_the_differences():
    """A lengthscale on the edge of one more harmonic: the differences keep the count of θ."""
    k, y = _data("Per(lengthscale=0.7, period=2.0, sd=1.0) + WN(sd=0.2)")
    _, grad = gradient.nll_and_grad(k.theta(), k, X, y)
    assert np.all(np.isfinite(grad))


def test_too_many_distinct_gaps_are_refused_and_a_breakdown_is_the_failure_value(monkeypatch):
    k, y = _data(KERNELS[2])
    monkeypatch.setattr(gradient, "GRADIENT_TABLE_BYTES", 1000)
    irregular = np.sort(np.random.default_rng(1).uniform(0.0, 10.0, X.size))
    with pytest.raises(NoStateSpaceForm, match="distinct gaps"):
        gradient.nll_and_grad(k.theta(), k, irregular, y)
    noiseless = parse_kernel("C(sd=1.0)")
    value, grad = gradient.nll_and_grad(
        noiseless.theta(), noiseless, np.array([0.0, 0.0, 1.0]), np.array([1.0, 2.0, 3.0])
    )
    assert value == FAILED_NLL and np.all(grad == 0.0)
