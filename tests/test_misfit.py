"""The check of new points against a model: one-step errors, the mixture's PIT, the rule."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import norm

from abcd_cli.data.scaling import Scaling
from abcd_cli.engines.exact_posterior import ExactPosterior
from abcd_cli.kernels.text import parse_kernel
from abcd_cli.misfit import MAX_CHECKED, Misfit, check_new_points, one_step_errors, one_step_pit
from abcd_cli.model import Model

KERNEL = "SE(lengthscale=0.4, sd=1.0) + WN(sd=0.3)"


def _model(prior_mean: str) -> tuple[Model, np.ndarray, np.ndarray]:
    """A fixed model of 30 points, and 6 new points to check (out of order, some among the
    old ones)."""
    rng = np.random.default_rng(4)
    x = np.sort(rng.uniform(0.0, 5.0, 36))
    y = 3.0 + np.sin(2.0 * x) + 0.3 * rng.standard_normal(36)
    old = np.arange(30)
    new = np.array([33, 30, 12, 35, 31, 5])
    scaling = Scaling.from_data(x[old], y[old], centre_y=prior_mean != "zero")
    model = Model(
        parse_kernel(KERNEL), scaling, x[old], y[old], 0.0, constant_mean=prior_mean == "constant"
    )
    return model, x[new], y[new]


@pytest.mark.parametrize("prior_mean", ["data", "zero", "constant"])
def test_one_step_errors_are_those_of_conditioning_point_by_point(prior_mean: str) -> None:
    """z_j and log p(y_j | the old data and the new points before j), one exact posterior per
    point, the level (with prior mean "constant") integrated out again each time."""
    model, x_new, y_new = _model(prior_mean)
    z, log_density = one_step_errors(model, x_new, y_new)
    sc = model.scaling
    for j in range(x_new.size):
        X = np.concatenate([model.x, x_new[:j]])
        y = np.concatenate([model.y, y_new[:j]])
        post = ExactPosterior(model.kernel, sc.x_in(X)[:, None], sc.y_in(y), model.constant_mean)
        mean, var = post.predict(sc.x_in(x_new[j : j + 1])[:, None])
        expected = (sc.y_in(y_new[j]) - mean[0]) / np.sqrt(var[0])
        assert z[j] == pytest.approx(expected, abs=1e-9)
        density = norm.logpdf(expected) - 0.5 * np.log(var[0]) - np.log(sc.y_scale)
        assert log_density[j] == pytest.approx(density, abs=1e-9)


def test_the_pit_of_one_model_and_of_a_mixture_of_copies() -> None:
    model, x_new, y_new = _model("data")
    z, log_density = one_step_errors(model, x_new, y_new)
    u, lpd = one_step_pit([model], np.ones(1), x_new, y_new)
    assert u == pytest.approx(norm.cdf(z)) and lpd == pytest.approx(log_density)
    u2, lpd2 = one_step_pit([model, model], np.array([0.3, 0.7]), x_new, y_new)
    assert u2 == pytest.approx(u) and lpd2 == pytest.approx(lpd)


def test_a_mixture_learns_which_model_predicts_the_new_points() -> None:
    """Of two models, the one that predicted the earlier new points weighs more for the later
    ones: the mixture's one-step density ends up the better model's."""
    model, x_new, y_new = _model("data")
    wrong = Model(
        parse_kernel("SE(lengthscale=0.4, sd=1.0) + WN(sd=0.03)"),
        model.scaling,
        model.x,
        model.y,
        0.0,
    )
    _, good = one_step_pit([model], np.ones(1), x_new, y_new)
    _, bad = one_step_pit([wrong], np.ones(1), x_new, y_new)
    _, mixed = one_step_pit([model, wrong], np.array([0.5, 0.5]), x_new, y_new)
    assert good.sum() > bad.sum()
    assert mixed[0] == pytest.approx(np.logaddexp(good[0], bad[0]) - np.log(2.0))
    assert abs(mixed[-1] - good[-1]) < abs(mixed[0] - good[0])


def test_shifted_points_are_outside_the_band_and_at_most_max_checked_are_checked() -> None:
    model, x_new, y_new = _model("data")
    assert check_new_points([model], np.ones(1), x_new, y_new).outside <= 1
    shifted = check_new_points([model], np.ones(1), x_new, y_new + 10.0)
    assert (shifted.checked, shifted.outside, shifted.poor) == (6, 6, True)
    many = np.linspace(5.0, 9.0, MAX_CHECKED + 7)
    assert check_new_points([model], np.ones(1), many, np.sin(many)).checked == MAX_CHECKED


@pytest.mark.parametrize(
    "checked, outside, poor",
    [
        (20, 1, False),  # 5%: as expected
        (20, 3, False),  # 15%, but 3 of 20 happens by chance (P ≈ 0.075)
        (20, 5, True),  # 25%, P ≈ 0.003
        (1000, 70, False),  # P ≈ 0.003, but 7% is not clearly worse than 5%
        (1000, 120, True),
        (2, 2, True),  # P = 0.0025
        (1, 1, False),  # P = 0.05
    ],
)
def test_the_rule_needs_a_large_share_that_is_not_chance(
    checked: int, outside: int, poor: bool
) -> None:
    assert Misfit(checked, outside, 0.0).poor is poor
