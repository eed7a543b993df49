"""Choosing among the search's level bests by something other than BIC, on the regression
benchmark's splits: would leave-one-out likelihood or BIC weights predict better?

Reads the model documents ``bench_regression --models DIR`` keeps: each trace holds every
level's best kernel with its fitted parameters (in the benchmark's standardised units, the
units the search was given). For each split, with those parameters fixed, it scores every
level's best on the training rows by its leave-one-out log predictive density (Rasmussen &
Williams eq. 5.10-5.12: with Q = K⁻¹, μ₋ᵢ = yᵢ − [Qy]ᵢ / Qᵢᵢ and σ²₋ᵢ = 1 / Qᵢᵢ), and on the
test rows by MSE. Rules compared: BIC (the search's own), the best leave-one-out density, and
the BIC-weighted mean of the level bests' predictions (weights ∝ exp(−BIC / 2)). The best
level in hindsight looks at the test rows, so it is no rule; it says how far any choice along
the search's path could go. The time-series analogue, on the extrapolation searches' traces,
is ``bench_selection.py``.

    OMP_NUM_THREADS=1 .venv/bin/python -m benchmarks.studies.level_selection \\
        --models DIR --dataset diabetes --method search-se-rq
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import re
from pathlib import Path

import numpy as np

from abcd_cli.engines.cholesky import cholesky_factor, inverse_from_cholesky
from abcd_cli.engines.exact_posterior import ExactPosterior
from abcd_cli.kernels.text import parse_kernel
from abcd_cli.prediction import evidence_weights
from benchmarks.several_inputs import OUTPUTS, regression_data

CSV = OUTPUTS / "regression.csv"


def loo_log_density(Q: np.ndarray, r: np.ndarray) -> float:
    """Σᵢ log N(rᵢ; μ₋ᵢ, σ²₋ᵢ) with μ₋ᵢ = rᵢ − [Qr]ᵢ / Qᵢᵢ, σ²₋ᵢ = 1 / Qᵢᵢ (R&W eq. 5.12)."""
    q = np.diag(Q)
    err = (Q @ r) / q
    return float(np.sum(0.5 * np.log(q) - 0.5 * err**2 * q - 0.5 * math.log(2.0 * math.pi)))


def level_scores(doc: dict, part: regression_data.Split, names: list[str]) -> list[dict]:
    """Per level of the trace: BIC, leave-one-out log density and the test predictions."""
    level_mean = float(np.mean(part.y_train))  # the search's prior mean: the data's mean
    r = part.y_train - level_mean
    out = []
    for level in doc["trace"]:
        kernel = parse_kernel(level["kernel"], names)
        L = cholesky_factor(kernel.gram(part.x_train))
        if L is None:
            continue
        mean = level_mean + ExactPosterior(kernel, part.x_train, r).mean(kernel, part.x_test)
        out.append(
            {
                "level": level["level"],
                "bic": level["bic"],
                "loo": loo_log_density(inverse_from_cholesky(L), r),
                "mse": float(np.mean((part.y_test - mean) ** 2)),
                "mean": mean,
                "structure": level["structure"],
            }
        )
    return out


def ard_mse(dataset: str, split: int, path: Path) -> float | None:
    with path.open(newline="") as file:
        for row in csv.DictReader(file):
            key = (row["dataset"], row["split"], row["method"])
            if key == (dataset, str(split), "sklearn-ard"):
                return float(row["mse"])
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=Path, required=True, help="bench_regression --models")
    parser.add_argument("--dataset", default="diabetes")
    parser.add_argument("--method", default="search")
    parser.add_argument("--csv", type=Path, default=CSV, help="the benchmark's rows (ARD's MSE)")
    args = parser.parse_args()
    data = regression_data.load(args.dataset)
    pattern = re.compile(rf"{re.escape(args.dataset)}-(\d+)-{re.escape(args.method)}\.json")
    files = sorted(
        (int(m.group(1)), p) for p in args.models.iterdir() if (m := pattern.fullmatch(p.name))
    )
    print(f"{args.dataset}, method {args.method}: test MSE by the rule that picks a level best")
    print(
        "| split | levels | BIC's pick | MSE | LOO's pick | MSE | BIC-weighted MSE |"
        " best level in hindsight | ARD MSE |"
    )
    print("|---:|---:|---|---:|---|---:|---:|---:|---:|")
    for split, path in files:
        doc = json.loads(path.read_text())
        part = regression_data.split(data, split, 0, 500)
        names = [f"x{i + 1}" for i in range(part.x_train.shape[1])]
        scores = level_scores(doc, part, names)
        by_bic = min(scores, key=lambda s: s["bic"])
        by_loo = max(scores, key=lambda s: s["loo"])
        weights = evidence_weights([s["bic"] for s in scores])
        averaged = weights @ np.array([s["mean"] for s in scores])
        mse_avg = float(np.mean((part.y_test - averaged) ** 2))
        ard = ard_mse(args.dataset, split, args.csv)
        print(
            f"| {split} | {len(scores)} | {by_bic['level']}: `{by_bic['structure']}` |"
            f" {by_bic['mse']:.3f} | {by_loo['level']}: `{by_loo['structure']}` |"
            f" {by_loo['mse']:.3f} | {mse_avg:.3f} | {min(s['mse'] for s in scores):.3f} |"
            f" {'' if ard is None else f'{ard:.3f}'} |"
        )


if __name__ == "__main__":
    main()
