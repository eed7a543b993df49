"""Inputs as an (N, D) matrix: the array helpers every layer shares (imports numpy only).

X is (N, D) below the user's own data, one column per input (D = 1 for a time series); a
vector of x is one input's column. ``evenly_spread`` picks positions from the first to the last
(rows of a table, origins of a backtest, draws of a chain).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike


def as_2d(X: ArrayLike) -> np.ndarray:
    """Inputs as an (N, D) float array (a vector is one column; a matrix stays as it is)."""
    X = np.asarray(X, dtype=float)
    return X[:, None] if X.ndim == 1 else X


def columns(X: ArrayLike) -> list[np.ndarray]:
    """Each input's values: the columns of ``as_2d(X)`` (a vector is its one column)."""
    return list(as_2d(X).T)


def evenly_spread(n: int, count: int) -> np.ndarray:
    """At most ``count`` of the positions 0 … n − 1, evenly spread from the first to the last:
    round(i (n − 1) / (count − 1)) for i = 0 … count − 1, each once (all n when count ≥ n)."""
    return np.unique(np.round(np.linspace(0, n - 1, min(n, count))).astype(int))
