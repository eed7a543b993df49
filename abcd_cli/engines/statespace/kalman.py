"""The log likelihood of a state-space form by a Kalman filter, in O(N·nnz(A)·d) time.

For sorted inputs x₁ ≤ ... ≤ x_N, the state s moves between them by s_i = A_i s_{i−1} + q_i,
q_i ~ N(0, Q_i) (``discretise``), starting from N(0, P∞), and each value is observed as
y_i = w_iᵀ s_i + ε_i, ε_i ~ N(0, r_i) (``forms``: w_i the observation row, r_i the white-noise
variance). The filter's one-step predictions give the exact Gaussian likelihood
(prediction-error decomposition; Särkkä 2013, "Bayesian filtering and smoothing", §4.3):
    m⁻ = A m,  P⁻ = A P Aᵀ + Q,  S_i = wᵀ P⁻ w + r_i,  e_i = y_i − wᵀ m⁻,
    k = P⁻ w / S_i,  m = m⁻ + k e_i,  P = P⁻ − k kᵀ S_i,
    −log p(y) = ½ Σ (e_i²/S_i + log S_i) + (N/2) log 2π.
A repeated input (Δ = 0) skips the prediction: the same state is observed again with its own
noise, as the dense Gram matrix has it. Unsorted inputs are sorted first (the likelihood does not
depend on the order of the points).

With ``constant_mean`` (y ~ N(β1, K), flat prior on β, as in ``engines/exact.py``) the filter
runs on y and on the vector of ones at once (the gains do not depend on the data), which gives
yᵀK⁻¹y, 1ᵀK⁻¹y and a = 1ᵀK⁻¹1 from the same innovations; then
    −log p(y) = ½ (yᵀK⁻¹y − (1ᵀK⁻¹y)²/a) + ½ log det K + ½ log a + ((N − 1)/2) log 2π.

The loop over points is compiled by numba. A search evaluates thousands of structures, each many
times: numba compiles once per function *signature* (the arrays' types and ranks), and the state
size d, the number of observed states and of distinct gaps are run-time array shapes, so every
structure and every parameter value runs the same machine code; ``cache=True`` keeps it on disk,
so a new process (a search's worker) loads it instead of compiling (the times of both are in
the study ``benchmarks/studies/statespace_likelihood.py``). A JAX filter would compile per
structure (its shapes are part of the trace), which in a search that meets thousands of
structures costs more than the evaluations.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from abcd_cli.engines.base import FAILED_NLL, LOG_2PI
from abcd_cli.engines.statespace.discretise import Steps, sparse_transitions, steps
from abcd_cli.engines.statespace.forms import Orders, StateSpaceForm, state_space_form
from abcd_cli.kernels import Kernel

#: Most bytes the transition tables (A and Q, dense before compression) of one chunk of points
#: may take; irregular inputs with many distinct gaps are filtered chunk by chunk.
TABLE_BYTES = 64 * 2**20
#: ``_filter``'s last two arguments when it keeps no states.
NOTHING_KEPT = (np.zeros((0, 0, 0)), np.zeros((0, 0, 0)))


@njit(cache=True, nogil=True)
def _predict(
    u: int,
    a_ptr: np.ndarray,
    a_idx: np.ndarray,
    a_val: np.ndarray,
    q_ptr: np.ndarray,
    q_idx: np.ndarray,
    q_val: np.ndarray,
    P: np.ndarray,
    m: np.ndarray,
    T: np.ndarray,
    mt: np.ndarray,
    P_out: np.ndarray,
    m_out: np.ndarray,
) -> None:
    """One move by gap u: T = A P (kept), P_out = T Aᵀ + Q, m_out = A m, over A's and Q's
    sparse rows (P_out may be P and m_out m: the move is made in place)."""
    d = P.shape[0]
    c = m.shape[1]
    for row in range(d):
        for k in range(d):
            T[row, k] = 0.0
        for p in range(a_ptr[row], a_ptr[row + 1]):
            a = a_val[u, p]
            src = a_idx[p]
            for k in range(d):
                T[row, k] += a * P[src, k]
        for j in range(c):
            s = 0.0
            for p in range(a_ptr[row], a_ptr[row + 1]):
                s += a_val[u, p] * m[a_idx[p], j]
            mt[row, j] = s
    # T Aᵀ on the upper triangle, mirrored, then + Q.
    for row in range(d):
        for col in range(row, d):
            s = 0.0
            for p in range(a_ptr[col], a_ptr[col + 1]):
                s += T[row, a_idx[p]] * a_val[u, p]
            P_out[row, col] = s
            P_out[col, row] = s
    for row in range(d):
        for p in range(q_ptr[row], q_ptr[row + 1]):
            P_out[row, q_idx[p]] += q_val[u, p]
        for j in range(c):
            m_out[row, j] = mt[row, j]


@njit(cache=True, nogil=True)
def _innovation(
    P: np.ndarray,
    m: np.ndarray,
    cols: np.ndarray,
    h: np.ndarray,
    r: float,
    y: np.ndarray,
    v: np.ndarray,
    e: np.ndarray,
) -> float:
    """The observation of one point from the predicted (m, P): v = P w, e = y − wᵀm, and the
    innovation's variance S = wᵀv + r returned (w: h on the states ``cols``)."""
    d = P.shape[0]
    nh = cols.shape[0]
    for k in range(d):
        s = 0.0
        for j in range(nh):
            s += P[k, cols[j]] * h[j]
        v[k] = s
    S = r
    for j in range(nh):
        S += h[j] * v[cols[j]]
    for j in range(m.shape[1]):
        s = y[j]
        for jj in range(nh):
            s -= h[jj] * m[cols[jj], j]
        e[j] = s
    return S


@njit(cache=True, nogil=True)
def _filter(
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
    m: np.ndarray,
    P: np.ndarray,
    acc: np.ndarray,
    Ps: np.ndarray,
    ms: np.ndarray,
) -> int:
    """Filter the points of Y (N, c) in order, updating m (d, c), P (d, d) and acc in place:
    acc[0] += Σ log S_i, acc[1 + a·c + b] += Σ e_a e_b / S_i. Row i of the observation is
    H[i] (H[0] when H has one row) on the states ``cols``; ``step[i]`` indexes the
    transition tables (−1: no move). With Ps (N, d, d) and ms (N, d, c) rather than empty
    arrays, the state before point i moves is kept in Ps[i], ms[i] (the gradient's reverse
    pass reads them). Returns 0, or i + 1 when S_i ≤ 0 or is not finite."""
    n, c = Y.shape
    keep = Ps.shape[0] > 0
    d = P.shape[0]
    T = np.empty((d, d))
    mt = np.empty((d, c))
    v = np.empty(d)
    e = np.empty(c)
    for i in range(n):
        if keep:
            Ps[i] = P
            ms[i] = m
        u = step[i]
        if u >= 0:
            _predict(u, a_ptr, a_idx, a_val, q_ptr, q_idx, q_val, P, m, T, mt, P, m)
        h = H[i] if H.shape[0] > 1 else H[0]
        S = _innovation(P, m, cols, h, r[i], Y[i], v, e)
        if not (0.0 < S < np.inf):
            return i + 1
        acc[0] += math.log(S)
        for a in range(c):
            for b in range(c):
                acc[1 + a * c + b] += e[a] * e[b] / S
        for k in range(d):
            g = v[k] / S
            for j in range(c):
                m[k, j] += g * e[j]
            for kk in range(d):
                P[k, kk] -= g * v[kk]
    return 0


def _innovations(form: StateSpaceForm, x: np.ndarray, Y: np.ndarray, r: np.ndarray) -> np.ndarray:
    """[Σ log S_i, the c×c matrix Σ e eᵀ/S_i flattened] of the filter over (x, Y) (unsorted
    allowed); NaN in the first entry when the filter breaks down."""
    dynamics = form.dynamics
    if dynamics is None:  # white noise alone: independent points
        return noise_sums(Y, r)
    c = Y.shape[1]
    acc = np.zeros(1 + c * c)
    st: Steps = steps(x)
    o = st.order
    cols, H = form.observation(x)
    Ys, rs = np.ascontiguousarray(Y[o]), np.ascontiguousarray(r[o])
    if H.shape[0] > 1:
        H = np.ascontiguousarray(H[o])
    d = dynamics.size
    m = np.zeros((d, c))
    P = np.array(dynamics.stationary(), dtype=float, order="C", copy=True)  # updated in place
    chunk = max(1, int(TABLE_BYTES // (16 * d * d)))
    n = x.size
    start = 0
    while start < n:
        # Points whose gaps fit one table: every point when the distinct gaps are few.
        if st.deltas.size <= chunk:
            end, used = n, np.arange(st.deltas.size)
            local = st.step[start:end]
        else:
            end = min(n, start + chunk)
            sub = st.step[start:end]
            used = np.unique(sub[sub >= 0])
            local = np.where(sub >= 0, np.searchsorted(used, sub), -1)
        t = sparse_transitions(dynamics, st.deltas[used])
        h_rows = H[start:end] if H.shape[0] > 1 else H
        status = _filter(
            Ys[start:end], cols, h_rows, rs[start:end], np.ascontiguousarray(local),
            t.a_ptr, t.a_idx, t.a_val, t.q_ptr, t.q_idx, t.q_val, m, P, acc, *NOTHING_KEPT,
        )  # fmt: skip
        if status:
            acc[0] = math.nan
            return acc
        start = end
    return acc


def noise_sums(Y: np.ndarray, r: np.ndarray) -> np.ndarray:
    """The filter's sums for white noise alone (independent points, S_i = r_i, e_i = y_i); NaN
    in the first entry when a variance is not positive."""
    acc = np.zeros(1 + Y.shape[1] ** 2)
    if not np.all(r > 0.0):
        acc[0] = math.nan
        return acc
    acc[0] = float(np.sum(np.log(r)))
    acc[1:] = np.einsum("ia,ib,i->ab", Y, Y, 1.0 / r).ravel()
    return acc


def one_input(X: np.ndarray) -> np.ndarray:
    """The inputs as a vector (X of one column, or already a vector)."""
    X = np.asarray(X, dtype=float)
    if X.ndim == 2:
        if X.shape[1] != 1:
            raise ValueError("the state-space form reads one input column")
        return X[:, 0]
    return X


def innovation_columns(y: np.ndarray, constant_mean: bool) -> np.ndarray:
    """The columns the filter runs on: y, or with ``constant_mean`` y less its mean and the
    vector of ones (the module docstring)."""
    y = np.asarray(y, dtype=float)
    if not constant_mean:
        return np.ascontiguousarray(y[:, None])
    centre = float(np.mean(y)) if y.size else 0.0
    return np.ascontiguousarray(np.column_stack([y - centre, np.ones(y.size)]))


def form_negative_log_likelihood(
    form: StateSpaceForm, X: np.ndarray, y: np.ndarray, constant_mean: bool = False
) -> float:
    """−log p(y | X) under the form (``FAILED_NLL`` when the filter breaks down)."""
    x = one_input(X)
    Y = innovation_columns(y, constant_mean)
    with np.errstate(all="ignore"):
        acc = _innovations(form, x, Y, form.noise(x[:, None]))
        nll = nll_from_sums(acc, Y.shape[0], constant_mean)
    return nll if math.isfinite(nll) else FAILED_NLL


def nll_from_sums(acc: np.ndarray, n: int, constant_mean: bool) -> float:
    """−log p(y) from the filter's sums ``acc`` (NaN when they are unusable): see the module
    docstring for both forms."""
    logdet = acc[0]
    if constant_mean:
        yy, y1, a = acc[1], acc[2], acc[4]
        if not a > 0:
            return math.nan
        return 0.5 * (yy - y1 * y1 / a + logdet + math.log(a)) + 0.5 * (n - 1) * LOG_2PI
    return 0.5 * (acc[1] + logdet) + 0.5 * n * LOG_2PI


def negative_log_likelihood(
    kernel: Kernel,
    X: np.ndarray,
    y: np.ndarray,
    constant_mean: bool = False,
    orders: Orders | None = None,
) -> float:
    """−log p(y | X, kernel) by the Kalman filter, as ``engines.exact.negative_log_likelihood``
    gives it densely (``FAILED_NLL`` when the filter breaks down); ``NoStateSpaceForm`` when
    the kernel has no form."""
    return form_negative_log_likelihood(state_space_form(kernel, orders), X, y, constant_mean)
