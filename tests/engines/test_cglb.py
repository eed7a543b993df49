"""CGLB (``engines/cglb.py``): below the exact log-likelihood and above the Titsias bound, its
gradient with the CG vector held fixed against finite differences, the warm start, and the
score's high end through the upper bound's own PCG vector."""

from __future__ import annotations

import numpy as np
import pytest

from abcd_cli.engines.cglb import CGLBSettings, _grad_from, cg_vector
from abcd_cli.engines.nystrom import Fit, data_columns, factor_inducing, whitened_pass
from abcd_cli.engines.sparse import SparseEngine
from abcd_cli.engines.sparse_upper import solve_with_nystrom
from tests.engines.test_sparse import KERNELS, X, Y, _exact_log_p, _kernel

JITTER = 1e-6
Z = X[::10]


@pytest.mark.parametrize("constant_mean", [False, True])
@pytest.mark.parametrize("name", list(KERNELS))
def test_cglb_is_below_the_exact_likelihood_and_above_the_titsias_bound(name, constant_mean):
    kernel = _kernel(name)
    exact = _exact_log_p(kernel, constant_mean)
    cglb = SparseEngine(m=12, seed=3, bound="cglb").lower_bound(kernel, X, Y, constant_mean)
    titsias = SparseEngine(m=12, seed=3).lower_bound(kernel, X, Y, constant_mean)
    rounding = 1e-10 * abs(exact)  # C + WN, Cos + WN, Lin + WN: Q = K, all bounds touch
    assert titsias <= cglb + rounding and cglb <= exact + rounding


def test_cglb_is_much_tighter_where_the_nystrom_quadratic_is_poor():
    kernel = _kernel("product")
    exact = _exact_log_p(kernel, True)
    cglb = SparseEngine(m=12, seed=3, bound="cglb").lower_bound(kernel, X, Y, True)
    titsias = SparseEngine(m=12, seed=3).lower_bound(kernel, X, Y, True)
    assert exact - cglb < 0.7 * (exact - titsias)


def _fixed_v(kernel, constant_mean, raw_alpha):
    """A solve whose v is the one of ``raw_alpha`` (no CG step: one product for r)."""
    return solve_with_nystrom(kernel, X, Y, Z, constant_mean, JITTER, 1e-10, 1, raw_alpha)


@pytest.mark.parametrize("constant_mean", [False, True])
@pytest.mark.parametrize("name", ["product", "noise-product", "CP", "CW", "Per", "SE"])
def test_the_gradient_with_v_fixed_matches_finite_differences(name, constant_mean):
    """At a v that is not the CG solution (0.9 times it), so that the terms in v do not cancel."""
    kernel = _kernel(name)
    theta = kernel.theta()
    solved = solve_with_nystrom(kernel, X, Y, Z, constant_mean, JITTER, 1e-10, 500)
    sol = _fixed_v(kernel, constant_mean, 0.9 * solved.raw_alpha)
    value, grad = _grad_from(kernel, sol, X, Y, Z, constant_mean, JITTER)

    def at(t):
        k = kernel.with_theta(t)
        return _grad_from(
            k, _fixed_v(k, constant_mean, sol.raw_alpha), X, Y, Z, constant_mean, JITTER
        )[0]

    assert at(theta) == pytest.approx(value, rel=1e-12)
    h = 1e-6
    numeric = np.array(
        [(at(theta + h * e) - at(theta - h * e)) / (2 * h) for e in np.eye(theta.size)]
    )
    np.testing.assert_allclose(grad, numeric, rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("constant_mean", [False, True])
def test_the_engine_objective_is_the_bound_and_its_gradient_near_the_cg_solution(constant_mean):
    """The engine's objective (CG to a tight certificate) against finite differences of the
    bound: v is re-solved at each point, and the bound is stationary in v at the solution."""
    kernel = _kernel("CW")
    engine = SparseEngine(m=15, seed=1, jitter=JITTER, pcg_tol=1e-10, bound="cglb")
    theta = kernel.theta()
    value, grad = engine.objective(theta, kernel, X, Y, constant_mean)
    assert value == pytest.approx(engine.objective_value(kernel, X, Y, constant_mean), rel=1e-9)
    h = 1e-5

    def at(t):
        return engine.objective_value(kernel.with_theta(t), X, Y, constant_mean)

    numeric = np.array(
        [(at(theta + h * e) - at(theta - h * e)) / (2 * h) for e in np.eye(theta.size)]
    )
    np.testing.assert_allclose(grad, numeric, rtol=1e-4, atol=1e-4)


def test_the_cg_is_warm_started_from_the_last_vector_of_the_same_kernel():
    kernel = _kernel("product")
    settings = CGLBSettings(JITTER, 1e-6, 200)
    first = cg_vector(kernel, X, Y, Z, True, settings, warm_from=kernel)
    again = cg_vector(kernel, X, Y, Z, True, settings, warm_from=kernel)
    cold = cg_vector(kernel, X, Y, Z, True, settings)
    assert first.products > 2 and cold.products == first.products
    assert again.products <= 1  # only the residual of the kept vector
    np.testing.assert_allclose(again.v, first.v)
    other = _kernel("product")  # an equal kernel, another object: no warm start
    assert cg_vector(kernel, X, Y, Z, True, settings, warm_from=other).products == first.products


def test_the_score_takes_cglb_through_the_upper_bounds_vector():
    kernel = _kernel("product")
    engine = SparseEngine(m=12, seed=3)
    score = engine.score(kernel, X, Y, True)
    titsias = -engine.lower_bound(kernel, X, Y, True)
    cglb = -SparseEngine(m=12, seed=3, bound="cglb").lower_bound(kernel, X, Y, True)
    assert score.high == pytest.approx(cglb, rel=1e-9) and score.high < titsias - 1.0
    assert score.low <= -_exact_log_p(kernel, True) <= score.high


def test_a_constant_mean_whose_level_is_zero_is_solved():
    """κ = 0 (the GLS level under Q + D) once let the ones column stop at α₁ = 0."""
    kernel = _kernel("product")
    engine = SparseEngine(m=12, seed=3)
    Ze = X[engine.inducing(X)]
    factor = factor_inducing(kernel.gram(Ze, Ze.copy()), engine.jitter)
    _, d = kernel.diag_parts(X)
    w = whitened_pass(kernel, X, Ze, factor, d, data_columns(Y, True))
    y = Y - Fit.from_gram(w.gram_inverse()).beta  # its level under Q + D is 0
    upper = engine.upper_bound(kernel, X, y, True)
    assert upper.converged and upper.value >= _exact_log_p_of(kernel, y)


def _exact_log_p_of(kernel, y):
    from abcd_cli.engines.exact import negative_log_likelihood

    return -negative_log_likelihood(kernel, X, y, True)
