"""The wider evaluation interface: the O(N) diagonal, the rectangular cross-covariance with its
reverse-mode gradient (checked against finite differences), and kernels on a second input
dimension."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from abcd_cli.kernels import CP, CW, RQ, SE, WN, C, Cos, Inputs, Lin, Per
from abcd_cli.kernels.algebra import sum_of_products
from abcd_cli.kernels.combinations import total
from tests.kernels.test_base_kernels import KERNELS, X

# Every operator, CP and CW included, and the gates of the sum-of-products form.
GATED = [total(sum_of_products(k)) for k in KERNELS if "CP" in k.structure or "CW" in k.structure]
ALL = KERNELS + GATED

# Z overlaps X in part: three of X's points and four others.
Z = np.concatenate([X[[0, 7, 19]], [-2.5, 0.33, 1.7, 3.2]])


@pytest.mark.parametrize("kernel", ALL, ids=lambda k: k.structure)
def test_diag_is_the_diagonal_of_the_gram_matrix(kernel):
    np.testing.assert_array_equal(kernel.diag(X), np.diag(kernel.gram(X)))


def test_diag_is_linear_in_the_number_of_points():
    # A million points: an N x N matrix (8 TB) or a loop of 1 x 1 matrices would not finish.
    x = np.linspace(-2.0, 3.0, 1_000_000)
    kernel = KERNELS[-1]  # Lin × CW(Per, C) + WN
    d = kernel.diag(x)
    assert d.shape == (x.size,)
    some = np.arange(0, x.size, 99_991)
    np.testing.assert_array_equal(d[some], np.diag(kernel.gram(x[some])))


def _scalar_objective(kernel, theta, G):
    return float(np.sum(G * kernel.with_theta(theta).gram(X, Z)))


@pytest.mark.parametrize("kernel", ALL, ids=lambda k: k.structure)
def test_cross_covariance_gradient_matches_finite_differences(kernel):
    rng = np.random.default_rng(17)
    G = rng.normal(size=(X.size, Z.size))
    K, contract = kernel.vjp(X, Z)
    np.testing.assert_allclose(K, kernel.gram(X, Z), rtol=1e-13, atol=1e-15)
    grad = contract(G)
    theta, h = kernel.theta(), 1e-6
    numeric = np.empty_like(theta)
    for i in range(theta.size):
        e = np.zeros_like(theta)
        e[i] = h
        numeric[i] = (
            _scalar_objective(kernel, theta + e, G) - _scalar_objective(kernel, theta - e, G)
        ) / (2 * h)
    scale = max(np.abs(numeric).max(), 1e-3)
    np.testing.assert_allclose(grad, numeric, rtol=1e-5, atol=1e-6 * scale)


@pytest.mark.parametrize("kernel", ALL, ids=lambda k: k.structure)
def test_cross_reverse_mode_matches_forward_mode_contraction(kernel):
    """Σ G ∘ dK/dθ from the forward-mode derivatives of ``_eval`` on the same rectangle."""
    G = np.random.default_rng(5).normal(size=(X.size, Z.size))
    _, dK = kernel._eval(Inputs(X, Z), grad=True)
    expected = [float(np.vdot(G, d)) for d in dK]
    np.testing.assert_allclose(kernel.vjp(X, Z)[1](G), expected, rtol=1e-10, atol=1e-10)


def test_white_noise_has_no_cross_covariance():
    wn = WN((0.7,))
    K, contract = wn.vjp(X, Z)
    assert K.shape == (X.size, Z.size) and not K.any()  # even where Z repeats a point of X
    np.testing.assert_array_equal(contract(np.ones_like(K)), [0.0])
    # the symmetric path keeps the noise on the diagonal
    K_train, contract_train = wn.vjp(X)
    np.testing.assert_allclose(K_train, 0.49 * np.eye(X.size), rtol=1e-15)
    np.testing.assert_allclose(contract_train(np.eye(X.size)), [2 * 0.49 * X.size])


def test_cross_path_at_z_equal_x_agrees_with_the_symmetric_path():
    """Without white noise K(X, X) is the same either way, and so is the gradient: the change
    operators' two reverse modes (symmetric and rectangular) agree."""
    kernel = SE((0.9, 1.0)) * CP(C((1.0,)), Lin((1.0, 0.0)) * C((0.5,)), (1.0, 0.5))
    kernel = kernel + CW(Per((1.0, 1.0, 1.0)), C((0.7,)), (0.0, 2.0, 0.4))
    G = np.random.default_rng(2).normal(size=(X.size, X.size))
    G = G + G.T
    K, contract = kernel.vjp(X)
    K_rect, contract_rect = kernel.vjp(X, X)
    np.testing.assert_allclose(K, K_rect, rtol=1e-14, atol=1e-14)
    np.testing.assert_allclose(contract(G), contract_rect(G), rtol=1e-10, atol=1e-10)


# ------------------------------------------------------------------------------------------
# A second input dimension
# ------------------------------------------------------------------------------------------

ON_DIM_1 = [
    WN((0.3,), dim=1),
    C((1.2,), dim=1),
    Lin((0.7, 0.4), dim=1),
    SE((0.8, 1.3), dim=1),
    RQ((0.6, 1.1, 0.7), dim=1),
    Per((1.1, 1.7, 0.9), dim=1),
    Cos((0.8, 1.2), dim=1),
    CP(SE((0.8, 1.3), dim=1), Lin((0.7, 0.4), dim=1), (0.5, 0.3), dim=1),
    CW(Per((1.1, 1.7, 0.9), dim=1), C((0.7,), dim=1), (0.0, 2.0, 0.4), dim=1),
]


def _on_dim_0(kernel):
    """The same kernel on input dimension 0."""
    ops = [_on_dim_0(k) for k in kernel.operands]
    node = replace(kernel, dim=0) if hasattr(kernel, "dim") else kernel
    return node.with_operands(ops) if ops else node


@pytest.mark.parametrize("kernel", ON_DIM_1, ids=lambda k: k.to_text(params=False))
def test_a_kernel_on_dimension_1_uses_that_column(kernel):
    rng = np.random.default_rng(3)
    X2 = np.column_stack([rng.normal(size=X.size) * 100.0, X])  # column 0 must be ignored
    Z2 = np.column_stack([rng.normal(size=Z.size) * 100.0, Z])
    plain = _on_dim_0(kernel)
    np.testing.assert_array_equal(kernel.gram(X2), plain.gram(X))
    np.testing.assert_array_equal(kernel.gram(X2, Z2), plain.gram(X, Z))
    np.testing.assert_array_equal(kernel.diag(X2), plain.diag(X))
    G = rng.normal(size=(X.size, X.size))
    G = G + G.T
    np.testing.assert_array_equal(kernel.vjp(X2)[1](G), plain.vjp(X)[1](G))
    H = rng.normal(size=(X.size, Z.size))
    np.testing.assert_array_equal(kernel.vjp(X2, Z2)[1](H), plain.vjp(X, Z)[1](H))
