"""Does one prior mean forecast better than another? The full search's runs of two results
folders of ``bench_accuracy.py``, compared series by series and seed by seed.

    .venv/bin/python -m benchmarks.studies.compare_prior_means [--task extrap] \
        [--base benchmarks/accuracy/outputs] [--other benchmarks/studies/outputs/prior_zero]

For every seed run in both folders on all their series (``results.csv`` and
``other_seeds.csv``), the ratio r = RMSE(other) / RMSE(base) per series; then, per series, the
geometric mean of r over those seeds, and a one-sided sign-flip test of Σ log r: under "the
prior mean makes no difference" each series' log r is as likely to be negative as positive, so
p is the share of the 2^n sign patterns whose sum is at most the observed one. Reads the CSVs
only; runs nothing.
"""

from __future__ import annotations

import argparse
import itertools
import math
from pathlib import Path

from benchmarks.accuracy import OUTPUTS as ACCURACY
from benchmarks.accuracy.runs import SEED_KEY, SEEDS_CSV, TASKS, read_results
from benchmarks.accuracy.seeds import Seeds, runs_by_seed
from benchmarks.accuracy.tables import our_rmse
from benchmarks.studies import OUTPUTS


def full_seeds(folder: Path, task: str, method: str = "abcd") -> Seeds:
    """seed -> series -> row, for the seeds whose runs all succeeded (a row of
    ``results.csv`` wins over one of ``other_seeds.csv``, as in RESULTS.md)."""
    rows = [*read_results(folder / SEEDS_CSV, SEED_KEY).values()]
    rows += read_results(folder / "results.csv").values()
    seeds = runs_by_seed(rows, task, method)
    series = set().union(*seeds.values())
    return {
        k: runs
        for k, runs in seeds.items()
        if set(runs) == series and all(our_rmse(r) is not None for r in runs.values())
    }


def sign_flip_p(logs: list[float]) -> float:
    """One-sided exact sign-flip p-value of sum(logs) being this low by chance."""
    observed = sum(logs) + 1e-12
    hits = sum(
        sum(s * v for s, v in zip(signs, logs, strict=True)) <= observed
        for signs in itertools.product((1, -1), repeat=len(logs))
    )
    return hits / 2 ** len(logs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--task", choices=sorted(TASKS), default="extrap")
    ap.add_argument("--base", type=Path, default=ACCURACY)
    ap.add_argument("--other", type=Path, default=OUTPUTS / "prior_zero")
    args = ap.parse_args()
    base, other = full_seeds(args.base, args.task), full_seeds(args.other, args.task)
    seeds = sorted(set(base) & set(other))
    if not seeds:
        raise SystemExit("no seed has all its runs in both folders")
    series = sorted(base[seeds[0]])

    def log_ratio(s: str, k: int) -> float:
        return math.log(float(other[k][s]["rmse"]) / float(base[k][s]["rmse"]))

    print(f"task {args.task}; RMSE ratio {args.other.name} / {args.base.name}; seeds {seeds}")
    print("| series | " + " | ".join(f"seed {k}" for k in seeds) + " | geometric mean |")
    print("|---" * (len(seeds) + 2) + "|")
    means = []
    for s in series:
        logs = [log_ratio(s, k) for k in seeds]
        means.append(sum(logs) / len(logs))
        cells = " | ".join(f"{math.exp(v):.3f}" for v in logs)
        print(f"| {s} | {cells} | {math.exp(means[-1]):.3f} |")
    for k in seeds:
        logs = [log_ratio(s, k) for s in series]
        better = sum(v < 0 for v in logs)
        ratio = math.exp(sum(logs) / len(logs))
        print(f"seed {k}: better on {better} of {len(series)}, geometric mean ratio {ratio:.3f}")
    better = sum(v < 0 for v in means)
    ratio = math.exp(sum(means) / len(means))
    print(
        f"over the seeds: better on {better} of {len(series)}, geometric mean ratio {ratio:.3f},"
        f" one-sided sign-flip p = {sign_flip_p(means):.3f}"
    )


if __name__ == "__main__":
    main()
