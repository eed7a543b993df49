"""The sampler's proposal for new parameters (kernel_search/smc_proposal.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from abcd_cli.data.summary import InputSummaries
from abcd_cli.kernel_search.evidence import ParameterPrior
from abcd_cli.kernel_search.smc_proposal import ParameterProposal, data_normals
from abcd_cli.kernels import CP, SE, Lin, Per, Sum


def _cycle(n: int = 60) -> tuple[np.ndarray, np.ndarray, InputSummaries]:
    rng = np.random.default_rng(0)
    X = np.linspace(-1.7, 1.7, n)[:, None]
    y = np.sin(2 * np.pi * X[:, 0] / 0.8) + rng.normal(0, 0.1, n)
    return X, y, InputSummaries.from_data(X, y)


def test_new_periods_come_near_the_strongest_periodogram_peak() -> None:
    """With data share ½ and the strongest peak half the data's part, about a quarter of the
    drawn periods lie within 10% of the cycle's 0.8 (the prior alone puts 7% there)."""
    _, _, summary = _cycle()
    proposal = ParameterProposal(summary, summary)
    rng = np.random.default_rng(1)
    periods = [proposal.draw(Per(), rng).values()[1] for _ in range(2000)]
    near = np.mean([abs(p / 0.8 - 1) < 0.1 for p in periods])
    prior = ParameterPrior.of(Per(), summary)
    prior_periods = np.exp(prior.centre[1] + prior.sd[1] * rng.standard_normal(2000))
    assert 0.2 < near < 0.35 and np.mean(np.abs(prior_periods / 0.8 - 1) < 0.1) < 0.1


@pytest.mark.parametrize("kernel", [Per(), Sum((SE(), Lin())), CP(SE(), Per())])
def test_the_density_is_the_one_drawn_from(kernel) -> None:
    """E_q[p(θ)/q(θ)] = 1 over all new coordinates, and q integrates to 1 along each one (so the
    density in the Hastings ratio is the density the draws come from)."""
    _, _, summary = _cycle()
    proposal = ParameterProposal(summary, summary)
    rng = np.random.default_rng(2)
    new = np.ones(kernel.theta().size, dtype=bool)
    ratios = [math.exp(proposal.log_weight(proposal.draw(kernel, rng), new)) for _ in range(2000)]
    assert abs(np.mean(ratios) - 1.0) < 4 * np.std(ratios) / math.sqrt(len(ratios))
    prior = ParameterPrior.of(kernel, summary)
    theta = prior.centre.copy()
    for i in range(theta.size):
        grid = prior.centre[i] + prior.sd[i] * np.linspace(-8, 8, 4001)
        only = np.arange(theta.size) == i
        q = []
        for value in grid:
            theta[i] = value
            z = (value - prior.centre[i]) / prior.sd[i]
            log_p = -0.5 * z * z - math.log(prior.sd[i] * math.sqrt(2 * math.pi))
            q.append(math.exp(log_p - proposal.log_weight(kernel.with_theta(theta), only)))
        assert np.trapezoid(q, grid) == pytest.approx(1.0, abs=1e-3)
        theta[i] = prior.centre[i]


def test_a_coordinate_without_data_reading_is_proposed_from_its_prior() -> None:
    """The periodic smoothness has no data component: p/q = 1 for any value."""
    _, _, summary = _cycle()
    spec, dim = Per().param_specs()[0]
    assert spec.name == "lengthscale" and data_normals(spec, summary, dim) == []
    proposal = ParameterProposal(summary, summary)
    only_first = np.array([True, False, False])
    assert proposal.log_weight(Per((3.0, 0.8, 1.0)), only_first) == 0.0
    with pytest.raises(ValueError, match="share"):
        ParameterProposal(summary, summary, data_share=1.0)


def test_rows_whose_input_does_not_vary_yet_give_the_prior() -> None:
    """Three rows at one x (a table's input in the first rows): no data component (no log of a
    zero range)."""
    flat = InputSummaries.from_data(np.ones((3, 1)), np.array([1.0, 2.0, 3.0]))
    for spec, dim in CP(SE(), Lin()).param_specs():
        assert data_normals(spec, flat, dim) == []
