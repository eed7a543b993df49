"""The state-space forms: their covariance against the kernels', state sizes, refusals, and
the dynamics' transitions."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.linalg import expm

from abcd_cli.engines.statespace.discretise import NO_MOVE, steps
from abcd_cli.engines.statespace.dynamics import Kronecker, LinearSDE, Oscillator, batched_expm
from abcd_cli.engines.statespace.forms import NoStateSpaceForm, Orders, state_space_form
from abcd_cli.engines.statespace.periodic import bessel_weights, dropped_weight, harmonics
from abcd_cli.engines.statespace.smooth import se_block, unit_se
from abcd_cli.kernels import Additive
from abcd_cli.kernels.text import parse_kernel


def _form_gram(text: str, x: np.ndarray, orders: Orders | None = None) -> np.ndarray:
    """K(x, x) of a form, without its white noise: w_i hᵀ expm(F|Δ|) P∞ h w_j."""
    form = state_space_form(parse_kernel(text), orders)
    cols, H = form.observation(x)
    W = np.zeros((x.size, form.size))
    W[:, cols] = np.broadcast_to(H, (x.size, cols.size))
    F, P = form.dynamics.drift(), form.dynamics.stationary()
    covariance = {}  # Cov(s(x + lag), s(x)) = expm(F lag) P∞, once per lag
    K = np.empty((x.size, x.size))
    for i in range(x.size):
        for j in range(i + 1):
            lag = x[i] - x[j]
            if lag not in covariance:
                covariance[lag] = expm(F * lag) @ P
            K[i, j] = K[j, i] = W[i] @ covariance[lag] @ W[j]
    return K


@pytest.mark.parametrize(
    ("text", "tolerance"),
    [
        ("Lin(sd=0.5, location=1.0) * Cos(period=1.5, sd=1.0) + C(sd=0.3)", 1e-12),
        (
            "CW(Cos(period=1.0, sd=1.0) * Cos(period=0.4, sd=1.0), Lin(sd=0.3, location=0.0),"
            " location=1.5, width=1.0, steepness=0.2)",
            1e-12,
        ),
        ("Per(lengthscale=0.8, period=0.9, sd=1.2)", 1e-10),  # the dropped weight
        (
            "SE(lengthscale=0.6, sd=1.0) * SE(lengthscale=0.9, sd=0.5)"
            " * Per(lengthscale=1.5, period=1.0, sd=1.0)",
            1e-6,  # the SE's order-22 Taylor form
        ),
    ],
)
def test_the_form_covariance_is_the_kernel(text, tolerance):
    x = np.linspace(0.0, 3.0, 9)
    k = parse_kernel(text)
    expected = k.gram(x, x.copy())
    assert np.allclose(
        _form_gram(text, x), expected, rtol=0, atol=tolerance * np.abs(expected).max()
    )


def test_products_merge_se_factors_and_fold_constants_and_modulators():
    form = state_space_form(
        parse_kernel(
            "C(sd=2.0) * SE(lengthscale=1.0, sd=1.0) * Lin(sd=1.0, location=0.0) * SE(lengthscale=2.0, sd=1.0)"
            " + Cos(period=1.0, sd=1.0) * SE(lengthscale=1.0, sd=1.0) + WN(sd=0.1)"
        ),
        Orders(se=5),
    )
    assert [t.dynamics.size for t in form.terms] == [5, 10]
    assert form.size == 15


def test_per_weights_are_the_bessel_series_without_its_dc_term():
    ell, period = 0.7, 1.3
    q = bessel_weights(ell)
    assert q.sum() == pytest.approx(1.0, abs=1e-14)
    tau = np.linspace(0.0, 2.0, 9)
    series = np.cos(np.outer(tau, np.arange(1, q.size + 1)) * 2 * np.pi / period) @ q
    k = parse_kernel(f"Per(lengthscale={ell}, period={period}, sd=1.0)")
    assert np.allclose(series, k.gram(tau, np.zeros(1))[:, 0], atol=1e-13)
    assert dropped_weight(ell, harmonics(ell, 1e-6)) <= 1e-6
    assert harmonics(100.0, 1e-3) == 1  # nearly the cosine kernel


def test_se_form_has_the_kernels_variance_and_shape():
    block, h = se_block(0.5, 2.0, 22)
    assert h @ block.stationary() @ h == pytest.approx(2.0, rel=1e-12)
    lags = np.linspace(0.0, 2.0, 11)
    values = [h @ expm(block.drift() * t) @ block.stationary() @ h for t in lags]
    assert np.allclose(values, 2.0 * np.exp(-(lags**2) / (2 * 0.5**2)), atol=1e-4)
    F, P, _ = unit_se(22)
    assert np.max(np.linalg.eigvals(F).real) < 0  # stable
    assert np.allclose(P, np.eye(22))  # whitened


def test_transitions_keep_the_stationary_covariance():
    block, _ = se_block(0.3, 1.0, 8)
    dyn = Kronecker((Oscillator(2.0, 0.5), block))
    deltas = np.array([1e-6, 0.01, 0.7, 30.0])
    A, Q = dyn.transitions(deltas)
    P = dyn.stationary()
    for a, q, t in zip(A, Q, deltas, strict=True):
        assert np.allclose(a, expm(dyn.drift() * t), atol=1e-12)
        assert np.allclose(a @ P @ a.T + q, P, atol=1e-12)
    assert np.all(Oscillator(2.0, 0.5).transitions(deltas)[1] == 0.0)  # exactly no noise


def test_batched_matrix_exponential_matches_scipy():
    F = LinearSDE(*unit_se(12)[:2]).drift()
    deltas = np.array([0.0, 1e-9, 0.2, 3.0, 500.0])
    for a, t in zip(batched_expm(F, deltas), deltas, strict=True):
        assert np.allclose(a, expm(F * t), atol=1e-13)


@pytest.mark.parametrize(
    ("kernel", "words"),
    [
        (parse_kernel("SE@1(lengthscale=1.0, sd=1.0)"), "one input"),
        (parse_kernel("Per(lengthscale=0.05, period=1.0, sd=1.0)"), "harmonics"),
        (Additive.from_text({"R": 1.0}, [("SE", 0, {}), ("SE", 1, {})]), "no state-space form"),
    ],
)
def test_kernels_without_a_form_are_refused(kernel, words):
    if not kernel.is_fitted:
        kernel = kernel.with_values(np.ones(kernel.n_params))
    with pytest.raises(NoStateSpaceForm, match=words):
        state_space_form(kernel)


def test_steps_share_one_transition_on_a_regular_grid_and_skip_repeats():
    x = np.array([3.0, 0.1, 0.2, 0.2, 0.30000000000000004, 0.4, 1.0])
    st = steps(x)
    assert list(st.order) == [1, 2, 3, 4, 5, 6, 0]
    assert list(st.step) == [NO_MOVE, 0, NO_MOVE, 0, 0, 1, 2]
    assert st.deltas == pytest.approx([0.1, 0.6, 2.0])
