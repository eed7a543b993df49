"""The engine interface, checked on the exact engine: its score, objective and gradient, the
posterior of the model and of its components, its cost, and the registry that names it."""

from __future__ import annotations

import pickle
from dataclasses import dataclass

import numpy as np
import pytest
from scipy.stats import multivariate_normal

from abcd_cli.data.summary import DataSummary
from abcd_cli.engines import engine_names, get_engine
from abcd_cli.engines.base import Engine, NLLBounds, PosteriorError
from abcd_cli.engines.exact import ExactEngine, negative_log_likelihood
from abcd_cli.engines.exact_posterior import noise_variance
from abcd_cli.errors import InputError
from abcd_cli.kernel_search.candidate import FitTask, fit_candidate
from abcd_cli.kernel_search.greedy import check_size
from abcd_cli.kernel_search.settings import SearchSettings
from abcd_cli.kernels import SE
from abcd_cli.kernels.algebra import sum_of_products
from abcd_cli.kernels.text import parse_kernel
from tests.sampling import gp_draw

ENGINE = get_engine("exact")
RNG = np.random.default_rng(21)
X = np.sort(RNG.uniform(0.0, 10.0, 50))[:, None]
KERNEL = parse_kernel(
    "Lin(sd=0.3, location=2.0) * Per(lengthscale=1.5, period=2.5, sd=1.0)"
    " + CP(SE(lengthscale=3.0, sd=0.5), WN(sd=0.2), location=6.0, steepness=1.0) + WN(sd=0.3)"
)
Y = 1.5 + gp_draw(KERNEL.gram(X), RNG)
XS = np.linspace(-1.0, 12.0, 23)[:, None]


def test_registry_names_the_exact_engine_and_refuses_others():
    assert "exact" in engine_names()
    assert isinstance(ENGINE, ExactEngine) and isinstance(ENGINE, Engine)
    assert pickle.loads(pickle.dumps(ENGINE)) == ENGINE  # travels to worker processes
    with pytest.raises(ValueError, match="unknown engine 'sparse'"):
        get_engine("sparse")


@pytest.mark.parametrize("constant_mean", [False, True])
def test_exact_score_is_an_interval_of_zero_width_at_the_likelihood(constant_mean):
    bounds = ENGINE.score(KERNEL, X, Y, constant_mean)
    assert bounds.width == 0.0
    assert bounds.low == negative_log_likelihood(KERNEL, X, Y, constant_mean)
    value, _ = ENGINE.objective(KERNEL.theta(), KERNEL, X, Y, constant_mean)
    assert bounds.high == pytest.approx(value, rel=1e-12)
    assert ENGINE.objective_value(KERNEL, X, Y, constant_mean) == bounds.low
    # an objective value already known is taken as it is, not computed again
    assert ENGINE.score(KERNEL, X, Y, constant_mean, objective=3.25) == NLLBounds(3.25, 3.25)


def test_exact_score_is_minus_the_gaussian_log_density():
    expected = -multivariate_normal(np.zeros(Y.size), KERNEL.gram(X)).logpdf(Y)
    assert ENGINE.score(KERNEL, X, Y).low == pytest.approx(expected, rel=1e-10)


@pytest.mark.parametrize("constant_mean", [False, True])
def test_objective_gradient_matches_finite_differences(constant_mean):
    theta = KERNEL.theta()
    _, grad = ENGINE.objective(theta, KERNEL, X, Y, constant_mean)
    h = 1e-5  # smaller steps lose more to rounding than they gain in truncation (K is stiff)
    for i in range(theta.size):
        e = np.zeros_like(theta)
        e[i] = h
        up = ENGINE.objective(theta + e, KERNEL, X, Y, constant_mean)[0]
        down = ENGINE.objective(theta - e, KERNEL, X, Y, constant_mean)[0]
        assert (up - down) / (2 * h) == pytest.approx(grad[i], rel=1e-5, abs=1e-6), i


@pytest.mark.parametrize("constant_mean", [False, True])
def test_component_posteriors_sum_to_the_full_posterior(constant_mean):
    post = ENGINE.posterior(KERNEL, X, Y, constant_mean)
    parts = sum_of_products(KERNEL)
    assert len(parts) >= 4
    full_mean, full_var = post.component(KERNEL, XS)
    np.testing.assert_allclose(sum(post.component(p, XS)[0] for p in parts), full_mean, atol=1e-9)
    # the variance of the sum is the sum of every (co)variance, the level's share included
    summed = sum(post.covariance(a, b, XS) for a in parts for b in parts if a is not b)
    summed = summed + sum(post.covariance(a, Xs=XS) for a in parts)
    np.testing.assert_allclose(np.diag(summed), full_var, atol=1e-9)
    # y's prediction is the sum plus the level, and noise only in the noisy version
    mean, var_f = post.predict(XS, noise=False)
    np.testing.assert_allclose(mean, full_mean + post.level, atol=1e-12)
    _, var_y = post.predict(XS)
    np.testing.assert_allclose(var_y - var_f, noise_variance(KERNEL, XS), atol=1e-12)
    assert (post.level != 0.0) == constant_mean and (post.level_sd > 0) == constant_mean


def test_noise_variance_is_the_white_noise_part_of_the_prior_variance():
    """The sum of the WN terms' k(x, x) equals k(x, x) minus the covariance between two
    distinct observations at the same x (the m×m formula it replaces)."""
    for text in (
        "SE(lengthscale=1.0, sd=2.0) + WN(sd=0.3)",
        "WN(sd=0.5) * Lin(sd=1.0, location=-1.0) + Per(lengthscale=1.0, period=2.0, sd=1.0)",
        "CW(SE(lengthscale=2.0, sd=1.0), WN(sd=0.7) * SE(lengthscale=3.0, sd=2.0),"
        " location=4.0, width=2.0, steepness=0.5)",
        KERNEL.to_text(),
    ):
        k = parse_kernel(text)
        old = np.diag(k.gram(XS)) - np.diag(k.gram(XS, XS.copy()))
        np.testing.assert_allclose(noise_variance(k, XS), old, rtol=1e-12, atol=1e-14)
    assert np.all(noise_variance(SE((1.0, 1.0)), XS) == 0.0)


def test_standardised_errors_whiten_the_residual_in_x_order():
    post = ENGINE.posterior(KERNEL, X, Y, True)
    e = post.standardised_errors()
    K_inv_r = np.linalg.solve(KERNEL.gram(X), post.residual)
    assert float(e @ e) == pytest.approx(float(post.residual @ K_inv_r), rel=1e-9)
    shuffled = RNG.permutation(X.size)
    again = ENGINE.posterior(KERNEL, X[shuffled], Y[shuffled], True).standardised_errors()
    np.testing.assert_allclose(again, e, atol=1e-9)  # the data's order does not matter


def test_a_fold_posterior_is_the_posterior_given_the_training_points():
    post = ENGINE.posterior(KERNEL, X, Y, True)
    train = np.arange(0, X.shape[0], 2)
    fold = post.given(train)
    direct = ENGINE.posterior(KERNEL, X[train], post.residual[train])
    part = sum_of_products(KERNEL)[0]
    np.testing.assert_array_equal(fold.mean(part, XS), direct.mean(part, XS))
    assert fold.level == 0.0
    with pytest.raises(PosteriorError):
        post.given(train, SE((1.0, float("nan"))))


def test_cost_reproduces_the_refusal_of_a_too_long_series():
    with pytest.raises(InputError) as info:
        check_size(30000, SearchSettings())
    assert str(info.value) == (
        "30000 points are too many for the exact Gaussian-process fit: it would need about"
        " 120.7 GiB of memory per worker (limit 4 GiB) and roughly 360.0 hours per search level;"
        " use --engine skc (bounds through inducing inputs, made for long series; --engine auto"
        " chooses it), or thin or aggregate the series to at most 5461 points"
    )
    with pytest.raises(InputError, match=r"^8000 points .* 8\.6 GiB .* roughly 11\.0 hours"):
        check_size(8000, SearchSettings(refine=5, beam=1, refine_iter=77))
    check_size(5461, SearchSettings())  # the largest accepted
    with pytest.raises(InputError, match="at most 5461 points"):
        check_size(5462, SearchSettings())
    typical = ENGINE.cost(1000)
    assert typical.bytes == 8.0 * 1000**2 * 18 and typical.seconds == pytest.approx(0.2)
    assert ENGINE.cost(1000, KERNEL).bytes > ENGINE.cost(1000, SE((1.0, 1.0))).bytes


@dataclass(frozen=True)
class WideEngine(ExactEngine):
    """The exact engine with a pretend uncertainty of ±1 nat: the search must rank by the
    interval's pessimistic end."""

    def score(self, kernel, X, y, constant_mean=False, objective=None):
        exact = super().score(kernel, X, y, constant_mean, objective)
        return NLLBounds(exact.low - 1.0, exact.high + 1.0)


def test_a_candidate_is_scored_by_its_engine():
    x = np.linspace(0.0, 10.0, 40)
    y = np.sin(x) + 0.1 * np.cos(7 * x)
    s = DataSummary.from_data(x, y)
    start = parse_kernel("SE + WN")
    task = FitTask(start, x[:, None], y, s, s, 2, 1, 20, (0,))
    exact = fit_candidate(task)
    wide = fit_candidate(FitTask(start, x[:, None], y, s, s, 2, 1, 20, (0,), engine=WideEngine()))
    assert exact.status == wide.status == "ok" and exact.bounds.width == 0.0
    assert wide.kernel == exact.kernel  # the same optimisation
    assert wide.bounds.width == pytest.approx(2.0)
    assert wide.nll == wide.bounds.high == pytest.approx(exact.nll + 1.0)


@pytest.mark.parametrize("engine", ["exact", "skc"])
def test_far_from_the_data_f_has_its_prior_variance_and_y_adds_the_noise_once(engine):
    """SE(sd=1) + WN(sd=0.5) far beyond the data: var f = 1, var y = 1 + 0.25 (white noise
    belongs to observations, so f at a new input carries none of it)."""
    kernel = parse_kernel("SE(lengthscale=1.0, sd=1.0) + WN(sd=0.5)")
    x = np.linspace(0.0, 1.0, 20)[:, None]
    post = get_engine(engine).posterior(kernel, x, np.sin(x[:, 0]))
    far = np.array([[100.0]])
    assert post.predict(far, noise=False)[1] == pytest.approx([1.0])
    assert post.predict(far)[1] == pytest.approx([1.25])
