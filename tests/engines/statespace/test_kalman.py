"""The Kalman log likelihood against the dense exact engine: exactly representable kernels to
1e-8 relative, SE and Per within their stated tolerances at the default orders, benchmark
series' chosen kernels, unsorted and repeated inputs, a constant mean, failure values."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import abcd_cli
from abcd_cli.engines.base import FAILED_NLL
from abcd_cli.engines.exact import negative_log_likelihood as dense
from abcd_cli.engines.statespace.forms import NoStateSpaceForm, Orders, state_space_form
from abcd_cli.engines.statespace.kalman import (
    form_negative_log_likelihood,
    negative_log_likelihood,
)
from abcd_cli.kernels.text import parse_kernel
from tests.sampling import gp_draw

RNG = np.random.default_rng(7)
X = np.sort(RNG.uniform(0.0, 10.0, 200))

EXACT_KERNELS = [
    "C(sd=1.3) + WN(sd=0.3)",
    "Lin(sd=0.5, location=2.0) + WN(sd=0.3)",
    "Cos(period=2.0, sd=1.0) + WN(sd=0.3)",
    "C(sd=0.7) * Lin(sd=0.5, location=2.0) + Lin(sd=0.2, location=-1.0) * WN(sd=0.3) + WN(sd=0.1)",
    "Lin(sd=0.3, location=1.0) * Lin(sd=0.4, location=6.0) + C(sd=2.0) + WN(sd=0.2)",
    "CP(C(sd=1.0), Lin(sd=0.4, location=3.0), location=5.0, steepness=0.5) + WN(sd=0.2)",
    "CW(Cos(period=2.0, sd=1.0), C(sd=2.0) + WN(sd=0.5), location=5.0, width=2.0, steepness=0.3)"
    " + WN(sd=0.2)",
    "Cos(period=3.0, sd=1.0) * Cos(period=1.3, sd=0.5) * Lin(sd=0.2, location=4.0)"
    " + (C(sd=0.5) + Cos(period=0.7, sd=0.3)) * WN(sd=0.3) + WN(sd=0.05)",
    "CP(Cos(period=2.5, sd=1.0) * Lin(sd=0.3, location=0.0), C(sd=1.0) * WN(sd=0.4),"
    " location=6.0, steepness=1.0) + C(sd=0.8) + WN(sd=0.1)",
]


def _data(text: str, x: np.ndarray = X) -> tuple[object, np.ndarray]:
    k = parse_kernel(text)
    return k, gp_draw(k.gram(x), np.random.default_rng(3))


@pytest.mark.parametrize("text", EXACT_KERNELS)
@pytest.mark.parametrize("constant_mean", [False, True])
def test_exactly_representable_kernels_match_the_dense_likelihood(text, constant_mean):
    k, y = _data(text)
    y = y + 3.0  # a level away from zero
    expected = dense(k, X, y, constant_mean)
    assert negative_log_likelihood(k, X, y, constant_mean) == pytest.approx(expected, rel=1e-8)


def test_unsorted_and_repeated_inputs_match_the_dense_likelihood():
    x = np.concatenate([X[:60], X[:60], X[100:140], [X[150]] * 3])  # repeats, out of order
    x = x[np.random.default_rng(1).permutation(x.size)]
    text = "CP(Cos(period=2.0, sd=1.0), Lin(sd=0.4, location=3.0), location=5.0, steepness=0.5) + WN(sd=0.2)"
    k, y = _data(text, x)
    assert negative_log_likelihood(k, x, y) == pytest.approx(dense(k, x, y), rel=1e-8)
    se = parse_kernel("SE(lengthscale=0.8, sd=1.0) + WN(sd=0.3)")
    exact = dense(se, x, y)
    assert abs(negative_log_likelihood(se, x, y) - exact) < 0.01


def test_irregular_inputs_with_many_distinct_gaps_are_filtered_in_chunks(monkeypatch):
    import abcd_cli.engines.statespace.kalman as kalman

    text = "Lin(sd=0.3, location=1.0) * Cos(period=2.0, sd=1.0) + C(sd=1.0) + WN(sd=0.2)"
    k, y = _data(text)
    whole = negative_log_likelihood(k, X, y)
    monkeypatch.setattr(kalman, "TABLE_BYTES", 16 * 5 * 5 * 7)  # chunks of 7 points
    assert negative_log_likelihood(k, X, y) == pytest.approx(whole, rel=1e-12)
    assert whole == pytest.approx(dense(k, X, y), rel=1e-8)


# |Δ log p| at the default orders, stated in abcd_cli/engines/statespace/forms.py (Orders) and
# measured in benchmarks/studies/outputs/statespace_likelihood.md: below 0.01 nats at N = 500.
APPROXIMATE = [
    ("SE(lengthscale=0.02, sd=1.0) + WN(sd=0.03)", 0.01),
    ("SE(lengthscale=0.2, sd=1.0) + WN(sd=0.01)", 0.01),
    ("Per(lengthscale=0.5, period=0.05, sd=1.0) + WN(sd=0.03)", 0.01),
    ("Per(lengthscale=2.0, period=0.05, sd=1.0) + WN(sd=0.01)", 0.01),
    (
        "Lin(sd=1.0, location=0.2) * SE(lengthscale=0.05, sd=1.0)"
        " + Per(lengthscale=1.0, period=0.1, sd=0.5) + WN(sd=0.05)",
        0.01,
    ),  # fmt: skip
]


@pytest.mark.parametrize(("text", "tolerance"), APPROXIMATE)
def test_se_and_per_are_within_their_stated_tolerance_at_the_default_orders(text, tolerance):
    x = np.linspace(0.0, 1.0, 500)
    k, y = _data(text, x)
    assert abs(negative_log_likelihood(k, x, y) - dense(k, x, y)) < tolerance


def test_se_error_falls_with_the_order():
    x = np.linspace(0.0, 1.0, 300)
    k, y = _data("SE(lengthscale=0.03, sd=1.0) + WN(sd=0.03)", x)
    exact = dense(k, x, y)
    errors = [
        abs(negative_log_likelihood(k, x, y, orders=Orders(se=o)) - exact) for o in (6, 12, 22)
    ]
    assert errors[0] > 10 * errors[1] > 100 * errors[2]


@pytest.mark.parametrize("text", [
    "RQ(lengthscale=0.05, sd=1.0, alpha=5.0) + WN(sd=0.1)",
    "RQ(lengthscale=0.02, sd=1.0, alpha=5.0) + WN(sd=0.03)",
    "RQ(lengthscale=0.2, sd=1.0, alpha=8.0) + WN(sd=0.01)",
])  # fmt: skip
def test_rational_quadratic_is_a_mixture_of_se_blocks_within_the_tolerance(text):
    x = np.linspace(0.0, 1.0, 500)
    k, y = _data(text, x)
    assert abs(negative_log_likelihood(k, x, y) - dense(k, x, y)) < 0.01


def test_a_rational_quadratic_of_heavy_tails_is_refused():
    """Below α = 5 four SE blocks miss by more than 0.01 nats (1.3 at α = 0.3): no form."""
    with pytest.raises(NoStateSpaceForm, match="alpha"):
        state_space_form(parse_kernel("RQ(lengthscale=0.05, sd=1.0, alpha=2.0) + WN(sd=0.1)"))


#: The search benchmark's chosen models, kept in the repository.
MODELS = Path(__file__).resolve().parents[3] / "benchmarks" / "search" / "outputs" / "models"


def test_a_periodic_kernel_too_sharp_for_the_harmonics_is_refused():
    """Call-centre's chosen kernel holds a Per of lengthscale 0.11: 60 harmonics, more than
    the forms hold; the engine will fall back on another."""
    model = abcd_cli.read_model(MODELS / "07-call-centre.json").model
    with pytest.raises(NoStateSpaceForm, match="harmonics"):
        state_space_form(model.kernel)


@pytest.mark.parametrize("name", ["01-airline", "04-wheat"])
def test_benchmark_series_chosen_kernels(name):
    model = abcd_cli.read_model(MODELS / f"{name}.json").model
    x = model.scaling.x_in(model.X)
    y = model.scaling.y_in(model.y)
    exact = dense(model.kernel, x, y, model.constant_mean)
    value = negative_log_likelihood(model.kernel, x, y, model.constant_mean)
    assert abs(value - exact) < 0.05


def test_a_breakdown_is_the_failure_value():
    k = parse_kernel("C(sd=1.0)")  # no noise: the second identical value has S = 0
    x = np.array([0.0, 0.0, 1.0])
    assert negative_log_likelihood(k, x, np.array([1.0, 2.0, 0.5])) == FAILED_NLL


def test_white_noise_alone_has_independent_points():
    k = parse_kernel("WN(sd=0.5) + Lin(sd=0.1, location=0.0) * WN(sd=1.0)")
    x = np.linspace(-1.0, 1.0, 50)
    y = np.cos(x)
    form = state_space_form(k)
    assert form.dynamics is None
    assert form_negative_log_likelihood(form, x, y, True) == pytest.approx(
        dense(k, x, y, True), rel=1e-10
    )
