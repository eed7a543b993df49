"""Products with K by FFT on a regular grid of inputs (``engines.grid``) against the dense
noise-free Gram, and the upper bound made with them against the one made in row blocks."""

from __future__ import annotations

import numpy as np
import pytest

from abcd_cli.engines.grid import grid_matvec, grid_plan, grid_positions
from abcd_cli.engines.sparse import SparseEngine
from abcd_cli.kernels.algebra import factor_lists
from abcd_cli.kernels.text import parse_kernel

KERNELS = [
    "SE(lengthscale=1.5, sd=1.0) + WN(sd=0.3)",
    "RQ(lengthscale=1.0, sd=1.2, alpha=0.8) * Cos(period=2.0, sd=0.8) + C(sd=0.5)",
    "(Lin(sd=0.3, location=4.0) + WN(sd=0.5)) * Per(lengthscale=1.2, period=2.0, sd=0.8)",
    "(C(sd=1.0) + SE(lengthscale=3.0, sd=0.5) * Lin(sd=0.2, location=1.0)) * (Lin(sd=0.1, location=6.0)"
    " * WN(sd=0.2) + SE(lengthscale=5.0, sd=1.0)) * Per(lengthscale=1.0, period=2.5, sd=0.7)"
    " + Lin(sd=0.05, location=3.0)",
    "CP(SE(lengthscale=2.0, sd=1.0), Per(lengthscale=1.0, period=2.0, sd=0.6), location=5.0,"
    " steepness=0.5) + WN(sd=0.3)",
    "CW(Lin(sd=0.3, location=2.0), SE(lengthscale=1.0, sd=0.8) + C(sd=0.4), location=6.0,"
    " width=2.0, steepness=0.3) * SE(lengthscale=8.0, sd=1.0) + WN(sd=0.3)",
]


def _grid_inputs(rng: np.random.Generator, n: int, gaps: bool, repeats: bool) -> np.ndarray:
    """n points on the grid 0.37 + 0.1 k, shuffled, with gaps or repeated points if asked."""
    k = np.arange(n + n // 3 if gaps else n)
    if gaps:
        k = np.sort(rng.choice(k, n, replace=False))
    if repeats:
        k[1::7] = k[:-1:7]
    return (0.37 + 0.1 * rng.permutation(k))[:, None]


@pytest.mark.parametrize("text", KERNELS)
@pytest.mark.parametrize(("gaps", "repeats"), [(False, False), (True, False), (True, True)])
def test_grid_products_are_the_dense_noise_free_gram(text: str, gaps: bool, repeats: bool):
    rng = np.random.default_rng(len(text))
    X = _grid_inputs(rng, 300, gaps, repeats)
    kernel = parse_kernel(text)
    matvec = grid_matvec(kernel, X)
    assert matvec is not None
    K = kernel.gram(X, X.copy())  # a distinct copy: no white noise
    V = rng.standard_normal((X.shape[0], 2))
    scale = np.abs(K).sum(axis=1).max() * np.abs(V).max()
    np.testing.assert_allclose(matvec(V), K @ V, rtol=0, atol=1e-12 * scale)
    np.testing.assert_allclose(matvec(V[:, 0]), K @ V[:, 0], rtol=0, atol=1e-12 * scale)


#: Kernels whose products share modulators, with how many noise-free products they hold (one FFT
#: term each before merging) and how many FFT terms they take merged (one per modulator set).
SHARED_MODULATORS = [
    # the hourly temperatures' chosen structure: 16 products under one gate (and WN under the other)
    (
        "(C(sd=1.0) + Per(lengthscale=1.0, period=1.0, sd=0.8) * SE(lengthscale=4.0, sd=1.0))"
        " * (C(sd=0.5) + Per(lengthscale=2.0, period=1.0, sd=0.5) * SE(lengthscale=9.0, sd=1.0))"
        " * CW((C(sd=2.0) + SE(lengthscale=6.0, sd=1.0)) * (Per(lengthscale=0.8, period=1.0,"
        " sd=0.6) * SE(lengthscale=3.0, sd=1.0) + SE(lengthscale=0.7, sd=0.5)), WN(sd=0.5),"
        " location=15.0, width=10.0, steepness=4.0)",
        16,
        1,
    ),
    # two gates (the two sides of one changepoint), three products each, and a plain term
    (
        "CP(SE(lengthscale=2.0, sd=1.0) + Per(lengthscale=1.0, period=2.0, sd=0.6)"
        " + C(sd=0.3), (SE(lengthscale=5.0, sd=1.0) + C(sd=0.4)) * Cos(period=3.0, sd=1.0)"
        " + RQ(lengthscale=1.0, sd=0.5, alpha=2.0), location=12.0, steepness=2.0)"
        " + SE(lengthscale=20.0, sd=0.3)",
        6 + 1,
        2 + 1,
    ),
    # Lin modulators: the same Lin in three products, Lin² in two, another Lin in one, under a
    # window that also gates one of them
    (
        "Lin(sd=0.3, location=4.0) * (SE(lengthscale=3.0, sd=1.0) + C(sd=0.5)"
        " + Per(lengthscale=1.0, period=2.0, sd=0.4)) + Lin(sd=0.3, location=4.0)"
        " * Lin(sd=0.3, location=4.0) * (C(sd=1.0) + SE(lengthscale=8.0, sd=0.5))"
        " + Lin(sd=0.1, location=20.0) * SE(lengthscale=2.0, sd=1.0)"
        " + CW(C(sd=0.2), Lin(sd=0.3, location=4.0) * SE(lengthscale=1.0, sd=1.0),"
        " location=10.0, width=6.0, steepness=1.0) + WN(sd=0.2)",
        3 + 2 + 1 + 1 + 1,
        1 + 1 + 1 + 1 + 1,
    ),
]


@pytest.mark.parametrize(("text", "products", "merged"), SHARED_MODULATORS)
@pytest.mark.parametrize(("gaps", "repeats"), [(False, False), (True, False), (True, True)])
def test_products_sharing_a_modulator_are_one_fft_term(
    text: str, products: int, merged: int, gaps: bool, repeats: bool
):
    """Merged by modulator, K·v is the dense Gram's (relative 1e-10 of |K|·|v|), with one FFT
    term per modulator set instead of one per product."""
    rng = np.random.default_rng(len(text) + 2 * gaps + repeats)
    X = 3.0 * _grid_inputs(rng, 300, gaps, repeats)  # x from about 1 to 40: both sides switch
    kernel = parse_kernel(text)
    plan = grid_plan(kernel, X)
    assert plan is not None and len(plan.terms) == merged
    noise_free = [f for f in factor_lists(kernel) if not any(factor.is_noise for factor in f)]
    assert len(noise_free) == products
    K = kernel.gram(X, X.copy())
    V = rng.standard_normal((X.shape[0], 3))
    scale = np.abs(K).sum(axis=1).max() * np.abs(V).max()
    np.testing.assert_allclose(plan.matvec(V), K @ V, rtol=0, atol=1e-10 * scale)


def test_modulators_that_differ_in_a_parameter_are_not_merged():
    """Gates of two windows one parameter apart, and Lins one location apart, stay apart."""
    X = (0.5 * np.arange(200.0))[:, None]
    twins = parse_kernel(
        "CW(C(sd=1.0), SE(lengthscale=2.0, sd=1.0), location=50.0, width=20.0, steepness=3.0)"
        " + CW(C(sd=1.0), SE(lengthscale=2.0, sd=1.0), location=50.0, width=20.0,"
        " steepness=3.5) + Lin(sd=0.2, location=1.0) * SE(lengthscale=4.0, sd=1.0)"
        " + Lin(sd=0.2, location=1.5) * SE(lengthscale=4.0, sd=1.0)"
    )
    plan = grid_plan(twins, X)
    assert plan is not None and len(plan.terms) == 6
    K = twins.gram(X, X.copy())
    v = np.random.default_rng(5).standard_normal(X.shape[0])
    np.testing.assert_allclose(plan.matvec(v), K @ v, rtol=0, atol=1e-10 * np.abs(K).sum(1).max())


def test_what_is_not_on_a_grid_is_left_to_the_row_blocks():
    rng = np.random.default_rng(3)
    kernel = parse_kernel("SE(lengthscale=1.5, sd=1.0) + WN(sd=0.3)")
    uneven = np.sort(rng.uniform(0.0, 10.0, 200))[:, None]
    assert grid_positions(uneven[:, 0]) is None and grid_matvec(kernel, uneven) is None
    sparse = np.array([0.0, 0.1, 0.2, 50.0])  # a grid of 501 points for 4 observations
    assert grid_positions(sparse) is None
    two_inputs = np.column_stack([np.arange(50.0), np.arange(50.0) % 7])
    assert grid_matvec(parse_kernel("SE(lengthscale=1.5, sd=1.0)"), two_inputs) is None
    k, x0, h = grid_positions(np.array([2.0, 1.5, 3.0 + 1e-12, 1.0]))
    assert x0 == 1.0 and h == pytest.approx(0.5, abs=1e-12) and k.tolist() == [2, 1, 4, 0]


def test_hourly_dates_over_years_are_on_a_grid():
    """10⁵ hours as decimal years near 2015 (the date axis): each difference is rounded by
    ~4·10⁻⁹ of a step, which the smallest one, taken as the step, adds up over the span."""
    hours = np.arange(100_000)
    x = 2000.0 + (5483.0 + hours / 24.0) / 365.2425
    found = grid_positions(x)
    assert found is not None
    k, x0, h = found
    assert k.tolist() == hours.tolist() and h == pytest.approx(1 / 24 / 365.2425, rel=1e-9)
    # every other pair of hours (the refinement's subset): a grid with gaps, 10 points per point
    pairs = np.unique(np.concatenate([np.arange(0, 100_000 - 1, 20), np.arange(1, 100_000, 20)]))
    assert grid_positions(x[pairs]) is not None


@pytest.mark.parametrize("constant_mean", [False, True])
def test_the_upper_bound_by_fft_is_the_one_made_in_row_blocks(monkeypatch, constant_mean):
    """At N = 2,000 on an hourly-like grid with 10% of the points removed the bound by FFT is
    the row blocks' one, and it lies above the lower bound."""
    import abcd_cli.engines.sparse_upper as sparse_upper

    rng = np.random.default_rng(11)
    x = _grid_inputs(rng, 2000, gaps=True, repeats=False)[:, 0] / 10.0
    X = np.sort(x)[:, None]
    assert grid_positions(X[:, 0]) is not None and X.shape[0] >= sparse_upper.GRID_FROM
    y = np.sin(2 * np.pi * X[:, 0]) + 0.02 * X[:, 0] + 0.3 * rng.standard_normal(X.shape[0])
    kernel = parse_kernel(
        "SE(lengthscale=5.0, sd=1.0) * Per(lengthscale=1.0, period=1.0, sd=0.8)"
        " + Lin(sd=0.05, location=10.0) + WN(sd=0.3)"
    )
    engine = SparseEngine(m=60)
    by_fft = engine.upper_bound(kernel, X, y, constant_mean)
    monkeypatch.setattr(sparse_upper, "GRID_FROM", 10**9)
    by_blocks = engine.upper_bound(kernel, X, y, constant_mean)
    assert by_fft.converged and by_blocks.converged
    assert by_fft.value == pytest.approx(by_blocks.value, abs=1e-6)
    assert by_fft.value >= engine.lower_bound(kernel, X, y, constant_mean)


def test_the_products_benchmark_measures_both_ways_and_they_agree():
    from benchmarks.engines import bench_grid_products as bench

    row = bench.measure(1500, rows=True, repeats=1)
    assert row["rows"] > 0 and row["fft"] > 0 and row["diff"] < 1e-10
    assert bench.measure(1500, rows=False, repeats=1)["rows"] is None
