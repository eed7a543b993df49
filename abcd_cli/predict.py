"""Forecasts for users: the predictive distribution of y at new x, in the user's units.

The predictive distribution of a new observation is Gaussian with the model's posterior mean
and variance (noise included), so its quantiles are mean + z_q·sd.
"""

from __future__ import annotations

import csv
import io

import numpy as np
from scipy.stats import norm

from abcd_cli.model import Model

QUANTILES = (0.025, 0.10, 0.50, 0.90, 0.975)


def predictive_table(model: Model, x_new: np.ndarray) -> dict[str, np.ndarray]:
    """Mean, standard deviation and quantiles of y at each x (noise included)."""
    mean, sd = model.predict(np.asarray(x_new, dtype=float))
    table = {"mean": mean, "sd": sd}
    for q in QUANTILES:
        table[f"q{100 * q:g}"] = mean + norm.ppf(q) * sd
    return table


def to_csv(x_name: str, x_cells: list[str], table: dict[str, np.ndarray]) -> str:
    """CSV text: the x column as the user wrote it, then one column per statistic."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([x_name, *table])
    for i, cell in enumerate(x_cells):
        writer.writerow([cell.strip(), *(repr(float(v[i])) for v in table.values())])
    return out.getvalue()
