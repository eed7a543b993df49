"""The folds of the cross-validation that orders a model's components (``ordering``).

Along one input the folds are contiguous blocks of x, as for a time series (``ordering``).
A table of several inputs has no order of its rows that means anything, so its folds are the
positions shuffled once by a seeded generator and cut into k parts (one seed, one result);
when one of its inputs is time, they are blocks of that input's order instead, so that a
fold is predicted from the other times.
"""

from __future__ import annotations

import numpy as np

from abcd_cli.decompose.ordering import N_FOLDS, contiguous_folds


def shuffled_folds(n: int, seed: int, k: int = N_FOLDS) -> list[np.ndarray]:
    """k parts (fewer when n < k) of 0..n-1 after one seeded shuffle, each part sorted."""
    order = np.random.default_rng(seed).permutation(n)
    return [np.sort(order[f]) for f in contiguous_folds(n, k)]


def blocks_along(column: np.ndarray, k: int = N_FOLDS) -> list[np.ndarray]:
    """k blocks of positions consecutive in ``column``'s order (ties kept in row order)."""
    order = np.argsort(np.asarray(column, dtype=float), kind="stable")
    return [np.sort(order[f]) for f in contiguous_folds(order.size, k)]


def folds_for(X: np.ndarray, time_dim: int | None, seed: int, k: int = N_FOLDS) -> list[np.ndarray]:
    """The folds of a table of inputs X (N, D): blocks along its time input when it has one,
    else shuffled ones."""
    if time_dim is None:
        return shuffled_folds(X.shape[0], seed, k)
    return blocks_along(X[:, time_dim], k)
