"""Base kernels and operators: values against direct formulas, gradients against finite
differences, the periodic kernel's limits, pickling and the text round trip."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
from scipy.special import i0

from abcd_cli.errors import InputError
from abcd_cli.kernels import CP, CW, RQ, SE, WN, C, Cos, Lin, Per, Product, Sum
from abcd_cli.kernels.text import parse_kernel

RNG = np.random.default_rng(20261122)
X = np.sort(RNG.uniform(-2.0, 3.0, 25))

KERNELS = [
    WN((0.3,)),
    C((1.2,)),
    Lin((0.7, 0.4)),
    SE((0.8, 1.3)),
    RQ((0.6, 1.1, 0.7)),
    Per((1.1, 1.7, 0.9)),
    Per((0.05, 0.9, 0.9)),  # very peaked
    Per((3e3, 1.3, 0.9)),  # near the cosine limit (series branch)
    SE((2.0, 1.0)) * Cos((0.8, 1.2)),
    SE((0.8, 1.3)) + Per((1.1, 1.7, 0.9)),
    SE((0.8, 1.3)) * Lin((0.7, 0.4)) * Per((2.0, 1.2, 0.5)),
    (SE((0.5, 1.0)) + WN((0.2,))) * (Lin((0.3, -1.0)) + C((0.5,))),
    CP(SE((0.8, 1.3)), Per((1.1, 1.7, 0.9)), (0.5, 0.3)),
    CW(Lin((0.7, 1.5)), SE((0.8, 1.3)), (0.3, 1.5, 0.2)),
    SE((0.9, 1.0)) * CP(C((1.0,)), WN((0.5,)) * Lin((1.0, 0.0)), (1.0, 0.5)),
    Lin((0.5, 0.1)) * CW(Per((1.0, 1.0, 1.0)), C((0.7,)), (0.0, 2.0, 0.4)) + WN((0.1,)),
]


def _random_values(kernel, rng):
    """Random natural-unit values: positives log-uniform on [0.3, 3], locations in the data."""
    pos = kernel.positive_mask()
    v = np.where(
        pos, np.exp(rng.uniform(np.log(0.3), np.log(3.0), pos.size)), rng.uniform(-1, 2, pos.size)
    )
    return kernel.with_values(v)


def _fd_relative_error(kernel, X, h=1e-6):
    theta = kernel.theta()
    K, dK = kernel.gram_grad(X)
    assert dK.shape == (theta.size, X.size, X.size)
    worst = 0.0
    for i in range(theta.size):
        e = np.zeros_like(theta)
        e[i] = h
        numeric = (kernel.with_theta(theta + e).gram(X) - kernel.with_theta(theta - e).gram(X)) / (
            2 * h
        )
        scale = max(np.abs(dK[i]).max(), 1e-3 * np.abs(K).max())
        worst = max(worst, np.abs(numeric - dK[i]).max() / scale)
    return worst


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.structure)
def test_gradient_matches_finite_differences(kernel):
    assert _fd_relative_error(kernel, X) < 1e-5


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.structure)
def test_gradient_at_random_parameters(kernel):
    rng = np.random.default_rng(7)
    for _ in range(3):
        assert _fd_relative_error(_random_values(kernel, rng), X) < 1e-5


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.structure)
def test_gram_is_symmetric_positive_semidefinite(kernel):
    K = kernel.gram(X)
    np.testing.assert_allclose(K, K.T, atol=1e-12)
    assert np.linalg.eigvalsh(K).min() > -1e-8 * np.abs(K).max()


def _loop_gram(f, X, X2):
    return np.array([[f(a, b) for b in X2] for a in X])


def test_base_kernels_match_their_formulas():
    X2 = np.array([-1.0, 0.25, 2.5])
    sd, ell, loc, p, alpha = 1.3, 0.7, 0.4, 1.9, 0.8
    cases = [
        (C((sd,)), lambda a, b: sd**2),
        (Lin((sd, loc)), lambda a, b: sd**2 * (a - loc) * (b - loc)),
        (SE((ell, sd)), lambda a, b: sd**2 * math.exp(-((a - b) ** 2) / (2 * ell**2))),
        (
            RQ((ell, sd, alpha)),
            lambda a, b: sd**2 * (1 + (a - b) ** 2 / (2 * alpha * ell**2)) ** -alpha,
        ),
        (
            Per((ell, p, sd)),
            lambda a, b: (
                sd**2
                * (math.exp(math.cos(2 * math.pi * (a - b) / p) / ell**2) - i0(1 / ell**2))
                / (math.exp(1 / ell**2) - i0(1 / ell**2))
            ),
        ),
    ]
    for kernel, f in cases:
        np.testing.assert_allclose(kernel.gram(X, X2), _loop_gram(f, X, X2), rtol=1e-10, atol=1e-12)


def test_white_noise_is_per_observation():
    x = np.array([0.0, 0.0, 1.0])  # a repeated x gets independent noise
    np.testing.assert_allclose(WN((2.0,)).gram(x), 4.0 * np.eye(3))
    np.testing.assert_allclose(WN((2.0,)).gram(x, x), np.zeros((3, 3)))


def test_changepoint_switches_between_its_operands():
    k1, k2 = SE((1.0, 1.0)), SE((1.0, 3.0))
    cp = CP(k1, k2, (0.0, 0.01))
    x = np.array([-5.0, -4.0, 4.0, 5.0])
    K = cp.gram(x)
    np.testing.assert_allclose(K[:2, :2], k1.gram(x[:2]), atol=1e-12)
    np.testing.assert_allclose(K[2:, 2:], k2.gram(x[2:]), atol=1e-12)
    np.testing.assert_allclose(K[:2, 2:], 0.0, atol=1e-12)


def test_changewindow_applies_second_operand_inside():
    k1, k2 = C((1.0,)), C((2.0,))
    cw = CW(k1, k2, (0.0, 2.0, 0.01))  # window [-1, 1]
    x = np.array([-3.0, 0.0, 3.0])
    K = cw.gram(x)
    assert K[0, 0] == pytest.approx(1.0) and K[2, 2] == pytest.approx(1.0)
    assert K[1, 1] == pytest.approx(4.0)
    assert K[0, 2] == pytest.approx(1.0) and K[0, 1] == pytest.approx(0.0, abs=1e-12)


def test_periodic_reaches_cosine_limit():
    r = np.linspace(-3, 3, 41)
    cosine = 0.81 * np.cos(2 * np.pi * r / 1.3)
    np.testing.assert_allclose(Cos((1.3, 0.9)).gram(r, np.zeros(1))[:, 0], cosine, atol=1e-14)
    for ell in (1e3, 1e5, 1e8, 1e150):
        K = Per((ell, 1.3, 0.9)).gram(r, np.zeros(1))[:, 0]
        assert np.all(np.isfinite(K))
        np.testing.assert_allclose(K, cosine, atol=5.0 / ell**2 + 1e-14)


def test_periodic_is_continuous_across_series_switch():
    r = np.linspace(-2, 2, 17)
    a = 1e-4
    below = Per(((a * (1 - 1e-9)) ** -0.5, 1.0, 1.0)).gram(r, np.zeros(1))
    above = Per(((a * (1 + 1e-9)) ** -0.5, 1.0, 1.0)).gram(r, np.zeros(1))
    np.testing.assert_allclose(below, above, atol=1e-10)


def test_periodic_small_lengthscale_does_not_overflow():
    K = Per((1e-3, 1.0, 2.0)).gram(X)
    assert np.all(np.isfinite(K))
    np.testing.assert_allclose(np.diag(K), 4.0)


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.structure)
def test_nodes_are_hashable_and_picklable(kernel):
    clone = pickle.loads(pickle.dumps(kernel))
    assert clone == kernel and hash(clone) == hash(kernel)
    assert {kernel: 1}[clone] == 1


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.structure)
def test_text_round_trip(kernel):
    assert parse_kernel(kernel.to_text()) == kernel
    structure = parse_kernel(kernel.to_text(params=False))
    assert structure.structure == kernel.structure
    assert not structure.is_fitted


def test_text_brackets_are_unambiguous():
    a, b, c = SE((1.0, 1.0)), Lin((1.0, 0.0)), Per((1.0, 1.0, 1.0))
    assert Product((Sum((a, b)), c)).structure == "(SE + Lin) * Per"
    assert Sum((Product((a, b)), c)).structure == "SE * Lin + Per"
    assert Sum((Sum((a, b)), c)).structure == "(SE + Lin) + Per"
    assert parse_kernel("(SE + Lin) * Per") == parse_kernel("(SE+Lin)×Per")


def test_parameter_vector_round_trip():
    k = KERNELS[-1]
    assert k.n_params == len(k.param_names()) == k.theta().size
    theta = RNG.normal(size=k.n_params)
    np.testing.assert_allclose(k.with_theta(theta).theta(), theta)


def test_dimension_index_is_kept():
    k = SE((1.0, 2.0), dim=1) * Lin((1.0, 0.0))
    assert k.structure == "SE@1 * Lin"
    assert parse_kernel(k.to_text()) == k
    X2 = np.column_stack([np.zeros(4), np.arange(4.0)])
    np.testing.assert_allclose(SE((1.0, 1.0), dim=1).gram(X2), SE((1.0, 1.0)).gram(X2[:, 1]))


@pytest.mark.parametrize(
    "text", ["", "SE +", "Foo", "SE(lengthscale=1)", "CP(SE)", "SE(period=1, sd=2)", "(SE", "SE)"]
)
def test_parse_errors_are_input_errors(text):
    with pytest.raises(InputError):
        parse_kernel(text)


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.structure)
def test_reverse_mode_matches_forward_mode(kernel):
    rng = np.random.default_rng(11)
    A = rng.normal(size=(X.size, X.size))
    G = A + A.T
    K, contract = kernel.vjp(X)
    K_forward, dK = kernel.gram_grad(X)
    np.testing.assert_allclose(K, K_forward, rtol=1e-12, atol=1e-14)
    expected = [float(np.vdot(G, d)) for d in dK]
    np.testing.assert_allclose(contract(G), expected, rtol=1e-9, atol=1e-9)
