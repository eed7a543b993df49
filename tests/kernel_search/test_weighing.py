"""The weighing of a pool (kernel_search/weighing.py): its weights against brute-force
importance sampling of each structure's evidence, on a small pool of a short series."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from abcd_cli.data.scaling import Scaling
from abcd_cli.data.summary import InputSummaries
from abcd_cli.engines import get_engine
from abcd_cli.execution.pool import SerialExecutor
from abcd_cli.kernel_search.evidence import (
    ParameterPrior,
    floored_inverse,
    hessian,
    importance,
    laplace,
    normalised,
    parameter_draws,
)
from abcd_cli.kernel_search.fit import fit
from abcd_cli.kernel_search.scoring import Scored, Scorer
from abcd_cli.kernel_search.weighing import weigh_pool
from abcd_cli.kernels.text import parse_kernel

EXACT = get_engine("exact")
#: Two structures whose weights the Laplace approximation at the likelihood's optimum made
#: 0.18 and 0.82 on this series, where brute force gives 0.07 and 0.93
STRUCTURES = (
    "SE(lengthscale=0.3, sd=1.0) + WN(sd=0.3)",
    "Per(lengthscale=1.0, period=1.0, sd=1.0) + WN(sd=0.3)",
)
#: Draws of the brute force per structure, from the Laplace Gaussian at twice its sd
BRUTE_DRAWS = 3000


def short_series() -> tuple[np.ndarray, np.ndarray]:
    """24 points of a yearly cycle on a slope with noise, over three years, standardised."""
    rng = np.random.default_rng(4)
    x = np.linspace(0.0, 3.0, 24)
    y = np.sin(2 * np.pi * x) + 0.5 * x + 0.3 * rng.standard_normal(x.size)
    return x[:, None], (y - y.mean()) / y.std()


def brute_force_log_evidence(kernel, X, y, summary) -> tuple[float, float]:
    """log p(y) = log ∫ p(y | θ) p(θ) dθ by importance sampling from a Gaussian about the
    fit (``kernel``'s theta) twice as wide as the curvature of −log p(y | θ) − log p(θ) there
    says (any density that covers the posterior gives an unbiased estimate), and the
    effective number of draws."""
    prior = ParameterPrior.of(kernel, summary)

    def gradient(theta: np.ndarray) -> np.ndarray:
        return EXACT.objective(theta, kernel, X, y)[1] - prior.gradient(theta)

    covariance, _, _ = floored_inverse(hessian(gradient, kernel.theta()), prior.precision)
    proposal = replace(
        laplace(kernel, X, y, summary, EXACT), theta=kernel.theta(), covariance=4.0 * covariance
    )
    drawn = parameter_draws(proposal, BRUTE_DRAWS, np.random.default_rng(2))
    nlls = np.array([EXACT.objective_value(k, X, y) for k in drawn])
    weighted = importance(proposal, drawn, nlls)
    return weighted.log_evidence, weighted.effective_size


def test_the_weights_agree_with_brute_force_importance_sampling() -> None:
    """The weighing's weights within 0.03 of those brute force gives, and each structure's
    evidence (the Laplace one at the posterior's mode, corrected by the chain's own
    proposals) within 0.15 nats of it, where the Laplace evidence alone is 0.2-0.35 off."""
    X, y = short_series()
    summary = InputSummaries.from_data(X, y)
    rng = np.random.default_rng(0)
    kernels = [
        fit(parse_kernel(text), X, y, rng, restarts=1, summary=summary).kernel
        for text in STRUCTURES
    ]
    scorer = Scorer(Scaling.from_data(X[:, 0], y, centre_y=False), False)
    pool = [Scored(k, 0.0, 0.0) for k in kernels]
    posterior = weigh_pool(pool, X, y, summary, scorer, 0, 8, EXACT, SerialExecutor())
    pairs = zip(posterior.structures, posterior.weights, strict=True)
    weighed = {s.kernel.to_text(): (s, w) for s, w in pairs}
    ours = np.array([weighed[k.to_text()][1] for k in kernels])

    brute = [brute_force_log_evidence(k, X, y, summary) for k in kernels]
    assert all(size > 300 for _, size in brute)  # the brute force itself is reliable
    theirs = normalised(np.array([log_evidence for log_evidence, _ in brute]))
    np.testing.assert_allclose(ours, theirs, atol=0.03)
    for kernel, (log_evidence, _) in zip(kernels, brute, strict=True):
        user = -scorer.user_nll(-log_evidence, y.size)  # the units the weighing reports
        assert weighed[kernel.to_text()][0].log_evidence == pytest.approx(user, abs=0.15)
