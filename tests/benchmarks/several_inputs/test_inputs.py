"""The benchmarks of several inputs (issue 31): the regression splits and scores, and a smoke
run of each script (recovery, regression, search time against N and D) at depth 1."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy.stats import norm

from benchmarks.several_inputs import (
    bench_inputs_scaling,
    bench_recovery,
    bench_regression,
    regression_data,
    regression_methods,
)
from benchmarks.several_inputs.recovery_truth import CASES


def test_splits_are_seeded_disjoint_ninety_ten_and_standardised_on_training_rows() -> None:
    data = regression_data.load("grunfeld")
    first = regression_data.split(data, 0, seed=0, max_train=500)
    assert len(first.y_test) == math.ceil(0.1 * data.n) == 22
    assert len(first.y_train) == first.n_train_all == data.n - 22
    np.testing.assert_allclose(first.x_train.mean(axis=0), 0.0, atol=1e-12)
    np.testing.assert_allclose(first.x_train.std(axis=0), 1.0)
    assert first.y_train.std() == pytest.approx(1.0)
    assert abs(first.y_test.mean()) > 1e-6  # the test rows are not standardised on themselves
    again = regression_data.split(data, 0, seed=0, max_train=500)
    np.testing.assert_array_equal(again.y_test, first.y_test)
    other = regression_data.split(data, 1, seed=0, max_train=500)
    assert not np.array_equal(other.y_test, first.y_test)
    small = regression_data.split(data, 0, seed=0, max_train=50)
    assert len(small.y_train) == 50 and small.n_train_all == data.n - 22
    # the rows: every test row of a split is absent from its training rows
    raw = np.column_stack([data.x.to_numpy(float), data.y.to_numpy(float)])
    order = np.random.default_rng((0, 0)).permutation(data.n)
    train, test = set(order[:-22]), set(order[-22:])
    assert not train & test and len(train | test) == len(raw)


def test_every_bundled_dataset_loads_with_numeric_inputs_and_no_gaps() -> None:
    for name in regression_data.LOADERS:
        data = regression_data.load(name)
        assert data.dims >= 3 and data.n >= 200
        assert not data.x.isna().any().any() and not data.y.isna().any()
        assert all(np.issubdtype(t, np.number) for t in data.x.dtypes)


def test_scores_are_squared_error_and_gaussian_negative_log_density() -> None:
    y = np.array([0.0, 1.0, -2.0])
    p = regression_methods.Prediction(np.array([0.5, 1.0, 0.0]), np.array([1.0, 2.0, 0.5]), 0.0)
    mse, nll = regression_methods.scores(y, p)
    assert mse == pytest.approx((0.25 + 0 + 4) / 3)
    assert nll == pytest.approx(-np.mean(norm.logpdf(y, p.mean, p.sd)))


def test_linear_regression_recovers_a_line_and_its_noise() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(400, 2))
    y = 0.5 * x[:, 0] - 0.2 * x[:, 1] + 0.3 * rng.normal(size=400)
    split = regression_data.Split(x[:300], y[:300], x[300:], y[300:], 300)
    p = regression_methods.linear(split, regression_methods.Options())
    assert p.sd[0] == pytest.approx(0.3, rel=0.15)
    assert regression_methods.scores(split.y_test, p)[0] == pytest.approx(0.09, rel=0.3)


def test_the_regression_benchmark_runs_every_method_and_resumes_from_its_csv(
    tmp_path, monkeypatch
) -> None:
    out, rows = tmp_path / "regression.md", tmp_path / "rows.csv"
    args = ["--splits", "1", "--depth", "1", "--datasets", "grunfeld", "--max-train", "60"]
    args += ["--out", str(out), "--csv", str(rows)]
    bench_regression.main([*args, "--models", str(tmp_path / "models")])
    text = out.read_text()
    assert "-m benchmarks.several_inputs.bench_regression --splits 1 --depth 1" in text
    assert "subsampled to 60" in text and "machine:" in text
    assert text.endswith("in `cross_val_score`): [estimator.md](estimator.md).\n")
    for title in regression_methods.TITLES.values():
        assert f"| grunfeld | {title} |" in text
    kept = bench_regression.read_rows(rows)
    assert len(kept) == len(regression_methods.METHODS)
    for key, row in kept.items():
        if key[2] in regression_methods.ABCD_METHODS:
            doc = json.loads((tmp_path / "models" / f"grunfeld-0-{key[2]}.json").read_text())
            assert doc["trace"] and doc["structure"] == row["chosen"]
    paired = text.split("Against scikit-learn's ARD GP")[1]
    mse = {key[2]: float(r["mse"]) for key, r in kept.items()}
    for method in regression_methods.ABCD_METHODS:
        title = regression_methods.TITLES[method]
        line = next(x for x in paired.splitlines() if x.startswith(f"| grunfeld | {title} |"))
        diff, lower, splits = (cell.strip() for cell in line.split("|")[3:6])
        assert float(diff) == pytest.approx(mse[method] - mse["sklearn-ard"], abs=1e-3)
        assert (lower, splits) == (str(int(mse[method] < mse["sklearn-ard"])), "1")
    assert all(math.isfinite(float(r["nll"])) and float(r["mse"]) >= 0 for r in kept.values())

    def refit(*_args: object) -> None:
        raise AssertionError("a row in the CSV was fitted again")

    monkeypatch.setattr(
        regression_methods, "METHODS", dict.fromkeys(regression_methods.METHODS, refit)
    )
    bench_regression.main(args)
    assert out.read_text().split("\n| dataset")[1] == text.split("\n| dataset")[1]
    # --report-only fits none of the missing second split: the page shows the rows there are
    bench_regression.main(["--report-only", "--splits", "2", *args[2:]])
    assert out.read_text().split("\n| dataset")[1] == text.split("\n| dataset")[1]


def test_the_recovery_benchmark_puts_the_thesis_choice_beside_ours(tmp_path) -> None:
    out = tmp_path / "recovery.md"
    label = "SE1 × SE2"
    bench_recovery.main(["--seeds", "1", "--depth", "1", "--cases", label, "--snrs", "10",
                         "--out", str(out)])  # fmt: skip
    text = out.read_text()
    assert "-m benchmarks.several_inputs.bench_recovery --seeds 1 --depth 1" in text
    (line,) = [row for row in text.splitlines() if row.startswith(f"| {label} |")]
    cells = [c.strip() for c in line.strip("|").split("|")]
    assert cells[:4] == [label, "4", "10", "SE1 × SE2"]  # the thesis's choice at SNR 10
    assert cells[5].endswith("/1") and cells[6].endswith("/1")
    # every row of the table has its transcribed choices
    reference = bench_recovery.reference()
    assert {label for label, _ in reference} == {c.label for c in CASES}
    assert len(reference) == 3 * len(CASES)


def test_a_recovery_rows_method_names_its_table_search_and_screen_fits() -> None:
    assert bench_recovery.method_label("greedy", "grammar", 1) == "greedy"
    assert bench_recovery.method_label("greedy", "coordinate", 1) == "greedy coordinate"
    label = bench_recovery.method_label("greedy", "coordinate", 10)
    assert label == "greedy coordinate screen-fits 10"
    args = bench_recovery.parse_args(["--table-search", "coordinate", "--screen-fits", "10"])
    assert args.method_label == label


def test_the_time_table_has_one_row_per_size_and_dimension(tmp_path) -> None:
    out = tmp_path / "scaling.md"
    bench_inputs_scaling.main(["--sizes", "30", "--dims", "1,2", "--depth", "1", "--out",
                               str(out)])  # fmt: skip
    rows = [line for line in out.read_text().splitlines() if line.startswith("| 30 |")]
    assert [row.split("|")[2].strip() for row in rows] == ["1", "2"]
    assert all(row.split("|")[3].strip() == "2" for row in rows)  # levels 0 and 1
    assert all(int(row.split("|")[6]) > 0 for row in rows)  # candidate fits were counted


def test_the_time_table_runs_on_the_long_series_engine_too(tmp_path) -> None:
    out = tmp_path / "scaling_skc.md"
    bench_inputs_scaling.main(["--sizes", "40", "--dims", "2", "--depth", "1", "--engine", "skc",
                               "--out", str(out)])  # fmt: skip
    text = out.read_text()
    assert text.startswith("# Search time against N and D (skc engine)")
    assert (
        "--engine skc" in text
        and len([r for r in text.splitlines() if r.startswith("| 40 |")]) == 1
    )
