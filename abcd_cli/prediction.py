"""Forecasts for users: the predictive distribution of y at new x, in the user's units.

One model: the predictive distribution of a new observation is Gaussian with the model's
posterior mean m and variance s² (noise included), so its quantiles are m + z_q·s.

Several models (``abcd predict --average-seeds``, the models of ``abcd search --seeds K``): the
mixture p(y) = Σ_k w_k N(y; m_k, s_k²) with weights w_k ≥ 0 summing to one. Its mean is
m̄ = Σ w_k m_k, its variance Σ w_k s_k² + Σ w_k (m_k − m̄)² (the models' spread adds to their
own), and its q-quantile the root of Σ w_k Φ((y − m_k)/s_k) = q, which lies between the
smallest and the largest own q-quantiles of the models with positive weight.

The weights are either the models' evidences, w_k ∝ p(D | M_k) ≈ exp(−BIC_k/2) (a Bayes model
average with a uniform prior over the models, the thesis chapter's "model selection rather than
model averaging"), or equal, w_k = 1/K. With equal weights the mixture's RMSE on any test set is
never above the models' average RMSE (the norm of an average is at most the average of the
norms).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Sequence

import numpy as np
from scipy.special import ndtr
from scipy.stats import norm

from abcd_cli.model import Model

QUANTILES = (0.025, 0.10, 0.50, 0.90, 0.975)
#: Models × rows predicted at once (each of the models' means and sds, and the bisection's
#: temporaries, is an array of this many float64: 16 MiB).
BLOCK_ELEMENTS = 2**21
#: bisection steps for a mixture quantile: the bracket shrinks by 2⁻⁶⁰, below float precision
_BISECTIONS = 60


def evidence_weights(bics: Sequence[float]) -> np.ndarray:
    """The models' shares of their summed evidences, w_k = exp(−BIC_k/2) / Σ_j exp(−BIC_j/2),
    computed relative to the lowest BIC so that no term underflows to 0/0."""
    b = np.asarray(bics, dtype=float)
    if b.size == 0 or not np.all(np.isfinite(b)):
        raise ValueError("evidence weights need at least one finite BIC")
    w = np.exp(-(b - b.min()) / 2.0)
    return w / w.sum()


def predictive_table(
    models: Sequence[Model],
    x_new: np.ndarray,
    weights: Sequence[float] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, np.ndarray]:
    """Mean, standard deviation and quantiles of y at each x (noise included), of one model or
    of the mixture of several with ``weights`` (equal when None). The rows are taken in blocks
    of at most ``BLOCK_ELEMENTS`` / len(models), so that the models' means and sds at once stay
    small whatever the number of rows; ``progress(done, total)`` is called after each block."""
    if not models:
        raise ValueError("predictive_table needs at least one model")
    w = mixture_weights(len(models), weights)
    x = np.asarray(x_new, dtype=float)
    total = x.shape[0]
    step = max(1, BLOCK_ELEMENTS // len(models))
    blocks = []
    for start in range(0, max(total, 1), step):
        blocks.append(_block_table(models, x[start : start + step], w))
        if progress is not None:
            progress(min(start + step, total), total)
    return {key: np.concatenate([block[key] for block in blocks]) for key in blocks[0]}


def _block_table(models: Sequence[Model], x: np.ndarray, w: np.ndarray) -> dict[str, np.ndarray]:
    """:func:`predictive_table` of one block of rows."""
    moments = [m.predict(x) for m in models]
    means = np.array([mean for mean, _ in moments])
    sds = np.array([sd for _, sd in moments])
    mean, sd = mixture_moments(means, sds, w)
    table = {"mean": mean, "sd": sd}
    for q in QUANTILES:
        table[f"q{100 * q:g}"] = mixture_quantile(means, sds, q, w)
    return table


def mixture_moments(
    means: np.ndarray, sds: np.ndarray, weights: Sequence[float] | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Mean m̄ = Σ_k w_k m_k and standard deviation √(Σ_k w_k s_k² + Σ_k w_k (m_k − m̄)²) at each
    x of the mixture of N(means[k], sds[k]²) (rows k; equal weights when None)."""
    if means.shape[0] == 1:
        return means[0], sds[0]
    w = mixture_weights(means.shape[0], weights)
    mean = w @ means
    return mean, np.sqrt(w @ sds**2 + w @ (means - mean) ** 2)


def mixture_weights(k: int, weights: Sequence[float] | None) -> np.ndarray:
    """``weights`` checked (k of them, none negative, summing to one) or, when None, 1/k each."""
    if weights is None:
        return np.full(k, 1.0 / k)
    w = np.asarray(weights, dtype=float)
    if w.shape != (k,) or not np.all(np.isfinite(w)) or np.any(w < 0) or abs(w.sum() - 1) > 1e-9:
        raise ValueError(f"mixture weights must be {k} non-negative numbers summing to one")
    return w


def mixture_quantile(
    means: np.ndarray, sds: np.ndarray, q: float, weights: np.ndarray | None = None
) -> np.ndarray:
    """The q-quantile at each x of the mixture Σ_k w_k N(means[k], sds[k]²) (rows k; equal
    weights when None), by bisection between the smallest and largest own q-quantiles of the
    components with positive weight."""
    w = mixture_weights(means.shape[0], weights)
    keep = w > 0
    means, sds, w = means[keep], sds[keep], w[keep]
    own = means + norm.ppf(q) * sds
    if own.shape[0] == 1:
        return own[0]
    lo, hi = own.min(axis=0), own.max(axis=0)
    positive = sds > 0
    inverse = 1.0 / np.where(positive, sds, 1.0)
    for _ in range(_BISECTIONS):
        mid = 0.5 * (lo + hi)
        cdf = ndtr((mid - means) * inverse)  # Φ, the ufunc: three times norm.cdf's speed
        if not positive.all():
            cdf = np.where(positive, cdf, (mid >= means) * 1.0)
        cdf = w @ cdf
        below = cdf < q
        lo = np.where(below, mid, lo)
        hi = np.where(below, hi, mid)
    return 0.5 * (lo + hi)


def to_csv(
    x_names: Sequence[str], x_cells: Sequence[Sequence[str]], table: dict[str, np.ndarray]
) -> str:
    """CSV text: the input columns as the user wrote them (one list of cells per column), then
    one column per statistic."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([*x_names, *table])
    for i, row in enumerate(zip(*x_cells, strict=True)):
        cells = [cell.strip() for cell in row]
        writer.writerow([*cells, *(repr(float(v[i])) for v in table.values())])
    return out.getvalue()
