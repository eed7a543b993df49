"""Runs of the regression benchmark side by side on the splits the first one has (issue 66):
MSE (mean ± standard error), the splits telling the most frequent story, the median CPU
seconds, and the first run's MSE minus each other's, paired split by split.

Each ``--run LABEL=CSV:METHOD`` names rows of a CSV of ``bench_regression`` (the first is the
run compared; the others are read on its splits only):

    python -m benchmarks.several_inputs.compare_runs --datasets diabetes,auto-mpg,grunfeld \
        --run voted=outputs/regression_voted.csv:search-coordinate-voted \
        --run named=outputs/regression_named.csv:search-coordinate \
        --run "kernel search=outputs/regression.csv:search"
"""

from __future__ import annotations

import argparse
import statistics
from collections import Counter
from pathlib import Path

from benchmarks.several_inputs.bench_regression import _mean_se, _story, read_rows
from benchmarks.several_inputs.regression_methods import ABCD_METHODS


def parse_run(text: str) -> tuple[str, Path, str]:
    """``LABEL=CSV:METHOD`` as (label, path, method)."""
    label, _, rest = text.partition("=")
    path, _, method = rest.rpartition(":")
    if not (label and path and method):
        raise argparse.ArgumentTypeError(f"expected LABEL=CSV:METHOD, not {text!r}")
    return label, Path(path), method


def rows_of(path: Path, method: str, dataset: str) -> dict[int, dict[str, str]]:
    """A run's rows of ``dataset`` by split."""
    return {
        int(row["split"]): row
        for row in read_rows(path).values()
        if row["method"] == method and row["dataset"] == dataset
    }


def compare(datasets: list[str], runs: list[tuple[str, Path, str]]) -> list[str]:
    """The table of the module docstring, one line per dataset and run."""
    lines = [
        "| dataset | run | splits | MSE | first minus this (paired) | same story | median CPU s |",
        "|---|---|---:|---:|---:|---|---:|",
    ]
    for dataset in datasets:
        first = rows_of(runs[0][1], runs[0][2], dataset)
        for index, (label, path, method) in enumerate(runs):
            mine = rows_of(path, method, dataset)
            splits = sorted(s for s in first if s in mine)
            if not splits:
                continue
            mse = [float(mine[s]["mse"]) for s in splits]
            diff = [float(first[s]["mse"]) - float(mine[s]["mse"]) for s in splits]
            paired = _mean_se(diff) if index else ""
            told = ""
            if method in ABCD_METHODS and method != "additive":
                stories = [_story(mine[s]) for s in splits]
                story, count = Counter(stories).most_common(1)[0]
                told = f"`{story}` ({count} of {len(stories)})"
            cpus = [float(mine[s]["cpu_seconds"]) for s in splits if mine[s].get("cpu_seconds")]
            cpu = f"{statistics.median(cpus):.1f}" if cpus else ""
            lines.append(
                f"| {dataset} | {label} | {len(splits)} | {_mean_se(mse)} | {paired} | {told} |"
                f" {cpu} |"
            )
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", default="diabetes,auto-mpg,grunfeld")
    parser.add_argument("--run", type=parse_run, action="append", required=True)
    parser.add_argument("--out", type=Path, help="the table (Markdown); printed without it")
    args = parser.parse_args(argv)
    text = "\n".join(compare(args.datasets.split(","), args.run)) + "\n"
    if args.out:
        args.out.write_text(text)
    else:
        print(text, end="")


if __name__ == "__main__":
    main()
