"""Forecasts for users: the predictive distribution of y at new x, in the user's units.

One model: the predictive distribution of a new observation is Gaussian with the model's
posterior mean m and variance s² (noise included), so its quantiles are m + z_q·s.

Several models (``abcd predict --average-seeds``, the models of ``abcd search --seeds K``): the
equal-weight mixture p(y) = (1/K) Σ_k N(y; m_k, s_k²). Its mean is m̄ = (1/K) Σ m_k, its
variance (1/K) Σ s_k² + (1/K) Σ (m_k − m̄)² (the models' spread adds to their own), and its
q-quantile the root of (1/K) Σ Φ((y − m_k)/s_k) = q, which lies between the smallest and the
largest of the models' own q-quantiles. The mixture's RMSE on any test set is never above the
models' average RMSE (the norm of an average is at most the average of the norms).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence

import numpy as np
from scipy.stats import norm

from abcd_cli.model import Model

QUANTILES = (0.025, 0.10, 0.50, 0.90, 0.975)
#: bisection steps for a mixture quantile: the bracket shrinks by 2⁻⁶⁰, below float precision
_BISECTIONS = 60


def predictive_table(models: Sequence[Model], x_new: np.ndarray) -> dict[str, np.ndarray]:
    """Mean, standard deviation and quantiles of y at each x (noise included), of one model or
    of the equal-weight mixture of several."""
    if not models:
        raise ValueError("predictive_table needs at least one model")
    x = np.asarray(x_new, dtype=float)
    moments = [m.predict(x) for m in models]
    means = np.array([mean for mean, _ in moments])
    sds = np.array([sd for _, sd in moments])
    if len(models) == 1:
        mean, sd = means[0], sds[0]
    else:
        mean = means.mean(axis=0)
        sd = np.sqrt((sds**2).mean(axis=0) + ((means - mean) ** 2).mean(axis=0))
    table = {"mean": mean, "sd": sd}
    for q in QUANTILES:
        table[f"q{100 * q:g}"] = mixture_quantile(means, sds, q)
    return table


def mixture_quantile(means: np.ndarray, sds: np.ndarray, q: float) -> np.ndarray:
    """The q-quantile at each x of the equal-weight mixture of N(means[k], sds[k]²) (rows k),
    by bisection between the components' smallest and largest own q-quantiles."""
    own = means + norm.ppf(q) * sds
    if own.shape[0] == 1:
        return own[0]
    lo, hi = own.min(axis=0), own.max(axis=0)
    safe = np.where(sds > 0, sds, 1.0)
    for _ in range(_BISECTIONS):
        mid = 0.5 * (lo + hi)
        cdf = np.where(sds > 0, norm.cdf((mid - means) / safe), (mid >= means) * 1.0).mean(axis=0)
        below = cdf < q
        lo = np.where(below, mid, lo)
        hi = np.where(below, hi, mid)
    return 0.5 * (lo + hi)


def to_csv(x_name: str, x_cells: list[str], table: dict[str, np.ndarray]) -> str:
    """CSV text: the x column as the user wrote it, then one column per statistic."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([x_name, *table])
    for i, cell in enumerate(x_cells):
        writer.writerow([cell.strip(), *(repr(float(v[i])) for v in table.values())])
    return out.getvalue()
