"""The state-space engine: the cheaper exact method per kernel (the filter for small states on
many points, the Cholesky otherwise), the exact engine's score and posterior, its name in the
registry and a model file, and a search that finds what the exact engine finds."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import abcd_cli
from abcd_cli.engines import get_engine
from abcd_cli.engines.exact import ExactEngine
from abcd_cli.engines.exact import nll_and_grad as dense
from abcd_cli.engines.exact_posterior import ExactPosterior
from abcd_cli.engines.statespace.engine import (
    StateSpaceEngine,
    cholesky_seconds,
    kalman_seconds,
)
from abcd_cli.engines.statespace.forms import state_space_form
from abcd_cli.errors import InputError
from abcd_cli.kernels.text import parse_kernel
from tests.sampling import gp_draw

ENGINE = get_engine("statespace")
SMALL = parse_kernel("Lin(sd=0.3, location=2.0) + SE(lengthscale=1.5, sd=1.0) + WN(sd=0.3)")
LARGE = parse_kernel(
    "Per(lengthscale=1.0, period=2.0, sd=1.0) * SE(lengthscale=3.0, sd=1.0) + WN(sd=0.2)"
)


def test_registry_and_pickling():
    assert isinstance(ENGINE, StateSpaceEngine)
    assert pickle.loads(pickle.dumps(ENGINE)) == ENGINE
    assert ENGINE.settings() == {}


def test_the_filter_is_taken_where_cheaper_and_the_cholesky_elsewhere():
    many = np.linspace(0.0, 10.0, 2000)[:, None]
    few = many[:50]
    assert ENGINE.form(SMALL, many) is not None  # d = 23 on 2,000 points
    assert ENGINE.form(SMALL, few) is None  # 50 points: the Cholesky is cheaper
    assert ENGINE.form(LARGE, many) is None  # d in the hundreds
    assert ENGINE.form(SMALL, np.column_stack([many, many])) is None  # two inputs
    sharp = parse_kernel("Per(lengthscale=0.05, period=2.0, sd=1.0) + WN(sd=0.2)")
    assert ENGINE.form(sharp, many) is None  # too many harmonics for a form
    form = state_space_form(SMALL)
    assert ENGINE.cost(2000, SMALL).seconds == kalman_seconds(form, 2000) < cholesky_seconds(2000)
    assert ENGINE.cost(2000, LARGE) == ExactEngine().cost(2000, LARGE)


@pytest.mark.parametrize("kernel", [SMALL, LARGE], ids=["filter", "cholesky"])
@pytest.mark.parametrize("constant_mean", [False, True])
def test_objective_and_score_are_the_exact_likelihood(kernel, constant_mean):
    x = np.linspace(0.0, 10.0, 1500)[:, None]
    y = 1.0 + gp_draw(kernel.gram(x), np.random.default_rng(2))
    value, grad = ENGINE.objective(kernel.theta(), kernel, x, y, constant_mean)
    exact_value, exact_grad = dense(kernel.theta(), kernel, x, y, constant_mean)
    assert value == pytest.approx(exact_value, abs=0.02)
    np.testing.assert_allclose(grad, exact_grad, atol=0.05)
    score = ENGINE.score(kernel, x, y, constant_mean)
    assert score.width == 0.0
    assert score.low == pytest.approx(ENGINE.objective_value(kernel, x, y, constant_mean))
    assert score.low == pytest.approx(value, abs=1e-8)


def test_the_posterior_is_the_exact_engines_and_long_series_are_refused():
    x = np.linspace(0.0, 10.0, 40)[:, None]
    post = ENGINE.posterior(SMALL, x, np.sin(x[:, 0]), True)
    assert isinstance(post, ExactPosterior)
    ENGINE.check_size(5000, 500.0)
    with pytest.raises(InputError, match="too many for --engine statespace yet"):
        ENGINE.check_size(20000, 500.0)


def test_a_search_with_the_engine_finds_the_exact_engines_model(tmp_path):
    """A smooth trend and a yearly cycle on 300 points: the same structure and BIC within the
    approximation's hundredths; the model file names the engine and loads again."""
    rng = np.random.default_rng(4)
    x = np.linspace(2000.0, 2025.0, 300)
    y = 0.05 * (x - 2000.0) ** 1.5 + np.sin(2 * np.pi * x) + 0.3 * rng.standard_normal(x.size)
    found = {
        engine: abcd_cli.search((x, y), depth=2, restarts=2, engine=engine, jobs=1)
        for engine in ("exact", "statespace")
    }
    ours, theirs = found["statespace"], found["exact"]
    assert ours.model.structure == theirs.model.structure
    assert ours.model.bic == pytest.approx(theirs.model.bic, abs=0.1)
    path = tmp_path / "model.json"
    ours.save(path)
    again = abcd_cli.read_model(path)
    assert again.model.engine.name == "statespace"
