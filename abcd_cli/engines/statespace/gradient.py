"""The Kalman log likelihood's gradient in the kernel's parameters, by the filter's adjoint.

The filter (``kalman``) maps the form's small matrices to −log p(y): the transitions A_u and Q_u
of each distinct gap u, the stationary covariance P∞ that starts it, the observation rows h_i
and the noise variances r_i. Its reverse pass (the adjoint) gives the derivative of −log p(y)
in each of them at about three times the filter's cost, whatever the number of parameters:
going back from the last point with P̄ = ∂L/∂P and m̄ = ∂L/∂m (both zero there), one point's
step of the filter

    P⁻ = A P Aᵀ + Q,  m⁻ = A m,  v = P⁻h,  S = hᵀv + r,  e = y − hᵀm⁻,
    m = m⁻ + v eᵀ/S,  P = P⁻ − v vᵀ/S,  L += ½ log S + eᵀGe / S,

is undone as (P̄ symmetric throughout, since every P is)

    S̄ = ½/S − eᵀGe/S² + vᵀP̄v/S² − vᵀm̄e/S²,   ē = 2Ge/S + m̄ᵀv/S,
    v̄ = −2P̄v/S + m̄e/S + S̄h,   P̄⁻ = P̄ + sym(v̄hᵀ),   m̄⁻ = m̄ − h ēᵀ,
    h̄ = S̄v + P⁻v̄ − m⁻ē,   r̄ = S̄,   Q̄_u += P̄⁻,   Ā_u += 2P̄⁻AP + m̄⁻mᵀ,
    P̄ ← AᵀP̄⁻A,   m̄ ← Aᵀm̄⁻,

and P̄∞ is the P̄ left at the first point. G weighs the innovations' columns: ½ for y alone;
with a constant mean (columns y and 1, ``kalman``) it is the derivative of
½(yᵀK⁻¹y − (1ᵀK⁻¹y)²/a) + ½ log a in those three sums.

The states are kept point by point for the reverse pass, a segment of the series at a time
(``STATE_BYTES``): a first pass keeps each segment's starting state, and each segment is filtered
again, keeping its states, before its reverse pass.

The small matrices' derivatives in the parameters come by central differences of the form's own
construction (the form rebuilt at θ ± εe_j with the same harmonics, its tables gathered on the
same patterns), contracted with the adjoints: 2p rebuilds of matrices of size d × d per distinct
gap and of the N observation rows, not 2p filters. The result is checked against differences of
the whole likelihood and against the dense engine's gradient in the tests.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from numba import njit

from abcd_cli.engines.base import FAILED_NLL
from abcd_cli.engines.statespace.discretise import Pattern, Steps, pattern, steps
from abcd_cli.engines.statespace.forms import (
    NoStateSpaceForm,
    Orders,
    StateSpaceForm,
    state_space_form,
)
from abcd_cli.engines.statespace.kalman import (
    NOTHING_KEPT,
    _filter,
    _innovation,
    _predict,
    innovation_columns,
    nll_from_sums,
    noise_sums,
    one_input,
)
from abcd_cli.kernels import Kernel

#: Most bytes the states kept for one segment's reverse pass may take.
STATE_BYTES = 64 * 2**20
#: Most bytes the transition tables of every distinct gap may take (A and Q, dense as they are
#: made); a series of more distinct gaps (irregular inputs) has no gradient here
#: (``NoStateSpaceForm``: the engine takes the Cholesky).
GRADIENT_TABLE_BYTES = 128 * 2**20
#: The central difference's step for the small matrices, relative to max(1, |θ_j|).
STEP = 1e-6


@njit(cache=True, nogil=True)
def _reverse(
    Y: np.ndarray,
    cols: np.ndarray,
    H: np.ndarray,
    r: np.ndarray,
    step: np.ndarray,
    a_ptr: np.ndarray,
    a_idx: np.ndarray,
    a_val: np.ndarray,
    q_ptr: np.ndarray,
    q_idx: np.ndarray,
    q_val: np.ndarray,
    m0: np.ndarray,
    P0: np.ndarray,
    G: np.ndarray,
    mbar: np.ndarray,
    Pbar: np.ndarray,
    Abar: np.ndarray,
    Qbar: np.ndarray,
    Hbar: np.ndarray,
    rbar: np.ndarray,
) -> None:
    """One segment's reverse pass: filter its points from (m0, P0) keeping the states, then go
    back through them from the adjoints ``mbar``, ``Pbar`` of its last state, leaving those of
    its starting state in them and adding to Abar, Qbar (per gap, on the tables' patterns),
    Hbar (per row of H) and rbar (per point). Arguments as ``kalman._filter``'s."""
    n, c = Y.shape
    d = P0.shape[0]
    nh = cols.shape[0]
    Ps = np.empty((n, d, d))
    ms = np.empty((n, d, c))
    acc = np.zeros(1 + c * c)
    _filter(
        Y, cols, H, r, step, a_ptr, a_idx, a_val, q_ptr, q_idx, q_val, m0.copy(), P0.copy(),
        acc, Ps, ms,
    )  # fmt: skip
    T = np.empty((d, d))
    mt = np.empty((d, c))
    Pm = np.empty((d, d))
    mm = np.empty((d, c))
    v = np.empty(d)
    vbar = np.empty(d)
    e = np.empty(c)
    ebar = np.empty(c)
    W = np.empty((d, d))
    mw = np.empty((d, c))
    for i in range(n - 1, -1, -1):
        u = step[i]
        P = Ps[i]
        m = ms[i]
        if u >= 0:
            _predict(u, a_ptr, a_idx, a_val, q_ptr, q_idx, q_val, P, m, T, mt, Pm, mm)
        else:
            Pm[:, :] = P
            mm[:, :] = m
        hrow = i if H.shape[0] > 1 else 0
        h = H[hrow]
        S = _innovation(Pm, mm, cols, h, r[i], Y[i], v, e)
        phi = 0.0
        for a in range(c):
            for b in range(c):
                phi += e[a] * G[a, b] * e[b]
        # S̄ and ē
        vPv = 0.0
        for k in range(d):
            s = 0.0
            for kk in range(d):
                s += Pbar[k, kk] * v[kk]
            vbar[k] = s  # P̄v for now
            vPv += v[k] * s
        vme = 0.0
        for k in range(d):
            for j in range(c):
                vme += v[k] * mbar[k, j] * e[j]
        Sbar = 0.5 / S - phi / (S * S) + vPv / (S * S) - vme / (S * S)
        for a in range(c):
            s = 0.0
            for b in range(c):
                s += 2.0 * G[a, b] * e[b]
            s /= S
            for k in range(d):
                s += mbar[k, a] * v[k] / S
            ebar[a] = s
        # v̄ = −2P̄v/S + m̄e/S + S̄h
        for k in range(d):
            s = -2.0 * vbar[k] / S
            for j in range(c):
                s += mbar[k, j] * e[j] / S
            vbar[k] = s
        for j in range(nh):
            vbar[cols[j]] += Sbar * h[j]
        # h̄ = S̄v + P⁻v̄ − m⁻ē (on the observed states), r̄ = S̄
        for j in range(nh):
            col = cols[j]
            s = Sbar * v[col]
            for k in range(d):
                s += Pm[col, k] * vbar[k]
            for a in range(c):
                s -= mm[col, a] * ebar[a]
            Hbar[hrow, j] += s
        rbar[i] += Sbar
        # P̄⁻ = P̄ + sym(v̄hᵀ), m̄⁻ = m̄ − h ēᵀ
        for j in range(nh):
            col = cols[j]
            for k in range(d):
                half = 0.5 * vbar[k] * h[j]
                Pbar[k, col] += half
                Pbar[col, k] += half
            for a in range(c):
                mbar[col, a] -= h[j] * ebar[a]
        if u < 0:
            continue
        # Q̄_u += P̄⁻ on Q's pattern
        for row in range(d):
            for p in range(q_ptr[row], q_ptr[row + 1]):
                Qbar[u, p] += Pbar[row, q_idx[p]]
        # Ā_u += 2P̄⁻(AP) + m̄⁻mᵀ on A's pattern; T holds AP
        for row in range(d):
            for p in range(a_ptr[row], a_ptr[row + 1]):
                col = a_idx[p]
                s = 0.0
                for j in range(d):
                    s += Pbar[row, j] * T[j, col]
                s *= 2.0
                for j in range(c):
                    s += mbar[row, j] * m[col, j]
                Abar[u, p] += s
        # P̄ ← AᵀP̄⁻A: W = P̄⁻A, then AᵀW
        for row in range(d):
            for k in range(d):
                W[row, k] = 0.0
        for row in range(d):
            for p in range(a_ptr[row], a_ptr[row + 1]):
                a = a_val[u, p]
                col = a_idx[p]
                for k in range(d):
                    W[k, col] += Pbar[k, row] * a
        for row in range(d):
            for k in range(d):
                T[row, k] = 0.0  # reused for AᵀW
        for row in range(d):
            for p in range(a_ptr[row], a_ptr[row + 1]):
                a = a_val[u, p]
                col = a_idx[p]
                for k in range(d):
                    T[col, k] += a * W[row, k]
        for row in range(d):
            for k in range(d):
                Pbar[row, k] = 0.5 * (T[row, k] + T[k, row])
        # m̄ ← Aᵀm̄⁻
        for k in range(d):
            for j in range(c):
                mw[k, j] = 0.0
        for row in range(d):
            for p in range(a_ptr[row], a_ptr[row + 1]):
                a = a_val[u, p]
                col = a_idx[p]
                for j in range(c):
                    mw[col, j] += a * mbar[row, j]
        for k in range(d):
            for j in range(c):
                mbar[k, j] = mw[k, j]


@dataclass(frozen=True)
class _Parts:
    """What the filter reads of a form on sorted data: the transitions' values on their
    patterns (U, nnz), P∞, the observation rows and the noise variances."""

    a_val: np.ndarray
    q_val: np.ndarray
    stationary: np.ndarray
    H: np.ndarray
    r: np.ndarray


@dataclass(frozen=True)
class _Patterns:
    a: Pattern
    q: Pattern


def _parts(
    form: StateSpaceForm, x: np.ndarray, st: Steps, patterns: _Patterns | None
) -> tuple[_Parts, _Patterns, np.ndarray]:
    """The form's parts on the sorted x, its tables on ``patterns`` (None: on their own,
    returned), and the observed states ``cols``."""
    dynamics = form.dynamics
    assert dynamics is not None
    A, Q = dynamics.transitions(st.deltas)
    if patterns is None:
        patterns = _Patterns(pattern(A), pattern(Q))
    xs = x[st.order]
    cols, H = form.observation(xs)
    stationary = np.array(dynamics.stationary(), dtype=float)
    parts = _Parts(
        patterns.a.values(A), patterns.q.values(Q), stationary, H, form.noise(xs[:, None])
    )
    return parts, patterns, cols


def _weights(acc: np.ndarray, constant_mean: bool) -> np.ndarray:
    """G: the derivative of the likelihood in the innovations' sums Σ e_a e_b / S."""
    if not constant_mean:
        return np.array([[0.5]])
    y1, a = acc[2], acc[4]
    return np.array([[0.5, -0.5 * y1 / a], [-0.5 * y1 / a, 0.5 * y1 * y1 / (a * a) + 0.5 / a]])


def nll_and_grad(
    theta: np.ndarray,
    kernel: Kernel,
    X: np.ndarray,
    y: np.ndarray,
    constant_mean: bool = False,
    orders: Orders | None = None,
    form: StateSpaceForm | None = None,
) -> tuple[float, np.ndarray]:
    """−log p(y | X, kernel.with_theta(theta)) by the Kalman filter and its gradient in theta
    (``FAILED_NLL`` and zeros when the filter breaks down); ``NoStateSpaceForm`` when the
    kernel has no form or its tables would exceed ``GRADIENT_TABLE_BYTES``. ``form``: the
    form at theta when the caller has built it already."""
    orders = orders or Orders()
    theta = np.asarray(theta, dtype=float)
    x = one_input(X)
    n = x.size
    failed = FAILED_NLL, np.zeros(theta.size)
    if form is None:
        form = state_space_form(kernel.with_theta(theta), orders)
    if form.dynamics is None:
        return _noise_only(theta, kernel, x, y, constant_mean, orders)
    st = steps(x)
    d = form.size
    if 16 * st.deltas.size * d * d > GRADIENT_TABLE_BYTES:  # A and Q of every gap, dense
        raise NoStateSpaceForm(f"{st.deltas.size} distinct gaps: the gradient's tables too large")
    with np.errstate(all="ignore"):
        parts, patterns, cols = _parts(form, x, st, None)
        Y = innovation_columns(np.asarray(y, dtype=float)[st.order], constant_mean)
        c = Y.shape[1]
        step = np.ascontiguousarray(st.step)
        tables = (
            patterns.a.ptr, patterns.a.idx, parts.a_val,
            patterns.q.ptr, patterns.q.idx, parts.q_val,
        )  # fmt: skip
        H = np.ascontiguousarray(parts.H)
        r = np.ascontiguousarray(parts.r)
        segment = max(1, int(STATE_BYTES // (8 * d * (d + c))))
        starts = list(range(0, n, segment))
        m = np.zeros((d, c))
        P = parts.stationary.copy()
        acc = np.zeros(1 + c * c)
        kept = []
        for s in starts:
            e = min(n, s + segment)
            kept.append((m.copy(), P.copy()))
            rows = H[s:e] if H.shape[0] > 1 else H
            if _filter(Y[s:e], cols, rows, r[s:e], step[s:e], *tables, m, P, acc, *NOTHING_KEPT):
                return failed
        nll = nll_from_sums(acc, n, constant_mean)
        if not math.isfinite(nll):
            return failed
        G = _weights(acc, constant_mean)
        mbar = np.zeros((d, c))
        Pbar = np.zeros((d, d))
        Abar = np.zeros_like(parts.a_val)
        Qbar = np.zeros_like(parts.q_val)
        Hbar = np.zeros_like(H)
        rbar = np.zeros(n)
        for s, (m0, P0) in zip(reversed(starts), reversed(kept), strict=True):
            e = min(n, s + segment)
            rows, hbar = (H[s:e], Hbar[s:e]) if H.shape[0] > 1 else (H, Hbar)
            _reverse(
                Y[s:e], cols, rows, r[s:e], step[s:e], *tables, m0, P0, G,
                mbar, Pbar, Abar, Qbar, hbar, rbar[s:e],
            )  # fmt: skip
        grad = np.zeros(theta.size)
        for j, h, ends in _moved(kernel, theta):
            hi, lo = (
                _parts(state_space_form(k, orders, form.harmonics), x, st, patterns)[0]
                for k in ends
            )
            grad[j] = (
                np.sum(Abar * (hi.a_val - lo.a_val))
                + np.sum(Qbar * (hi.q_val - lo.q_val))
                + np.sum(Pbar * (hi.stationary - lo.stationary))
                + np.sum(Hbar * (hi.H - lo.H))
                + np.sum(rbar * (hi.r - lo.r))
            ) / (2.0 * h)
    if not np.all(np.isfinite(grad)):
        return failed
    return float(nll), grad


def _moved(kernel: Kernel, theta: np.ndarray) -> Iterator[tuple[int, float, tuple[Kernel, Kernel]]]:
    """For each parameter j, its central difference's step h and the kernels at θ ± h e_j."""
    for j in range(theta.size):
        h = STEP * max(1.0, abs(theta[j]))
        up, down = theta.copy(), theta.copy()
        up[j] += h
        down[j] -= h
        yield j, h, (kernel.with_theta(up), kernel.with_theta(down))


def _noise_only(
    theta: np.ndarray,
    kernel: Kernel,
    x: np.ndarray,
    y: np.ndarray,
    constant_mean: bool,
    orders: Orders,
) -> tuple[float, np.ndarray]:
    """White noise alone: independent points, r̄_i = ½/r_i − eᵀGe/r_i², differenced in θ."""
    X = x[:, None]
    Y = innovation_columns(y, constant_mean)
    r = state_space_form(kernel.with_theta(theta), orders).noise(X)
    acc = noise_sums(Y, r)
    nll = nll_from_sums(acc, Y.shape[0], constant_mean)
    if not math.isfinite(nll):
        return FAILED_NLL, np.zeros(theta.size)
    G = _weights(acc, constant_mean)
    rbar = 0.5 / r - np.einsum("ia,ab,ib->i", Y, G, Y) / r**2
    grad = np.zeros(theta.size)
    for j, h, ends in _moved(kernel, theta):
        hi, lo = (state_space_form(k, orders).noise(X) for k in ends)
        grad[j] = float(np.sum(rbar * (hi - lo))) / (2.0 * h)
    if not np.all(np.isfinite(grad)):
        return FAILED_NLL, np.zeros(theta.size)
    return float(nll), grad
