"""The Laplace evidence (kernel_search/evidence.py) against quadrature and closed forms."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.integrate import trapezoid

from abcd_cli.data.summary import InputSummaries
from abcd_cli.engines import get_engine
from abcd_cli.kernel_search.evidence import (
    CORRECTED_PARAMS,
    ParameterPrior,
    chain_importance,
    effective_size,
    floored_inverse,
    hessian,
    importance,
    laplace,
    normalised,
    parameter_draws,
)
from abcd_cli.kernel_search.init import theta_bounds
from abcd_cli.kernel_search.parameter_chain import posterior_draws
from abcd_cli.kernels import SE, WN, Sum

EXACT = get_engine("exact")


def _noise(n: int = 200, sd: float = 0.7, seed: int = 3) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = np.linspace(-1.5, 1.5, n)[:, None]
    return X, rng.normal(0.0, sd, n)


def test_the_hessian_of_a_quadratic_is_its_matrix() -> None:
    A = np.array([[3.0, 0.5, -0.2], [0.5, 2.0, 0.1], [-0.2, 0.1, 1.0]])
    H = hessian(lambda t: A @ t - 1.0, np.array([0.3, -0.1, 2.0]))
    np.testing.assert_allclose(H, A, atol=1e-8)


def test_the_prior_puts_the_bounds_two_sds_from_its_centre() -> None:
    prior = ParameterPrior.from_bounds([(-2.0, 4.0), (0.0, 1.0)])
    np.testing.assert_allclose(prior.centre, [1.0, 0.5])
    np.testing.assert_allclose(prior.sd, [1.5, 0.25])
    t = np.array([0.2, 0.9])
    step = 1e-6
    numeric = [
        (prior.log_density(t + step * e) - prior.log_density(t - step * e)) / (2 * step)
        for e in np.eye(2)
    ]
    np.testing.assert_allclose(prior.gradient(t), numeric, rtol=1e-6)


def _quadrature_evidence(kernel, X, y, summary) -> float:
    """log ∫ p(y | θ) p(θ) dθ of a one-parameter kernel on a fine grid of θ."""
    prior = ParameterPrior.from_bounds(theta_bounds(kernel, summary))
    grid = np.linspace(kernel.theta()[0] - 1.0, kernel.theta()[0] + 1.0, 4001)
    log_joint = np.array(
        [
            -EXACT.objective_value(kernel.with_theta(np.array([t])), X, y)
            + prior.log_density(np.array([t]))
            for t in grid
        ]
    )
    top = log_joint.max()
    return top + math.log(trapezoid(np.exp(log_joint - top), grid))


def test_the_laplace_evidence_of_white_noise_matches_quadrature() -> None:
    """One parameter, θ = log σ: p(y) = ∫ p(y | θ) p(θ) dθ on a fine grid, against Laplace at
    the posterior's mode (the posterior of log σ from 200 points is close to normal)."""
    X, y = _noise()
    summary = InputSummaries.from_data(X, y)
    kernel = WN((float(np.sqrt(np.mean(y**2))),))
    approx = laplace(kernel, X, y, summary, EXACT)
    assert approx.log_evidence == pytest.approx(
        _quadrature_evidence(kernel, X, y, summary), abs=0.01
    )
    assert approx.floored == 0


def test_importance_sampling_from_laplace_estimates_the_evidence() -> None:
    """From a deliberately poor proposal (centred off the optimum) the weighted draws still
    estimate p(y); a draw that failed (nll inf) gets no weight."""
    X, y = _noise(n=30)
    summary = InputSummaries.from_data(X, y)
    kernel = WN((1.3 * float(np.sqrt(np.mean(y**2))),))
    approx = laplace(kernel, X, y, summary, EXACT)
    kernels = parameter_draws(approx, 4000, np.random.default_rng(1))
    nlls = np.array([EXACT.objective_value(k, X, y) for k in kernels])
    nlls[0] = math.inf
    weighted = importance(approx, kernels, nlls)
    assert weighted.weights[0] == 0 and weighted.weights.sum() == pytest.approx(1.0)
    exact = _quadrature_evidence(kernel, X, y, summary)
    assert weighted.log_evidence == pytest.approx(exact, abs=0.03)
    assert 100 < weighted.effective_size < 4000


def test_the_chains_own_proposals_estimate_the_evidence() -> None:
    """On 12 points, importance sampling from a chain's proposals (weighed against the
    mixture of the Gaussians they were drawn from, at no further evaluation) comes within
    0.1 nats of quadrature."""
    X, y = _noise(n=12)
    summary = InputSummaries.from_data(X, y)
    kernel = WN((float(np.sqrt(np.mean(y**2))),))
    approx = laplace(kernel, X, y, summary, EXACT)
    _, chain = posterior_draws(approx, X, y, EXACT, 8, np.random.default_rng(0), 400, 200)
    assert chain.proposals.shape == (400, 1) and chain.proposal_targets.shape == (400,)
    exact = _quadrature_evidence(kernel, X, y, summary)
    assert chain_importance(approx, chain) == pytest.approx(exact, abs=0.1)


def test_a_structure_of_many_parameters_keeps_its_laplace_evidence() -> None:
    """Above CORRECTED_PARAMS a chain of a few hundred steps does not cover the posterior and
    its estimate falls short: the Laplace evidence stands."""
    X, y = _noise(n=30)
    summary = InputSummaries.from_data(X, y)
    kernel = Sum((SE((0.5, 0.7)), SE((0.1, 0.2)), WN((0.7,))))
    assert kernel.n_params > CORRECTED_PARAMS
    approx = laplace(kernel, X, y, summary, EXACT)
    _, chain = posterior_draws(approx, X, y, EXACT, 4, np.random.default_rng(0), 20, 20)
    assert chain_importance(approx, chain) == approx.log_evidence


def test_the_posterior_variance_of_log_sigma_is_its_curvature_at_the_mode() -> None:
    """−log p(y | θ) = Nθ + Σy²/(2e^{2θ}) + c has curvature 2Σy²e^{−2θ}, 2N at its own
    optimum; the approximation takes it at the posterior's mode, with the prior's added."""
    X, y = _noise()
    summary = InputSummaries.from_data(X, y)
    kernel = WN((float(np.sqrt(np.mean(y**2))),))
    approx = laplace(kernel, X, y, summary, EXACT)
    prior = ParameterPrior.from_bounds(theta_bounds(kernel, summary))
    curvature = 2 * np.sum(y**2) * math.exp(-2 * approx.theta[0])
    expected = 1.0 / (curvature + prior.precision[0])
    assert approx.covariance[0, 0] == pytest.approx(expected, rel=1e-4)


def test_the_approximation_is_taken_at_the_posteriors_mode_not_the_likelihoods() -> None:
    """For white noise of log sd θ, the posterior's mode solves
    N − Σy² e^{−2θ} + (θ − centre) / sd² = 0, away from the likelihood's optimum
    log √(mean y²) when the prior's centre is not there (a short series: the prior weighs)."""
    X, y = _noise(n=12)
    summary = InputSummaries.from_data(X, y)
    fitted = WN((float(np.sqrt(np.mean(y**2))),))
    approx = laplace(fitted, X, y, summary, EXACT)
    prior = ParameterPrior.from_bounds(theta_bounds(fitted, summary))
    t = approx.theta[0]
    score = y.size - np.sum(y**2) * math.exp(-2 * t) + (t - prior.centre[0]) / prior.sd[0] ** 2
    assert abs(score) < 1e-4 * y.size
    assert abs(t - fitted.theta()[0]) > 1e-3
    assert approx.kernel.theta()[0] == pytest.approx(t)


def test_a_direction_the_data_do_not_see_is_held_by_the_prior() -> None:
    """Two white noises: only σ₁² + σ₂² is seen, so one eigenvalue of the likelihood's Hessian
    is zero; it is raised to the prior's curvature and the evidence stays finite."""
    X, y = _noise()
    summary = InputSummaries.from_data(X, y)
    s = float(np.sqrt(np.mean(y**2) / 2))
    approx = laplace(Sum((WN((s,)), WN((s,)))), X, y, summary, EXACT)
    assert approx.floored >= 1 and math.isfinite(approx.log_evidence)
    assert np.all(np.linalg.eigvalsh(approx.covariance) > 0)


def test_floored_inverse_is_the_inverse_when_nothing_is_raised() -> None:
    H = np.array([[4.0, 1.0], [1.0, 3.0]])
    inverse, log_det, raised = floored_inverse(H, np.array([0.1, 0.1]))
    np.testing.assert_allclose(inverse, np.linalg.inv(H))
    assert log_det == pytest.approx(math.log(11.0)) and raised == 0


def test_parameter_draws_follow_the_laplace_posterior() -> None:
    rng = np.random.default_rng(0)
    X = np.linspace(0.0, 3.0, 80)[:, None]
    y = np.sin(2 * X[:, 0]) + rng.normal(0.0, 0.1, 80)
    summary = InputSummaries.from_data(X, y)
    kernel = Sum((SE((0.5, 0.7)), WN((0.1,))))
    approx = laplace(kernel, X, y, summary, EXACT)
    draws = np.array([k.theta() for k in parameter_draws(approx, 4000, rng)])
    np.testing.assert_allclose(draws.mean(axis=0), approx.theta, atol=0.2)
    np.testing.assert_allclose(np.cov(draws.T), approx.covariance, rtol=0.1, atol=0.01)
    assert parameter_draws(approx, 3, rng)[0].structure == kernel.structure


def test_weights_of_failed_draws_are_zero_and_the_rest_sum_to_one() -> None:
    weights = normalised(np.array([0.0, -math.inf, math.log(3.0)]))
    np.testing.assert_allclose(weights, [0.25, 0.0, 0.75])
    assert effective_size(weights) == pytest.approx(1.0 / (0.25**2 + 0.75**2))
    np.testing.assert_allclose(normalised(np.full(4, -math.inf)), np.full(4, 0.25))
