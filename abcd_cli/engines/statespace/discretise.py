"""The gaps between sorted inputs, and the transitions of a form over them as sparse tables.

A Kalman filter moves the state from one input to the next by A = expm(FΔ) and adds
Q = P∞ − A P∞ Aᵀ. The matrix exponential is the expensive part, so it is made once per distinct
gap Δ, not once per point: a regular grid has one Δ, a daily series with gaps a few. Gaps that
agree to ``DELTA_TOLERANCE`` times the inputs' magnitude (the inputs' own rounding is about
2·10⁻¹⁶ of it) share one transition, made at their mean. A repeated input (Δ = 0 exactly) and
the first input need none: the state stays where it is.

The tables are compressed sparse rows with one pattern shared by every Δ: a sum's A is
block-diagonal and a harmonic's is a 2×2 rotation, so A P Aᵀ costs 2·nnz(A)·d instead of 2d³.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from abcd_cli.engines.statespace.dynamics import Dynamics

#: Gaps closer than this fraction of max |x| (and of the range) share one transition.
DELTA_TOLERANCE = 1e-12
#: No step moves the state (the first input, a repeated one).
NO_MOVE = -1


@dataclass(frozen=True)
class Steps:
    """Sorted inputs and their gaps: ``order`` sorts x (stable), ``step[i]`` is the index in
    ``deltas`` of the gap before sorted point i (``NO_MOVE`` for none)."""

    order: np.ndarray
    step: np.ndarray
    deltas: np.ndarray


def steps(x: np.ndarray) -> Steps:
    """The steps between the sorted values of x (a vector)."""
    x = np.asarray(x, dtype=float)
    order = np.argsort(x, kind="stable")
    xs = x[order]
    gaps = np.diff(xs)
    step = np.full(x.size, NO_MOVE, dtype=np.int64)
    moving = gaps > 0
    if not np.any(moving):
        return Steps(order, step, np.zeros(0))
    magnitude = max(float(np.max(np.abs(xs))), float(xs[-1] - xs[0]))
    quantum = DELTA_TOLERANCE * magnitude
    keys = np.rint(gaps[moving] / quantum).astype(np.int64)
    unique, inverse = np.unique(keys, return_inverse=True)
    sums = np.bincount(inverse, weights=gaps[moving], minlength=unique.size)
    counts = np.bincount(inverse, minlength=unique.size)
    step[1:][moving] = inverse
    return Steps(order, step, sums / counts)


@dataclass(frozen=True)
class SparseTransitions:
    """A and Q for U gaps on shared patterns: row r of A(u) holds ``a_val[u, p]`` at columns
    ``a_idx[p]`` for p in ``a_ptr[r]:a_ptr[r + 1]``; the same for Q."""

    a_ptr: np.ndarray
    a_idx: np.ndarray
    a_val: np.ndarray
    q_ptr: np.ndarray
    q_idx: np.ndarray
    q_val: np.ndarray


@dataclass(frozen=True)
class Pattern:
    """Compressed sparse rows of a pattern: row r holds columns ``idx[p]`` for p in
    ``ptr[r]:ptr[r + 1]``; ``rows[p]`` is entry p's row."""

    ptr: np.ndarray
    idx: np.ndarray
    rows: np.ndarray

    def values(self, M: np.ndarray) -> np.ndarray:
        """The entries of a stack of matrices (U, d, d) on the pattern, (U, nnz)."""
        return np.ascontiguousarray(M[:, self.rows, self.idx])


def pattern(M: np.ndarray) -> Pattern:
    """The union of the nonzero patterns of a stack of matrices (U, d, d), row by row."""
    d = M.shape[1]
    rows, cols = np.nonzero(np.any(M != 0.0, axis=0))  # row-major order
    ptr = np.zeros(d + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=d), out=ptr[1:])
    return Pattern(ptr, cols.astype(np.int64), rows)


def _compressed(M: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(ptr, idx, values (U, nnz)) of a stack of matrices on its ``pattern``."""
    p = pattern(M)
    return p.ptr, p.idx, p.values(M)


def sparse_transitions(dynamics: Dynamics, deltas: np.ndarray) -> SparseTransitions:
    """A and Q of ``dynamics`` for each gap, as sparse tables."""
    A, Q = dynamics.transitions(np.asarray(deltas, dtype=float))
    return SparseTransitions(*_compressed(A), *_compressed(Q))
