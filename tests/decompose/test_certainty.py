"""The posterior's findings as the report states them (decompose/certainty.py): the range of a
probability under errors in the evidence, and which finding a component shows."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from abcd_cli.decompose.certainty import Finding, component_feature, probability_range
from abcd_cli.decompose.features import features
from abcd_cli.kernels.text import parse_kernel


def _brute_force(w: np.ndarray, h: np.ndarray, nats: float) -> tuple[float, float]:
    """Every vertex s ∈ {−1, 1}ⁿ of the box: the extremes of a linear-fractional function."""
    values = []
    for signs in itertools.product((-1.0, 1.0), repeat=w.size):
        shifted = w * np.exp(nats * np.array(signs))
        values.append(float(np.sum(shifted * h) / np.sum(shifted)))
    return min(values), max(values)


@pytest.mark.parametrize("seed", range(6))
def test_the_range_is_the_extremes_over_every_shift_of_the_evidence(seed: int) -> None:
    rng = np.random.default_rng(seed)
    w = rng.dirichlet(np.ones(6))
    h = rng.choice([0.0, 0.25, 0.5, 1.0], size=6)
    low, high = probability_range(w, h, 1.0)
    assert (low, high) == pytest.approx(_brute_force(w, h, 1.0), abs=1e-12)
    p = float(np.sum(w * h))
    assert low <= p <= high


def test_no_error_in_the_evidence_gives_no_range() -> None:
    w, h = np.array([0.6, 0.4]), np.array([1.0, 0.0])
    assert probability_range(w, h, 0.0) == pytest.approx((0.6, 0.6))


def _findings(kernels: list[str], weights: list[float]) -> list[Finding]:
    found = features([parse_kernel(k) for k in kernels], weights, [(1950.0, 1960.0)])
    return [Finding(f, f.probability, f.probability) for f in found]


PER = "Per(lengthscale=1, period={}, sd=1)"
LIN = "Lin(sd=1, location=1950)"


def test_a_component_shows_the_period_group_that_holds_its_period() -> None:
    findings = _findings(
        [f"{PER.format(1.0)} + WN(sd=1)", f"{PER.format(1.01)} + WN(sd=1)", "WN(sd=1)"],
        [0.5, 0.3, 0.2],
    )
    component = parse_kernel(f"{PER.format(1.005)} * {LIN}")
    found = component_feature(component, False, findings)
    assert found is not None and found.feature.kind == "periodic"
    assert found.probability == pytest.approx(0.8)
    assert component_feature(parse_kernel(PER.format(2.0)), False, findings) is None


def test_trends_smooth_terms_and_changing_noise_are_matched_by_kind() -> None:
    findings = _findings(
        [
            f"{LIN} + {LIN} * {LIN} + SE(lengthscale=2, sd=1) + {LIN} * WN(sd=1)",
            f"{LIN} + WN(sd=1)",
        ],
        [0.7, 0.3],
    )

    def p(text: str, noise: bool = False) -> float | None:
        found = component_feature(parse_kernel(text), noise, findings)
        return None if found is None else found.probability

    assert p(LIN) == pytest.approx(1.0)
    assert p(f"{LIN} + {LIN} * {LIN}") == pytest.approx(0.7)  # a curved trend
    assert p("SE(lengthscale=2, sd=1)") == pytest.approx(0.7)
    assert p(f"{LIN} * WN(sd=1)", noise=True) == pytest.approx(0.7)
    assert p("WN(sd=1)", noise=True) is None  # noise of constant size: no finding
    assert p("C(sd=1)") is None


def test_a_findings_range_holds_its_probability_when_draws_have_their_own_weights() -> None:
    """The sampler's draws carry weights of their own (``Weighed.draw_weights``): a structure's
    share holding a finding is its draws' weight, not their count. On airline (16 particles)
    the count gave a cycle of probability 0.48 the range 0.08 to 0.31."""
    from abcd_cli.data.scaling import Scaling
    from abcd_cli.decompose.certainty import posterior_facts
    from abcd_cli.kernel_search.posterior import StructurePosterior, Weighed
    from abcd_cli.model import Model

    x = np.linspace(2000.0, 2010.0, 60)
    y = np.sin(2 * np.pi * x) + 0.1 * np.cos(7 * x)
    sc = Scaling.from_data(x, y)
    cycles = [
        sc.kernel_in(parse_kernel(f"Per(lengthscale=1.0, period={p}, sd=1.0) + WN(sd=0.1)"))
        for p in (1.0, 3.0)
    ]
    smooth = sc.kernel_in(parse_kernel("SE(lengthscale=2.0, sd=1.0) + WN(sd=0.1)"))
    theta = np.array([k.theta() for k in cycles])
    per = Weighed(cycles[0], None, -np.inf, theta, None, draw_weights=np.array([0.9, 0.1]))
    se = Weighed(smooth, None, -np.inf, smooth.theta()[None, :], None, draw_weights=np.ones(1))
    posterior = StructurePosterior([per, se], np.array([0.5, 0.5]), 2, "a grammar")
    model = Model(cycles[0], sc, x, y, 0.0)
    search = {"settings": {"method": "smc", "particles": 3, "data_steps": 2}}
    facts = posterior_facts(model, posterior, search)
    assert facts is not None
    (yearly,) = [f for f in facts.findings if f.feature.value == pytest.approx(1.0)]
    assert yearly.feature.probability == pytest.approx(0.45)
    assert yearly.low <= 0.45 <= yearly.high
