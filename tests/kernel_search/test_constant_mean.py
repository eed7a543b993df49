"""A constant mean with a flat prior, integrated out (``--prior-mean constant``).

The reference is its limit: a zero-mean GP with a constant kernel of huge variance c added,
whose −log p(y) exceeds the integrated-out one by ½ log(2πc) and whose posteriors match it.
"""

from __future__ import annotations

import csv
import json
import math

import numpy as np
import pytest
from click.testing import CliRunner

from abcd_cli.cli.main import main
from abcd_cli.data.scaling import Scaling
from abcd_cli.engines.exact import negative_log_likelihood, nll_and_grad
from abcd_cli.engines.exact_posterior import ExactPosterior as Posterior
from abcd_cli.kernel_search.fit import fit
from abcd_cli.kernel_search.infer import run_search
from abcd_cli.kernel_search.settings import SearchSettings
from abcd_cli.kernels import C
from abcd_cli.kernels.algebra import sum_of_products
from abcd_cli.kernels.text import parse_kernel
from abcd_cli.model import Model
from tests.sampling import gp_draw

RNG = np.random.default_rng(11)
X = np.sort(RNG.uniform(0.0, 10.0, 50))
KERNEL = parse_kernel(
    "Lin(sd=0.3, location=2.0) * Per(lengthscale=1.5, period=2.5, sd=1.0)"
    " + SE(lengthscale=3.0, sd=0.5) + WN(sd=0.4)"
)
Y = 2.0 + gp_draw(KERNEL.gram(X), RNG)
HUGE = 1e8  # variance of the constant that stands in for the flat prior
BROAD = KERNEL + C((math.sqrt(HUGE),))


def test_likelihood_is_the_limit_of_a_broad_constant_kernel():
    limit = negative_log_likelihood(BROAD, X, Y) - 0.5 * math.log(2 * math.pi * HUGE)
    assert negative_log_likelihood(KERNEL, X, Y, True) == pytest.approx(limit, abs=1e-4)
    assert nll_and_grad(KERNEL.theta(), KERNEL, X, Y, True)[0] == pytest.approx(limit, abs=1e-4)


def test_likelihood_gradient_matches_finite_differences():
    theta = KERNEL.theta()
    _, grad = nll_and_grad(theta, KERNEL, X, Y, True)
    h = 1e-6
    for i in range(theta.size):
        e = np.zeros_like(theta)
        e[i] = h
        up = nll_and_grad(theta + e, KERNEL, X, Y, True)[0]
        down = nll_and_grad(theta - e, KERNEL, X, Y, True)[0]
        assert (up - down) / (2 * h) == pytest.approx(grad[i], rel=1e-5, abs=1e-6)


def test_the_level_of_y_does_not_matter():
    nll = negative_log_likelihood(KERNEL, X, Y, True)
    assert negative_log_likelihood(KERNEL, X, Y + 1e5, True) == pytest.approx(nll, rel=1e-9)
    # a constant kernel in a sum only repeats the integrated-out level: no gradient along it
    with_constant = KERNEL + C((1.0,))
    _, grad = nll_and_grad(with_constant.theta(), with_constant, X, Y, True)
    assert grad[-1] == pytest.approx(0.0, abs=1e-9)


def test_posteriors_are_the_limit_of_a_broad_constant_kernel():
    level = Posterior(KERNEL, X, Y, constant_mean=True)
    broad = Posterior(BROAD, X, Y)
    xs = np.linspace(-3.0, 14.0, 30)[:, None]
    for noise in (True, False):
        mean, var = level.predict(xs, noise=noise)
        b_mean, b_var = broad.predict(xs, noise=noise)
        np.testing.assert_allclose(mean, b_mean, atol=1e-6)
        np.testing.assert_allclose(var, b_var, rtol=1e-4)
    # each component's posterior, and the covariance between two, as with the broad constant
    # (whose own component is then the level)
    parts = sum_of_products(KERNEL)
    for part in parts:
        (mean, var), (b_mean, b_var) = level.component(part, xs), broad.component(part, xs)
        np.testing.assert_allclose(mean, b_mean, atol=1e-6)
        np.testing.assert_allclose(var, b_var, rtol=1e-4)
    cov = level.covariance(parts[0], parts[1], xs)
    np.testing.assert_allclose(cov, broad.covariance(parts[0], parts[1], xs), atol=1e-6)
    assert level.level == pytest.approx(float(broad.mean(BROAD.operands[-1], xs)[0]), abs=1e-6)
    np.testing.assert_allclose(level.residual, Y - level.level)


def test_fit_is_the_same_wherever_the_level_lies():
    near = fit(KERNEL, X, Y, np.random.default_rng(0), constant_mean=True)
    far = fit(KERNEL, X, Y + 1e5, np.random.default_rng(0), constant_mean=True)
    assert far.nll == pytest.approx(near.nll, abs=1e-4)  # L-BFGS-B stopping slack


def test_a_search_far_from_zero_finds_what_it_finds_near_zero():
    x = np.linspace(2000.0, 2010.0, 100)
    rng = np.random.default_rng(3)
    y = 0.3 * (x - 2000.0) + np.sin(2 * np.pi * x) + 0.2 * rng.standard_normal(x.size)
    settings = SearchSettings(depth=2, restarts=3, seed=2, prior_mean="constant")
    near = run_search(x, y, settings).model
    shift = 1e4 * float(np.std(y))  # far beyond where a zero prior mean copes
    far = run_search(x, y + shift, settings).model
    assert far.constant_mean and near.constant_mean
    assert far.kernel.structure == near.kernel.structure
    assert far.bic == pytest.approx(near.bic, abs=1e-3)
    xs = np.array([2010.5, 2012.0])
    (m_near, s_near), (m_far, s_far) = near.predict(xs), far.predict(xs)
    np.testing.assert_allclose(m_far - shift, m_near, atol=1e-3 * float(np.std(y)))
    np.testing.assert_allclose(s_far, s_near, rtol=1e-3)


def test_the_model_file_keeps_the_constant_mean():
    model = Model(KERNEL, Scaling(), X, Y, 10.0, constant_mean=True)
    back = Model.from_dict(json.loads(json.dumps(model.to_dict())))
    assert back.constant_mean
    xs = np.array([11.0, 12.0])
    np.testing.assert_allclose(back.predict(xs)[0], model.predict(xs)[0])
    older = model.to_dict()
    del older["internal"]["constant_mean"]  # files written before the option existed
    assert not Model.from_dict(older).constant_mean


def test_search_and_predict_through_the_command_line(tmp_path):
    x = np.linspace(2000.0, 2006.0, 60)
    y = 500.0 + np.sin(2 * np.pi * x) + 0.1 * np.cos(7 * x)
    data, model_path, new, out = (tmp_path / n for n in ("d.csv", "m.json", "x.csv", "p.csv"))
    data.write_text("x,y\n" + "".join(f"{a},{b}\n" for a, b in zip(x, y, strict=True)))
    args = ["search", str(data), "--depth", "1", "--restarts", "1", "--jobs", "1", "--quiet"]
    result = CliRunner().invoke(
        main, [*args, "--prior-mean", "constant", "--json", str(model_path)]
    )
    assert result.exit_code == 0, result.output
    doc = json.loads(model_path.read_text())
    assert doc["internal"]["constant_mean"] is True
    assert doc["settings"]["prior_mean"] == "constant"
    new.write_text("x\n2006.5\n2030.0\n")
    result = CliRunner().invoke(main, ["predict", str(model_path), str(new), "-o", str(out)])
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(out.open()))
    mean, sd = Model.from_dict(doc).predict(np.array([2006.5, 2030.0]))
    np.testing.assert_allclose([float(r["mean"]) for r in rows], mean, rtol=1e-9)
    np.testing.assert_allclose([float(r["sd"]) for r in rows], sd, rtol=1e-9)
