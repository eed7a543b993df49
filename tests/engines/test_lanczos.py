"""The block-Lanczos interval on the log-determinant the Nyström preconditioner leaves
(``engines/lanczos.py``): its operator and trace against dense matrices, and its ends around
the dense log|M| at every number of steps."""

from __future__ import annotations

import numpy as np
import pytest

from abcd_cli.engines.lanczos import PreconditionedResidual, residual_logdet_interval
from abcd_cli.engines.nystrom import data_columns, factor_inducing, whitened_pass
from abcd_cli.engines.sparse_upper import kernel_matvec
from abcd_cli.kernels.text import parse_kernel
from tests.engines.test_sparse import KERNELS, X, Y

Z = X[::15]


def _residual(kernel):
    c, d = kernel.diag_parts(X)
    factor = factor_inducing(kernel.gram(Z, Z.copy()), 1e-8)
    w = whitened_pass(kernel, X, Z, factor, d, data_columns(Y, False), keep_A=True)
    return PreconditionedResidual(kernel_matvec(kernel, X, d), w, c, d), w, d


def _dense(kernel, w, d):
    """(log|M| = log|K̂| - log|P|, tr(P⁻¹(K - Q))) from N×N matrices."""
    K_hat = kernel.gram(X)
    Q = (w.A.T * np.sqrt(d)[:, None]) @ (w.A * np.sqrt(d)[None, :])
    P = Q + np.diag(d)
    logdet_m = np.linalg.slogdet(K_hat)[1] - np.linalg.slogdet(P)[1]
    return logdet_m, float(np.trace(np.linalg.solve(P, K_hat - np.diag(d) - Q)))


@pytest.mark.parametrize("name", ["product", "CP", "CW", "RQ", "noise-product"])
def test_the_operator_and_the_trace_are_the_dense_ones(name):
    kernel = parse_kernel(KERNELS[name])
    op, w, d = _residual(kernel)
    logdet_m, tau = _dense(kernel, w, d)
    assert op.trace() == pytest.approx(tau, rel=1e-8, abs=1e-8)
    M = op.apply(np.eye(X.shape[0]))
    np.testing.assert_allclose(M, M.T, atol=1e-8)
    assert np.linalg.slogdet(M)[1] == pytest.approx(logdet_m, abs=1e-7)
    assert np.linalg.eigvalsh(0.5 * (M + M.T)).min() >= 1.0 - 1e-8  # M = I + E, E ⪰ 0


@pytest.mark.parametrize(
    "text",
    [
        KERNELS["product"],
        KERNELS["CP"],
        # near noise-free: a large residual spectrum
        "SE(lengthscale=4.0, sd=1.0) * Per(lengthscale=1.0, period=2.0, sd=0.7) + WN(sd=0.01)",
    ],
)
def test_the_ends_hold_the_dense_value_at_every_number_of_steps(text):
    kernel = parse_kernel(text)
    op, w, d = _residual(kernel)
    logdet_m, _ = _dense(kernel, w, d)
    widths = []
    for steps in (4, 16, 48, 96, X.shape[0]):
        interval = residual_logdet_interval(op, width=0.0, max_steps=steps, block=4)
        assert interval.steps == min(steps, X.shape[0])
        margin = 1e-8 * max(1.0, abs(logdet_m))
        assert interval.low - margin <= logdet_m <= interval.high + margin
        widths.append(interval.width)
    assert widths[0] > 0 and widths[-1] == pytest.approx(0.0, abs=1e-6)
    assert all(a >= b - 1e-9 for a, b in zip(widths, widths[1:], strict=False))


def test_it_stops_at_the_target_width():
    kernel = parse_kernel(KERNELS["product"])
    op, _, _ = _residual(kernel)
    interval = residual_logdet_interval(op, width=0.5, max_steps=400, block=4)
    assert interval.width < 0.5 and interval.steps < X.shape[0]
    fewer = residual_logdet_interval(op, width=0.5, max_steps=interval.steps - 4, block=4)
    assert fewer.width >= 0.5


def test_the_trace_keeps_its_precision_when_q_is_close_to_k():
    """Large smooth terms over small noise: Q ≈ K and σ² ~ 10⁶, where tr(B⁻¹(AK̃Aᵀ - (AAᵀ)²))
    subtracts numbers of size σ⁴ ~ 10¹² (5·10⁻⁵ off); the trace agrees with M's own diagonal
    and is not below it (its rounding allowance)."""
    kernel = parse_kernel("C(sd=30.0) + SE(lengthscale=8.0, sd=20.0) + WN(sd=0.1)")
    op, _, _ = _residual(kernel)
    direct = float(np.trace(op.apply(np.eye(X.shape[0])))) - X.shape[0]
    assert op.sigma2.max() > 1e5
    assert direct - 1e-10 <= op.trace() <= direct + 1e-6
