"""BIC of the true structure against the search's choice on the recovery benchmark's data.

Answers, for one true kernel and SNR of thesis table 3.2, whether a seed whose choice is not
the true structure is a search that missed a better model (the true structure has the lower
BIC) or BIC preferring another model on that draw (the choice has the lower BIC). Draws each
seed's data as ``bench_recovery`` does and reads the choice and its BIC from
``recovery.csv``. The true structure, with white noise added, is fitted by the exact engine on
the same data in the same units (``regression_bic.fitted_bic``): from the generator's own
values (noise sd 1/SNR) and from 5 random starts, the better kept. A refit of the choice from
random starts is given beside the search's BIC, to show how far random starts alone get.

    OMP_NUM_THREADS=1 .venv/bin/python -m benchmarks.studies.recovery_bic \\
        --case "SE1 + SE2 × Per1 + SE3" --snr 10
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

from abcd_cli.kernels import WN
from benchmarks.several_inputs import OUTPUTS
from benchmarks.several_inputs import recovery_truth as truth
from benchmarks.studies.regression_bic import fitted_bic

CSV = OUTPUTS / "recovery.csv"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", default="SE1 + SE2 × Per1 + SE3")
    parser.add_argument("--snr", type=float, default=10.0)
    parser.add_argument("--csv", type=Path, default=CSV, help="the benchmark's rows")
    args = parser.parse_args(argv)
    case = truth.case(args.case)
    names = [f"x{i + 1}" for i in range(case.dims)]
    true_text = f"{case.kernel.to_text(params=False, names=names)} + WN"
    with args.csv.open(newline="") as file:
        rows = [
            r
            for r in csv.DictReader(file)
            if r["case"] == args.case and float(r["snr"]) == args.snr
        ]
    print(f"{args.case}, SNR {args.snr:g}; true structure fitted as `{true_text}`")
    print(
        "| seed | the search's choice | its BIC (search) | refitted from random starts |"
        " the true structure's BIC | true minus chosen |"
    )
    print("|---:|---|---:|---:|---:|---:|")
    generator = case.kernel + WN((1.0 / args.snr,))
    for row in sorted(rows, key=lambda r: int(r["seed"])):
        x, y = truth.draw(case, args.snr, int(row["seed"]))
        chosen = float(row["bic"])
        _, _, refit = fitted_bic(row["structure"], names, x, y)
        true = min(fitted_bic(generator, names, x, y)[2], fitted_bic(true_text, names, x, y)[2])
        print(
            f"| {row['seed']} | `{row['structure']}` | {chosen:.2f} | {refit:.2f} |"
            f" {true:.2f} | {true - chosen:+.2f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
