"""Runs of the regression benchmark side by side (``compare_runs``): on the first run's
splits only, with the paired difference of MSE and the most frequent story."""

from __future__ import annotations

import csv

import pytest

from benchmarks.several_inputs import compare_runs
from benchmarks.several_inputs.bench_regression import FIELDS


def _write(path, method: str, rows: list[tuple[int, float, str]]) -> None:
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=FIELDS)
        writer.writeheader()
        for split, mse, story in rows:
            writer.writerow(
                {
                    **dict.fromkeys(FIELDS, ""),
                    "dataset": "grunfeld",
                    "split": split,
                    "method": method,
                    "depth": 10,
                    "max_train": 500,
                    "seed": 0,
                    "mse": mse,
                    "chosen": "C + WN",
                    "story": story,
                    "cpu_seconds": 10.0 * (split + 1),
                }
            )


def test_runs_are_compared_on_the_first_runs_splits(tmp_path) -> None:
    new, old = tmp_path / "new.csv", tmp_path / "old.csv"
    _write(new, "search-coordinate-voted", [(0, 0.2, "x1 x2;"), (1, 0.4, "x1 x2;")])
    _write(old, "search-coordinate", [(0, 0.3, "x1;"), (1, 0.3, "x1 x2;"), (2, 9.0, "x2;")])
    runs = [
        compare_runs.parse_run(f"new={new}:search-coordinate-voted"),
        compare_runs.parse_run(f"old={old}:search-coordinate"),
    ]
    lines = compare_runs.compare(["grunfeld"], runs)
    assert lines[2] == "| grunfeld | new | 2 | 0.300 ± 0.100 |  | `x1 x2;` (2 of 2) | 15.0 |"
    assert lines[3].startswith("| grunfeld | old | 2 | 0.300 ± 0.000 | 0.000 ± 0.100 |")
    with pytest.raises(Exception, match="LABEL=CSV:METHOD"):
        compare_runs.parse_run("no-method")
