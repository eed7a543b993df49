"""The diagonal split into its noise-free and white-noise parts (``Kernel.diag_vjp``): the parts
against the Gram matrices, their reverse-mode gradient against finite differences, and the cost
linear in N."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pytest

from abcd_cli.engines.exact_posterior import noise_variance
from abcd_cli.kernels import BASE_KERNELS, SE, WN, BaseKernel, Inputs, Lin
from abcd_cli.kernels.params import LENGTHSCALE, SD, Param, Role
from abcd_cli.kernels.text import parse_kernel
from tests.kernels.test_base_kernels import X
from tests.kernels.test_evaluation import ALL

NOISY = [
    parse_kernel("Lin(sd=0.7, location=0.4) * WN(sd=0.3) + SE(lengthscale=0.8, sd=1.3)"),
    parse_kernel(
        "CW(SE(lengthscale=2.0, sd=1.0), WN(sd=0.7) * SE(lengthscale=3.0, sd=2.0),"
        " location=0.5, width=1.5, steepness=0.3)"
    ),
    parse_kernel(
        "(SE(lengthscale=0.5, sd=1.0) + WN(sd=0.2)) * (Lin(sd=0.3, location=-1.0) + C(sd=0.5))"
        " * Per(lengthscale=1.0, period=1.3, sd=0.8)"
    ),
]
KERNELS = ALL + NOISY


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.structure)
def test_the_parts_are_the_cross_diagonal_and_the_noise(kernel):
    c, n = kernel.diag_parts(X)
    np.testing.assert_allclose(c, np.diag(kernel.gram(X, X.copy())), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(n, noise_variance(kernel, X), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(c + n, kernel.diag(X), rtol=1e-12, atol=1e-14)


def test_a_tiny_noise_keeps_its_precision():
    """n is not diag - c: 1e-20 beside 1 survives."""
    k = SE((1.0, 1.0)) + WN((1e-10,)) * Lin((1.0, -5.0))
    c, n = k.diag_parts(X)
    np.testing.assert_allclose(n, 1e-20 * (X + 5.0) ** 2, rtol=1e-14)


def _fd_check(kernel, x, rng):
    gc, gn = rng.normal(size=x.size), rng.normal(size=x.size)
    _, _, back = kernel.diag_vjp(x)
    grad = back(gc, gn)
    theta, h = kernel.theta(), 1e-6
    numeric = np.empty_like(theta)
    for i in range(theta.size):
        e = np.zeros_like(theta)
        e[i] = h
        up = kernel.with_theta(theta + e).diag_parts(x)
        down = kernel.with_theta(theta - e).diag_parts(x)
        numeric[i] = (gc @ (up[0] - down[0]) + gn @ (up[1] - down[1])) / (2 * h)
    scale = max(np.abs(numeric).max(), 1e-3)
    np.testing.assert_allclose(grad, numeric, rtol=1e-5, atol=1e-7 * scale)


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.structure)
def test_the_gradient_matches_finite_differences(kernel):
    _fd_check(kernel, X, np.random.default_rng(5))


def test_the_diagonal_split_is_linear_in_the_number_of_points():
    x = np.linspace(-2.0, 3.0, 1_000_000)
    kernel = NOISY[2]
    c, n, back = kernel.diag_vjp(x)
    assert c.shape == n.shape == (x.size,)
    assert back(np.ones(x.size), np.ones(x.size)).shape == (kernel.n_params,)


def _bump_class() -> type[BaseKernel]:
    @dataclass(frozen=True)
    class Bump(BaseKernel):
        """A throwaway kernel without a ``_diag_grad`` of its own: sd² e^(-x/ℓ) e^(-x'/ℓ)."""

        symbol: ClassVar[str] = "BumpDiagTest"
        specs: ClassVar[tuple[Param, ...]] = (LENGTHSCALE, SD)
        role: ClassVar[Role] = "smooth"
        stationary: ClassVar[bool] = False

        def _eval(self, inp: Inputs, grad: bool) -> tuple[np.ndarray, list[np.ndarray]]:
            ell, sd = self.params
            a, b = np.exp(-inp.col(0) / ell), np.exp(-inp.col2(0) / ell)
            K = sd**2 * np.outer(a, b)
            if not grad:
                return K, []
            da, db = a * inp.col(0) / ell, b * inp.col2(0) / ell
            return K, [sd**2 * (np.outer(da, b) + np.outer(a, db)), 2.0 * K]

        def _diag(self, X: np.ndarray) -> np.ndarray:
            return self.params[1] ** 2 * np.exp(-2.0 * X[:, 0] / self.params[0])

    return Bump


@pytest.fixture
def bump_kernel():
    """Defines the throwaway class (which registers it), and unregisters it afterwards."""
    yield _bump_class()
    del BASE_KERNELS["BumpDiagTest"]


def test_a_kernel_without_its_own_diagonal_gradient_gets_the_default(bump_kernel):
    k = bump_kernel((1.5, 0.8)) * SE((1.0, 1.0)) + WN((0.1,))
    _fd_check(k, X, np.random.default_rng(6))
    c, n = k.diag_parts(X)
    np.testing.assert_allclose(c, np.diag(k.gram(X, X.copy())), rtol=1e-12)
    np.testing.assert_allclose(n, 0.01, rtol=1e-12)
