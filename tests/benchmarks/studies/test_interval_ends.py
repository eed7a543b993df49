"""The interval-ends study: its dense parts give the exact engine's −log p(y), and the finalists'
interval's parts (log|Q + D|, the Lanczos interval on log|M|, the quadratic's interval) each
hold the exact part, near noise-free data with a gap and with a level or without."""

from __future__ import annotations

import numpy as np
import pytest

from abcd_cli.engines.exact import negative_log_likelihood
from abcd_cli.engines.sparse import SparseEngine
from abcd_cli.kernels.text import parse_kernel
from benchmarks.studies.interval_ends import dense_parts, interval_parts
from tests.sampling import gp_draw

KERNEL = (
    "SE(lengthscale=4.0, sd=1.0) * Per(lengthscale=1.0, period=2.0, sd=0.7)"
    " + SE(lengthscale=0.3, sd=0.3) + WN(sd=0.01)"
)


@pytest.fixture(scope="module")
def data() -> tuple[np.ndarray, np.ndarray]:
    x = np.delete(np.arange(300.0) / 12.0, np.r_[100:130])[:, None]  # a gap: off Levinson's path
    y = 0.5 + gp_draw(parse_kernel(KERNEL).gram(x), np.random.default_rng(2))
    return x, y


@pytest.mark.parametrize("constant_mean", [False, True])
def test_dense_parts_are_the_exact_engines_value(data, constant_mean):
    x, y = data
    kernel = parse_kernel(KERNEL)
    parts = dense_parts(kernel, x, y, constant_mean)
    assert parts.nll == pytest.approx(
        negative_log_likelihood(kernel, x, y, constant_mean), rel=1e-10
    )
    assert (parts.log_a != 0.0) == constant_mean


@pytest.mark.parametrize("constant_mean", [False, True])
def test_each_part_of_the_interval_holds_the_exact_part(data, constant_mean):
    x, y = data
    kernel = parse_kernel(KERNEL)
    engine = SparseEngine(m=15, seed=1)
    exact = dense_parts(kernel, x, y, constant_mean)
    found = interval_parts(engine, kernel, x, y, constant_mean)
    residual = exact.logdet - found.logdet_p  # log|M| = log|K̂| − log|Q + D| ≥ 0
    margin = 1e-8 * abs(exact.logdet)
    assert residual > 1.0  # m = 15 leaves a log-determinant to bound
    assert found.logdet.low - margin <= residual <= found.logdet.high + margin
    low, high = found.quadratic
    assert low - 1e-8 * abs(low) <= exact.quadratic <= high + 1e-8 * abs(high)
    assert found.bounds.low - 1e-9 * abs(exact.nll) <= exact.nll <= found.bounds.high
    assert found.bounds == engine.likelihood_interval(kernel, x, y, constant_mean)
