"""How stable are the features today's report states, from one seed to the next? (Issue 52's
stability target, measured for the greedy search's winner as the baseline.)

For each extrapolation training file, the winners of seeds 0, 1 and 2 (the accuracy
benchmark's ``results.csv`` and ``other_seeds.csv``) are pooled with weight ⅓ each and their
features found (``decompose/features.py``: periods and change times grouped across the seeds).
A feature held by all three seeds has probability 1; one held by one or two has ⅓ or ⅔. A winner
states each of its features as certain, so the three seeds' stated features are the same
exactly when every pooled feature has probability 1. The issue's target: the same on at least 10
of 13 series.

    .venv/bin/python -m benchmarks.studies.feature_stability
"""

from __future__ import annotations

import argparse

from abcd_cli.data.reader import load_series
from abcd_cli.decompose.features import features
from abcd_cli.kernels.text import parse_kernel
from benchmarks.accuracy import OUTPUTS as ACCURACY
from benchmarks.accuracy.runs import SEED_KEY, all_series, read_results, split_files
from benchmarks.common import machine_line, publish, python_command
from benchmarks.studies import OUTPUTS
from benchmarks.studies.pool_features import shown

SEEDS = ("0", "1", "2")


def winners(series: str) -> dict[str, str] | None:
    """The abcd winner's kernel text by seed, for the extrapolation split; None if a seed is
    missing."""
    found: dict[str, str] = {}
    for name in ("results.csv", "other_seeds.csv"):
        for row in read_results(ACCURACY / name, SEED_KEY).values():
            own = (row["series"], row["task"], row["method"]) == (series, "extrap", "abcd")
            if own and row.get("status") == "ok":
                found[str(row.get("seed", "0"))] = row["kernel"]
    return found if all(s in found for s in SEEDS) else None


def main(argv: list[str] | None = None) -> None:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args(argv)
    lines = [
        "# The features of seeds 0, 1 and 2's winners, pooled",
        "",
        f"Made by `{python_command('benchmarks.studies.feature_stability', [])}`"
        f" ({machine_line()}). A probability below 1.00 is a feature that only some seeds' winners"
        " state; [a, b] is a value's range over the seeds holding it.",
        "",
        "| series | same features on all three seeds | pooled features (probability) |",
        "|---|---|---|",
    ]
    same = counted = 0
    for series in all_series():
        by_seed = winners(series)
        if by_seed is None:
            continue
        train = load_series(split_files(series, "extrap")[0])
        ranges = [(float(train.x.min()), float(train.x.max()))]
        kernels = [parse_kernel(by_seed[s]) for s in SEEDS]
        pooled = features(kernels, [1.0] * len(kernels), ranges)
        stable = all(f.probability > 1 - 1e-9 for f in pooled)
        same += stable
        counted += 1
        lines.append(f"| {series} | {'yes' if stable else 'no'} | {shown(pooled)} |")
    lines.insert(4, f"The same stated features on {same} of {counted} series.\n")
    publish("\n".join(lines) + "\n", OUTPUTS / "feature_stability.md")


if __name__ == "__main__":
    main()
