"""The sparse engine "skc": its bounds sandwich the exact likelihood, tighten as m grows and are
exact at m = N; the lower bound's gradient; no N×N matrix on its path; its posterior at m = N
is the exact one; cost, refusal and registry."""

from __future__ import annotations

import pickle
import tracemalloc

import numpy as np
import pytest

from abcd_cli.engines import get_engine
from abcd_cli.engines.base import FAILED_NLL, Engine
from abcd_cli.engines.exact import ExactEngine, negative_log_likelihood
from abcd_cli.engines.sparse import SparseEngine
from abcd_cli.errors import InputError
from abcd_cli.kernels.algebra import sum_of_products
from abcd_cli.kernels.text import parse_kernel
from tests.sampling import gp_draw

RNG = np.random.default_rng(314)
N = 150
X = np.sort(RNG.uniform(0.0, 10.0, N))[:, None]
TRUTH = parse_kernel(
    "SE(lengthscale=3.0, sd=1.0) + Per(lengthscale=1.0, period=2.0, sd=0.7)"
    " + Lin(sd=0.1, location=5.0) * WN(sd=1.0) + WN(sd=0.2)"
)
Y = 0.8 + gp_draw(TRUTH.gram(X), RNG)
XS = np.linspace(-1.0, 12.0, 17)[:, None]

KERNELS = {
    "SE": "SE(lengthscale=1.5, sd=1.0) + WN(sd=0.3)",
    "RQ": "RQ(lengthscale=1.0, sd=1.2, alpha=0.8) + WN(sd=0.3)",
    "Per": "Per(lengthscale=1.2, period=2.0, sd=0.8) + WN(sd=0.4)",
    "Cos": "Cos(period=2.0, sd=0.8) + WN(sd=0.5)",
    "Lin": "Lin(sd=0.3, location=4.0) + WN(sd=0.5)",
    "C": "C(sd=1.0) + WN(sd=0.6)",
    "sum": "SE(lengthscale=3.0, sd=1.0) + Per(lengthscale=1.0, period=2.0, sd=0.7) + WN(sd=0.25)",
    "product": "SE(lengthscale=4.0, sd=1.0) * Per(lengthscale=1.0, period=2.0, sd=0.7)"
    " + Lin(sd=0.2, location=3.0) + WN(sd=0.3)",
    "noise-product": "SE(lengthscale=2.0, sd=1.0) + Lin(sd=0.1, location=5.0) * WN(sd=1.0)"
    " + WN(sd=0.2)",
    "CP": "CP(SE(lengthscale=2.0, sd=1.0), Per(lengthscale=1.0, period=2.0, sd=0.6),"
    " location=5.0, steepness=0.5) + WN(sd=0.3)",
    "CW": "CW(Lin(sd=0.3, location=2.0), SE(lengthscale=1.0, sd=0.8), location=6.0,"
    " width=2.0, steepness=0.3) + WN(sd=0.3)",
}


def _kernel(name):
    return parse_kernel(KERNELS[name])


def _exact_log_p(kernel, constant_mean):
    return -negative_log_likelihood(kernel, X, Y, constant_mean)


@pytest.mark.parametrize("constant_mean", [False, True])
@pytest.mark.parametrize("name", list(KERNELS))
def test_the_bounds_sandwich_the_exact_likelihood(name, constant_mean):
    kernel = _kernel(name)
    engine = SparseEngine(m=12, seed=3)
    exact = _exact_log_p(kernel, constant_mean)
    lb = engine.lower_bound(kernel, X, Y, constant_mean)
    ub = engine.upper_bound(kernel, X, Y, constant_mean)
    cheap = engine.cheap_upper_bound(kernel, X, Y, constant_mean)
    assert ub.converged
    rounding = 1e-10 * abs(exact)  # C + WN and Cos + WN: Q = K, the bounds touch
    assert lb <= exact + rounding and exact <= ub.value + rounding and ub.value <= cheap + rounding
    # the PCG quadratic is within its certificate of the exact one (Cos + WN: Q = K, to rounding)
    slack = ub.logdet - _exact_logdet(kernel, constant_mean) + ub.certificate
    assert ub.value - exact <= slack + 1e-9
    # the score is the same interval, in -log p
    bounds = engine.score(kernel, X, Y, constant_mean)
    assert bounds.low == pytest.approx(-ub.value, rel=1e-12)
    # its high end is the tighter of the objective's bound and CGLB through the same PCG vector
    cglb = SparseEngine(m=12, seed=3, bound="cglb").lower_bound(kernel, X, Y, constant_mean)
    assert bounds.high == pytest.approx(min(-lb, -cglb), rel=1e-9)
    assert -exact <= bounds.high + rounding
    assert bounds.products == ub.products > 0  # what the search's trace adds up


def _exact_logdet(kernel, constant_mean):
    """-½ log|K| (- ½ log 1ᵀK⁻¹1) of the exact model."""
    K = kernel.gram(X)
    value = -0.5 * np.linalg.slogdet(K)[1]
    if constant_mean:
        value -= 0.5 * np.log(np.sum(np.linalg.solve(K, np.ones(N))))
    return value


@pytest.mark.parametrize("constant_mean", [False, True])
def test_the_bounds_close_in_as_m_grows_and_meet_at_m_equal_n(constant_mean):
    kernel = _kernel("product")
    exact = _exact_log_p(kernel, constant_mean)
    gaps = []
    for m in (5, 20, 60):
        engine = SparseEngine(m=m)
        gaps.append(exact - engine.lower_bound(kernel, X, Y, constant_mean))
    assert gaps[0] > gaps[1] > gaps[2] > 0
    full = SparseEngine(m=N, jitter=1e-10)
    assert full.lower_bound(kernel, X, Y, constant_mean) == pytest.approx(exact, abs=1e-5)
    assert full.upper_bound(kernel, X, Y, constant_mean).value == pytest.approx(exact, abs=1e-5)
    assert full.cheap_upper_bound(kernel, X, Y, constant_mean) == pytest.approx(exact, abs=1e-4)
    np.testing.assert_array_equal(full.inducing(X), np.arange(N))  # Z = X


@pytest.mark.parametrize("constant_mean", [False, True])
@pytest.mark.parametrize("name", ["product", "noise-product", "CP", "CW", "Per"])
def test_the_titsias_bound_gradient_matches_finite_differences(name, constant_mean):
    """At a jitter of 1e-6 rounding stays below 1e-6 relative, and the formula shows; at the
    default the rounding of K_zz⁻¹ on nearly coincident inducing inputs reaches ~1e-4."""
    kernel = _kernel(name)
    titsias = {"bound": "titsias"}
    _check_gradient(kernel, SparseEngine(m=15, seed=1, jitter=1e-6, **titsias), constant_mean, 1e-5)
    _check_gradient(kernel, SparseEngine(m=15, seed=1, **titsias), constant_mean, 1e-3)


def _check_gradient(kernel, engine, constant_mean, rtol):
    theta = kernel.theta()
    value, grad = engine.objective(theta, kernel, X, Y, constant_mean)
    assert value == pytest.approx(engine.objective_value(kernel, X, Y, constant_mean), rel=1e-12)
    h = 1e-5
    numeric = np.empty_like(theta)
    for i in range(theta.size):
        e = np.zeros_like(theta)
        e[i] = h
        up = engine.objective(theta + e, kernel, X, Y, constant_mean)[0]
        down = engine.objective(theta - e, kernel, X, Y, constant_mean)[0]
        numeric[i] = (up - down) / (2 * h)
    np.testing.assert_allclose(grad, numeric, rtol=rtol, atol=rtol)


def test_the_gradient_is_the_same_in_row_blocks(monkeypatch):
    """Many row blocks agree with one, whether each block's reverse-mode caches are kept from
    the forward pass or the kernel is evaluated again (gram forward, vjp backward)."""
    import abcd_cli.engines.nystrom as nystrom
    import abcd_cli.engines.sparse_bound as sparse_bound

    kernel = _kernel("CW")
    engine = SparseEngine(m=15, jitter=1e-6, bound="titsias")
    theta = kernel.theta()
    one = engine.objective(theta, kernel, X, Y, True)
    monkeypatch.setattr(nystrom, "BLOCK_ELEMENTS", 15 * 17)  # blocks of 17 rows
    assert len(nystrom.row_blocks(X.shape[0], 15)) > 2
    kept = engine.objective(theta, kernel, X, Y, True)
    monkeypatch.setattr(sparse_bound, "KEEP_ELEMENTS", 0)
    again = engine.objective(theta, kernel, X, Y, True)
    for many in (kept, again):
        assert many[0] == pytest.approx(one[0], rel=1e-12)
        np.testing.assert_allclose(many[1], one[1], rtol=1e-9, atol=1e-10)


def test_no_n_by_n_matrix_is_formed():
    """At N = 20,000 an N×N matrix is 3.2 GB; the bound, its gradient, the cheap upper bound
    and the posterior's predictions stay within tens of MB (memory, not time: the suite runs on
    loaded machines; the engines' times are benchmarks/engines')."""
    rng = np.random.default_rng(8)
    n = 20_000
    x = np.sort(rng.uniform(0.0, 100.0, n))[:, None]
    y = np.sin(x[:, 0]) + 0.3 * rng.standard_normal(n)
    kernel = parse_kernel(
        "SE(lengthscale=5.0, sd=1.0) * Per(lengthscale=1.0, period=6.3, sd=1.0) + WN(sd=0.3)"
    )
    engine = SparseEngine(m=50)
    tracemalloc.start()
    value, grad = engine.objective(kernel.theta(), kernel, x, y, True)
    cheap = engine.cheap_upper_bound(kernel, x, y, True)
    post = engine.posterior(kernel, x, y, True)
    mean, var = post.predict(np.linspace(0.0, 110.0, 200))
    errors = post.standardised_errors()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert value < FAILED_NLL and np.all(np.isfinite(grad)) and -value <= cheap
    assert np.all(np.isfinite(mean)) and np.all(var > 0) and errors.shape == (n,)
    assert peak < 150 * 2**20, peak


@pytest.mark.parametrize("constant_mean", [False, True])
def test_the_posterior_at_m_equal_n_is_the_exact_one(constant_mean):
    kernel = _kernel("noise-product")
    exact = ExactEngine().posterior(kernel, X, Y, constant_mean)
    sparse = SparseEngine(m=N, jitter=1e-10).posterior(kernel, X, Y, constant_mean)
    assert sparse.level == pytest.approx(exact.level, abs=1e-6)
    assert sparse.level_sd == pytest.approx(exact.level_sd, rel=1e-5)
    np.testing.assert_allclose(sparse.residual, exact.residual, atol=1e-6)
    for part in [*sum_of_products(kernel), kernel]:
        np.testing.assert_allclose(sparse.mean(part, XS), exact.mean(part, XS), atol=1e-6)
        np.testing.assert_allclose(sparse.mean(part), exact.mean(part), atol=1e-6)
        for Xs in (XS, None):
            m_s, v_s = sparse.component(part, Xs)
            m_e, v_e = exact.component(part, Xs)
            np.testing.assert_allclose(m_s, m_e, atol=1e-6)
            np.testing.assert_allclose(v_s, v_e, atol=1e-6)
    a, b = sum_of_products(kernel)[:2]
    np.testing.assert_allclose(sparse.covariance(a, b, XS), exact.covariance(a, b, XS), atol=1e-6)
    np.testing.assert_allclose(sparse.covariance(a, Xs=XS), exact.covariance(a, Xs=XS), atol=1e-6)
    with pytest.raises(NotImplementedError):
        sparse.covariance(a)
    for noise in (False, True):  # f alone, and y with the noise at the new inputs once
        mean_s, var_s = sparse.predict(XS, noise=noise)
        mean_e, var_e = exact.predict(XS, noise=noise)
        np.testing.assert_allclose(mean_s, mean_e, atol=1e-6)
        np.testing.assert_allclose(var_s, var_e, atol=1e-6)
    np.testing.assert_allclose(sparse.standardised_errors(), exact.standardised_errors(), atol=1e-5)
    train = np.arange(0, N, 3)
    part = sum_of_products(kernel)[0]
    np.testing.assert_allclose(
        sparse.given(train).mean(part, XS), exact.given(train).mean(part, XS), atol=1e-4
    )


def test_the_posterior_with_few_inducing_inputs_is_close_and_consistent():
    kernel = _kernel("sum")
    post = SparseEngine(m=40).posterior(kernel, X, Y, True)
    exact = ExactEngine().posterior(kernel, X, Y, True)
    mean, _ = post.predict(XS[2:-2])
    mean_e, _ = exact.predict(XS[2:-2])
    assert np.max(np.abs(mean - mean_e)) < 0.05
    parts = sum_of_products(kernel)
    total_mean = sum(post.mean(p, XS) for p in parts)
    np.testing.assert_allclose(total_mean, post.mean(kernel, XS), atol=1e-10)
    np.testing.assert_allclose(sum(post.mean(p) for p in parts), post.residual, atol=1e-8)
    e, e_exact = post.standardised_errors(), exact.standardised_errors()
    assert np.max(np.abs(e - e_exact)) < 0.01


def test_a_kernel_without_noise_fails_as_a_value():
    kernel = parse_kernel("SE(lengthscale=1.0, sd=1.0)")
    engine = SparseEngine(m=10)
    value, grad = engine.objective(kernel.theta(), kernel, X, Y)
    assert value == FAILED_NLL and np.all(grad == 0.0)
    assert engine.score(kernel, X, Y).high == FAILED_NLL


def test_registry_pickling_and_the_inducing_inputs():
    engine = get_engine("skc", m=30, seed=4)
    assert isinstance(engine, SparseEngine) and isinstance(engine, Engine)
    assert pickle.loads(pickle.dumps(engine)) == engine
    idx = engine.inducing(X)
    assert idx.size == 30 and np.unique(idx).size == 30
    np.testing.assert_array_equal(idx, engine.inducing(X))  # fixed for a search
    # one per block of N/m consecutive points in x order
    np.testing.assert_array_equal(np.arange(N)[idx] // 5, np.arange(30))
    assert not np.array_equal(idx, SparseEngine(m=30, seed=5).inducing(X))
    with pytest.raises(ValueError):
        SparseEngine(m=0)


def test_cost_and_refusal():
    engine = SparseEngine(m=200)
    small, large = engine.cost(10_000), engine.cost(100_000)
    assert large.seconds == pytest.approx(10 * small.seconds, rel=0.05)
    assert large.bytes < 2**30
    engine.check_size(100_000, 1000.0)
    with pytest.raises(InputError, match=r"^3000000 points with 200 inducing inputs are too many"):
        engine.check_size(3_000_000, 1000.0)


def test_the_pcg_upper_bound_works_in_row_blocks(monkeypatch):
    """Products with K + D in blocks of 21 rows: at N = 3,000 the memory stays far below one
    N×N matrix (72 MB), and the bound is the one made in bigger blocks."""
    import abcd_cli.engines.sparse_upper as sparse_upper

    rng = np.random.default_rng(9)
    n = 3000
    x = np.sort(rng.uniform(0.0, 30.0, n))[:, None]
    y = np.sin(x[:, 0]) + 0.3 * rng.standard_normal(n)
    kernel = parse_kernel("SE(lengthscale=2.0, sd=1.0) + WN(sd=0.3)")
    engine = SparseEngine(m=40)
    big = engine.upper_bound(kernel, x, y, True)
    monkeypatch.setattr(sparse_upper, "SQUARE_BLOCK_ELEMENTS", 2**16)
    tracemalloc.start()
    small = engine.upper_bound(kernel, x, y, True)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 8 * n * n / 4, peak
    assert small.converged and small.value == pytest.approx(big.value, abs=1e-6)


def test_pcg_solves_and_its_certificate_bounds_the_gap():
    """On a random SPD C with a diagonal preconditioner M ⪯ C: the solution, and
    ½ rᵀC⁻¹r ≤ the certificate ½ rᵀM⁻¹r ≤ tol for the true residual; a budget too small
    stops it unconverged."""
    from abcd_cli.engines.pcg import pcg

    rng = np.random.default_rng(2)
    G = rng.standard_normal((60, 60))
    d = rng.uniform(0.5, 1.5, 60)
    C = G @ G.T / 60 + np.diag(d)
    rhs = rng.standard_normal((60, 2))
    sol = pcg(lambda V: C @ V, lambda R: R / d[:, None], rhs, 1e-16, 500)
    assert sol.converged
    np.testing.assert_allclose(sol.alpha, np.linalg.solve(C, rhs), rtol=1e-5, atol=1e-6)
    r = rhs - C @ sol.alpha
    np.testing.assert_allclose(sol.residual, r, atol=1e-12)
    gap = 0.5 * np.sum(r * np.linalg.solve(C, r), axis=0)
    assert np.all(gap <= sol.certificate) and np.all(sol.certificate <= 1e-16)
    early = pcg(lambda V: C @ V, lambda R: R / d[:, None], rhs, 1e-8, 3)
    assert not early.converged and early.products <= 4


def test_a_candidate_fits_through_the_sparse_engine():
    """The search's candidate fit runs unchanged on the sparse engine: its interval holds the
    exact -log p(y) at the parameters it found."""
    from abcd_cli.data.summary import DataSummary
    from abcd_cli.kernel_search.candidate import FitTask, fit_candidate

    s = DataSummary.from_data(X[:, 0], Y)
    task = FitTask(parse_kernel("SE + WN"), X, Y, s, s, 2, 1, 30, (0,), engine=SparseEngine(m=20))
    found = fit_candidate(task)
    assert found.status == "ok", found
    exact = negative_log_likelihood(found.kernel, X, Y)
    rounding = 1e-10 * abs(exact)  # a fit whose smooth part vanished: the bounds touch exact
    assert found.bounds.low <= exact + rounding and exact <= found.bounds.high + rounding
    assert found.bounds.high == found.nll


def test_inputs_of_two_dimensions():
    rng = np.random.default_rng(12)
    x2 = np.column_stack([X[:, 0], rng.uniform(-1.0, 1.0, N)])
    kernel = parse_kernel(
        "SE(lengthscale=2.0, sd=1.0) + SE@1(lengthscale=0.5, sd=0.5) + WN(sd=0.3)"
    )
    engine = SparseEngine(m=25)
    exact = -negative_log_likelihood(kernel, x2, Y)
    assert engine.lower_bound(kernel, x2, Y) <= exact <= engine.upper_bound(kernel, x2, Y).value
    theta = kernel.theta()
    _, grad = engine.objective(theta, kernel, x2, Y)
    e = np.zeros_like(theta)
    e[2] = 1e-5
    numeric = (
        engine.objective(theta + e, kernel, x2, Y)[0]
        - engine.objective(theta - e, kernel, x2, Y)[0]
    ) / 2e-5
    assert grad[2] == pytest.approx(numeric, rel=1e-5)


def _hourly_grid(rng: np.random.Generator, n: int, gap: bool) -> np.ndarray:
    """n points of the complete grid 0.5 + 0.1 k in random order; with ``gap``, one left out."""
    k = np.arange(n + gap)
    if gap:
        k = np.delete(k, n // 2)
    return (0.5 + 0.1 * rng.permutation(k))[:, None]


@pytest.mark.parametrize("constant_mean", [False, True])
def test_a_stationary_kernel_on_a_complete_grid_is_scored_by_its_exact_value(constant_mean):
    rng = np.random.default_rng(65)
    X = _hourly_grid(rng, 400, gap=False)
    kernel = parse_kernel(
        "SE(lengthscale=1.5, sd=1.0) * Per(lengthscale=1.0, period=2.0, sd=0.8) + WN(sd=0.1)"
    )
    y = 2.0 + gp_draw(kernel.gram(X), rng)
    engine = SparseEngine(m=20)
    exact = negative_log_likelihood(kernel, X, y, constant_mean)
    for bounds in (
        engine.score(kernel, X, y, constant_mean),
        engine.likelihood_interval(kernel, X, y, constant_mean),
    ):
        assert bounds.width == 0 and bounds.products == 0
        assert bounds.high == pytest.approx(exact, rel=1e-10)


@pytest.mark.parametrize(
    ("text", "gap"),
    [
        ("SE(lengthscale=1.5, sd=1.0) * Lin(sd=0.3, location=20.0) + WN(sd=0.1)", False),
        (
            "CP(SE(lengthscale=1.5, sd=1.0), C(sd=0.5), location=20.0, steepness=1.0) + WN(sd=0.1)",
            False,
        ),
        (
            "SE(lengthscale=1.5, sd=1.0) * Per(lengthscale=1.0, period=2.0, sd=0.8) + WN(sd=0.1)",
            True,
        ),
    ],
)
def test_a_kernel_that_is_not_stationary_or_a_grid_with_a_gap_keeps_the_bounds(text, gap):
    rng = np.random.default_rng(66)
    X = _hourly_grid(rng, 400, gap)
    kernel = parse_kernel(text)
    y = gp_draw(kernel.gram(X), rng)
    bounds = SparseEngine(m=20).score(kernel, X, y, True)
    exact = negative_log_likelihood(kernel, X, y, True)
    assert bounds.products > 0 and bounds.width > 1e-3
    assert bounds.low - 1e-6 <= exact <= bounds.high + 1e-6
