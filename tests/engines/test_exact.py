"""Exact GP: likelihood against scipy, its gradient, failure values, fitting, scaling
invariance and the posteriors of additive components."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import multivariate_normal

from abcd_cli.data.scaling import Scaling
from abcd_cli.engines.exact import FAILED_NLL, negative_log_likelihood, nll_and_grad
from abcd_cli.engines.exact_posterior import ExactPosterior as Posterior
from abcd_cli.kernel_search.fit import fit
from abcd_cli.kernels import SE, WN, Lin, Per, total
from abcd_cli.kernels.algebra import sum_of_products
from abcd_cli.kernels.text import parse_kernel
from tests.sampling import gp_draw

RNG = np.random.default_rng(5)
X = np.sort(RNG.uniform(0.0, 10.0, 60))
TRUE = parse_kernel(
    "SE(lengthscale=3.0, sd=1.0) + Per(lengthscale=1.0, period=2.0, sd=0.7) + WN(sd=0.2)"
)
Y = gp_draw(TRUE.gram(X), RNG)


def test_likelihood_matches_scipy_multivariate_normal():
    k = parse_kernel(
        "Lin(sd=0.3, location=2.0) * Per(lengthscale=1.5, period=2.5, sd=1.0) + WN(sd=0.4)"
    )
    expected = -multivariate_normal(np.zeros(X.size), k.gram(X)).logpdf(Y)
    assert negative_log_likelihood(k, X, Y) == pytest.approx(expected, rel=1e-10)
    nll, _ = nll_and_grad(k.theta(), k, X, Y)
    assert nll == pytest.approx(expected, rel=1e-10)


def test_likelihood_gradient_matches_finite_differences():
    k = parse_kernel(
        "CP(SE(lengthscale=2.0, sd=1.0), Per(lengthscale=1.0, period=2.1, sd=0.5), location=5.0, steepness=0.5)"
        " + WN(sd=0.3) * Lin(sd=0.2, location=-1.0)"
    )
    theta = k.theta()
    _, grad = nll_and_grad(theta, k, X, Y)
    h = 1e-6
    for i in range(theta.size):
        e = np.zeros_like(theta)
        e[i] = h
        numeric = (nll_and_grad(theta + e, k, X, Y)[0] - nll_and_grad(theta - e, k, X, Y)[0]) / (
            2 * h
        )
        assert numeric == pytest.approx(grad[i], rel=1e-5, abs=1e-6)


def test_singular_matrix_is_rescued_by_jitter():
    x = np.linspace(0, 1, 50)  # a noiseless smooth kernel: K is numerically singular
    k = SE((5.0, 1.0))
    nll = negative_log_likelihood(k, x, np.sin(x))
    assert math.isfinite(nll) and nll < FAILED_NLL


def test_failure_is_a_value_not_an_exception():
    k = SE((1.0, float("nan")))
    assert negative_log_likelihood(k, X, Y) == FAILED_NLL
    nll, grad = nll_and_grad(k.theta(), k, X, Y)
    assert nll == FAILED_NLL and np.all(grad == 0)


def test_a_periodic_lengthscale_of_zero_is_a_failed_value_not_an_exception():
    """1/ℓ² at ℓ = 0 (or one that squares to 0) raised ZeroDivisionError out of the engine."""
    for ell in (0.0, 1e-200):
        k = parse_kernel(f"Per(lengthscale={ell}, period=2.0, sd=1.0) + WN(sd=0.2)")
        assert negative_log_likelihood(k, X, Y) == FAILED_NLL
        nll, grad = nll_and_grad(k.theta(), k, X, Y)
        assert nll == FAILED_NLL and np.all(grad == 0)


@pytest.mark.parametrize("draw", range(4))
def test_fit_finds_the_generating_period(draw):
    """From random starts, the fit reaches the optimum found from the true values."""
    rng = np.random.default_rng(100 + draw)
    x = np.sort(rng.uniform(0.0, 10.0, 120))
    y = gp_draw(TRUE.gram(x), rng)
    result = fit(parse_kernel("SE + Per + WN"), x, y, np.random.default_rng(0), restarts=5)
    assert result.ok and result.n_starts == 5
    per = next(b for b in result.kernel.bases() if isinstance(b, Per))
    assert per.param("period") == pytest.approx(2.0, rel=0.03)
    from_truth = fit(TRUE, x, y, np.random.default_rng(0), restarts=1)
    assert result.nll <= from_truth.nll + 1e-3
    assert result.nll <= negative_log_likelihood(TRUE, x, y)


def test_fit_keeps_known_values_as_a_start_and_is_seeded():
    start = parse_kernel(
        "SE(lengthscale=3.0, sd=1.0) + Per(lengthscale=1.0, period=2.0, sd=0.7) + WN"
    )
    a = fit(start, X, Y, np.random.default_rng(3), restarts=3)
    b = fit(start, X, Y, np.random.default_rng(3), restarts=3)
    assert a.kernel == b.kernel and a.nll == b.nll
    fully_known = fit(TRUE, X, Y, np.random.default_rng(0), restarts=10)
    assert fully_known.n_starts == 1
    assert fully_known.nll <= negative_log_likelihood(TRUE, X, Y)


def _fit_in_internal_units(x, y, y_unit=1.0):
    """Fit SE + Per + WN from one start given in the user's units (sd in units of ``y_unit``).

    One start, so the two fits follow the same optimiser path: from several random starts a
    rounding difference can tip the choice between two local optima.
    """
    sc = Scaling.from_data(x, y)
    start = parse_kernel(
        f"SE(lengthscale=2.0, sd={0.8 * y_unit}) + Per(lengthscale=1.5, period=2.1, sd={0.5 * y_unit})"
        f" + WN(sd={0.3 * y_unit})"
    )
    res = fit(sc.kernel_in(start), sc.x_in(x), sc.y_in(y), np.random.default_rng(0))
    assert res.n_starts == 1
    return sc, sc.kernel_out(res.kernel), sc.nll_out(res.nll, len(y))


def test_results_are_in_user_units_and_invariant_to_affine_y():
    x = 1950.0 + X  # a realistic, badly-centred x
    sc1, k1, nll1 = _fit_in_internal_units(x, Y)
    sc2, k2, nll2 = _fit_in_internal_units(x, 1000.0 * Y + 7.0, y_unit=1000.0)
    assert k1.structure == k2.structure
    assert nll2 - nll1 == pytest.approx(X.size * math.log(1000.0), abs=1e-6)
    for b1, b2 in zip(k1.bases(), k2.bases(), strict=True):
        for name, v1, v2 in zip(b1.names, b1.params, b2.params, strict=True):
            expected = v1 * 1000.0 if name == "sd" else v1
            # equal up to L-BFGS-B's stopping slack along flat directions
            assert v2 == pytest.approx(expected, rel=1e-4), (b1, name)
    # the user-unit kernel gives the user-unit likelihood directly on the user's data
    assert negative_log_likelihood(k1, x, Y - sc1.y_shift) == pytest.approx(nll1, rel=1e-8)


def test_user_units_round_trip():
    sc = Scaling(1950.0, 3.0, 7.0, 20.0)
    k = parse_kernel(
        "CW(Lin(sd=0.5, location=0.3), SE(lengthscale=0.4, sd=1.0), location=0.1, width=0.5, steepness=0.05)"
        " * Per(lengthscale=1.2, period=0.33, sd=0.8) + WN(sd=0.1)"
    )
    back = sc.kernel_in(sc.kernel_out(k))
    np.testing.assert_allclose(back.values(), k.values(), rtol=1e-12)
    xs = np.linspace(-1, 1, 15)
    np.testing.assert_allclose(
        sc.kernel_out(k).gram(sc.x_out(xs)), sc.y_scale**2 * k.gram(xs), rtol=1e-10
    )


def test_component_posteriors_add_up_to_the_full_posterior():
    k = TRUE + Lin((0.05, 0.0)) * SE((4.0, 1.0))
    post = Posterior(k, X, Y)
    parts = sum_of_products(k)
    xs = np.linspace(-2.0, 12.0, 40)[:, None]
    full_mean, _ = post.component(k, xs)
    np.testing.assert_allclose(sum(post.component(p, xs)[0] for p in parts), full_mean, atol=1e-8)
    at_data = sum(post.component(p)[0] for p in parts)
    np.testing.assert_allclose(at_data, Y, atol=1e-6)  # K K⁻¹ y = y at the data


def test_component_covariances_add_up():
    parts = [SE((3.0, 1.0)), Per((1.0, 2.0, 0.7)), WN((0.2,))]
    post = Posterior(total(parts), X, Y)
    xs = np.linspace(0.0, 10.0, 12)[:, None]
    whole = post.covariance(total(parts), Xs=xs)
    summed = sum(post.covariance(a, b, Xs=xs) for a in parts for b in parts if a is not b)
    summed = summed + sum(post.covariance(a, Xs=xs) for a in parts)
    np.testing.assert_allclose(summed, whole, atol=1e-8)
    _, var = post.component(parts[0], xs)
    np.testing.assert_allclose(np.diag(post.covariance(parts[0], Xs=xs)), var, atol=1e-10)


def test_prediction_includes_noise_only_when_asked():
    post = Posterior(TRUE, X, Y)
    xs = np.array([[3.3], [15.0]])
    mean, var_y = post.predict(xs)
    _, var_f = post.predict(xs, noise=False)
    np.testing.assert_allclose(var_y - var_f, 0.04, rtol=1e-10)
    assert var_f[1] > var_f[0]  # far from data the latent function is less certain
    assert np.all(np.isfinite(mean))


def test_heteroscedastic_noise_is_supported():
    k = WN((0.5,)) * Lin((1.0, -1.0))
    var = Posterior(k + SE((2.0, 1.0)), X, Y).predict(np.array([[0.0], [9.0]]))[1]
    assert var[1] > var[0]
