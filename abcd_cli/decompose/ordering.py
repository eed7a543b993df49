"""The report order of additive components (thesis §4.1, "Ordering additive components"):
greedily add the component that most reduces the k-fold cross-validated mean absolute error,
folds being contiguous blocks of x (or others given: ``decompose/folds.py``). Hyperparameters
stay as fitted on all the data; each fold's component means come from the engine's posterior
given the other folds.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from abcd_cli.engines.base import Posterior, PosteriorError
from abcd_cli.kernels import Kernel, total

N_FOLDS = 10


def contiguous_folds(n: int, k: int) -> list[np.ndarray]:
    """k blocks of consecutive positions (fewer when n < k), covering 0..n-1."""
    return [f for f in np.array_split(np.arange(n), min(k, n)) if f.size]


class CvOrder(NamedTuple):
    """The greedy order (positions in the terms given), the CV MAE after each addition, the
    baseline MAE (predicting zero residual) and, in the same order, the CV MAE of the whole
    model without each component (telling a component that helps only together with later
    ones from one that never helps)."""

    order: list[int]
    path: list[float]
    baseline: float
    without: list[float]


def order_by_cv(
    terms: list[Kernel],
    post: Posterior,
    k: int = N_FOLDS,
    folds: list[np.ndarray] | None = None,
) -> CvOrder:
    """Greedy order of components by k-fold cross-validated MAE, over ``folds`` (positions
    of the data; default: k contiguous blocks).

    ``post``: the model (the sum of ``terms``) conditioned on all the data; each fold predicts
    its residual (the data minus the prior mean) from the others'. Returns the order, the CV MAE
    after each addition, the baseline MAE (predicting the prior mean, i.e. zero residual) and
    the MAE of all components but each one (:class:`CvOrder`).
    A fold whose training points cannot be conditioned on is left out.
    """
    y = post.residual
    full = total(terms)
    # predictions[f][i]: posterior mean of component i at fold f's test points, fit on the rest
    predictions, targets = [], []
    for test in contiguous_folds(y.size, k) if folds is None else folds:
        train = np.setdiff1d(np.arange(y.size), test)
        try:
            fold = post.given(train, full)
        except PosteriorError:
            continue
        predictions.append([fold.mean(t, post.X[test]) for t in terms])
        targets.append(y[test])
    target = np.concatenate(targets)

    def mae(chosen: list[int]) -> float:
        pred = np.concatenate(
            [
                sum((p[i] for i in chosen), np.zeros(t.size))
                for p, t in zip(predictions, targets, strict=True)
            ]
        )
        return float(np.mean(np.abs(target - pred)))

    order: list[int] = []
    path: list[float] = []
    remaining = list(range(len(terms)))
    while remaining:
        best = min(remaining, key=lambda i: (mae(order + [i]), i))
        order.append(best)
        remaining.remove(best)
        path.append(mae(order))
    without = [mae([j for j in order if j != i]) for i in order]
    return CvOrder(order, path, mae([]), without)
