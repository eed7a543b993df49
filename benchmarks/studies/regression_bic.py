"""BIC against held-out error on one split of the regression benchmark: the search's choice
beside fixed structures (linear regression, SE-ARD, both), each fitted by the same engine.

Answers whether a split where the search predicts worse than the ARD GP is a search that
missed a better model (the ARD structure has the lower BIC) or BIC preferring a model that
predicts worse (the search's choice has the lower BIC). Reads the search's choice on that
split from the benchmark's CSV; fits each structure on the split's training rows (exact
engine, 5 starts, seed 0) and scores its posterior mean on the test rows, in units of y's
training sd as the benchmark does.

    OMP_NUM_THREADS=1 .venv/bin/python -m benchmarks.studies.regression_bic \\
        --dataset diabetes --split 0
"""

from __future__ import annotations

import argparse
import csv
import math
import time
from pathlib import Path

import numpy as np

from abcd_cli.data.summary import InputSummaries
from abcd_cli.engines import get_engine
from abcd_cli.engines.exact_posterior import ExactPosterior
from abcd_cli.kernel_search.fit import fit
from abcd_cli.kernels import Kernel
from abcd_cli.kernels.text import parse_kernel
from benchmarks.several_inputs import OUTPUTS, regression_data

CSV = OUTPUTS / "regression.csv"


def fixed_structures(names: list[str]) -> dict[str, str]:
    """The structures the choice is compared with, on inputs ``names``."""
    lines = " + ".join(f"Lin[{n}]" for n in names)
    ard = " * ".join(f"SE[{n}]" for n in names)
    return {
        "linear": f"{lines} + C + WN",
        "SE-ARD": f"{ard} + WN",
        "SE-ARD + linear": f"{ard} + {lines} + C + WN",
    }


def fitted_bic(
    kernel: Kernel | str, names: list[str], x: np.ndarray, y: np.ndarray, restarts: int = 5
) -> tuple[Kernel, float, float]:
    """The structure ``kernel`` (a kernel, or its text) fitted to (x, y) by the exact engine
    (``restarts`` starts, seed 0; a kernel whose values are all known starts once, from them):
    the fitted kernel, −log p(y) and BIC = 2 (−log p(y)) + p log n."""
    kernel = parse_kernel(kernel, names) if isinstance(kernel, str) else kernel
    result = fit(
        kernel, x, y, np.random.default_rng(0),
        restarts=restarts, summary=InputSummaries.from_data(x, y), max_iter=300,
        engine=get_engine("exact"),
    )  # fmt: skip
    fitted = result.kernel
    return fitted, result.nll, 2.0 * result.nll + fitted.n_params * math.log(len(y))


def chosen_structure(dataset: str, split: int, path: Path) -> str:
    """The search's choice on that split, as the benchmark's CSV holds it."""
    with path.open(newline="") as file:
        for row in csv.DictReader(file):
            if (
                row["dataset"] == dataset
                and row["split"] == str(split)
                and row["method"] == "search"
            ):
                return row["chosen"]
    raise SystemExit(f"no search row for {dataset} split {split} in {path}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="diabetes")
    parser.add_argument("--split", type=int, default=0)
    parser.add_argument("--csv", type=Path, default=CSV, help="the benchmark's rows")
    args = parser.parse_args()
    part = regression_data.split(regression_data.load(args.dataset), args.split, 0, 500)
    names = [f"x{i + 1}" for i in range(part.x_train.shape[1])]
    structures = {"search's choice": chosen_structure(args.dataset, args.split, args.csv)}
    structures.update(fixed_structures(names))
    n = len(part.y_train)
    print(f"{args.dataset} split {args.split}: {n} training rows, {len(part.y_test)} test rows")
    print("| structure | parameters | −log p(y) | BIC | test MSE | seconds |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, text in structures.items():
        started = time.perf_counter()
        fitted, nll, bic = fitted_bic(text, names, part.x_train, part.y_train)
        mean = ExactPosterior(fitted, part.x_train, part.y_train).mean(fitted, part.x_test)
        mse = float(np.mean((part.y_test - mean) ** 2))
        seconds = time.perf_counter() - started
        print(
            f"| {label}: `{text}` | {fitted.n_params} | {nll:.2f} | {bic:.2f} |"
            f" {mse:.3f} | {seconds:.0f} |"
        )


if __name__ == "__main__":
    main()
