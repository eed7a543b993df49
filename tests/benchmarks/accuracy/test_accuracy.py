"""The accuracy benchmark's bookkeeping: merging runs made in other folders, recording settings."""

from __future__ import annotations

import csv
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from abcd_cli.data.reader import load_series
from abcd_cli.kernel_search.settings import SearchSettings
from benchmarks.accuracy import OUTPUTS, bench_accuracy
from benchmarks.accuracy import figures as accuracy_figures
from benchmarks.accuracy import runs as accuracy_runs
from benchmarks.accuracy import seeds as accuracy_seeds
from benchmarks.accuracy import tables as accuracy_tables
from benchmarks.studies import OUTPUTS as STUDIES


@pytest.fixture(scope="module")
def bench():
    """The command (``bench.cli``) and its modules: ``bench.runs``, ``.tables``, ``.seeds``,
    ``.figures``."""
    return SimpleNamespace(
        cli=bench_accuracy,
        runs=accuracy_runs,
        tables=accuracy_tables,
        seeds=accuracy_seeds,
        figures=accuracy_figures,
    )


def _row(bench, series: str, task: str, method: str, rmse: str) -> dict[str, str]:
    row = dict.fromkeys(bench.runs.FIELDS, "")
    row.update(series=series, task=task, method=method, status="ok", rmse=rmse)
    return row


def _rmse_by_key(path: Path) -> dict[tuple[str, str, str], str]:
    with path.open(newline="") as f:
        return {(r["series"], r["task"], r["method"]): r["rmse"] for r in csv.DictReader(f)}


def test_merge_replaces_rows_of_the_same_run_and_keeps_the_others(bench, tmp_path):
    main = tmp_path / "main" / "results.csv"
    other = tmp_path / "other" / "results.csv"
    main.parent.mkdir()
    other.parent.mkdir()
    bench.runs.append_row(main, _row(bench, "01-airline", "extrap", "abcd", "21.5"))
    bench.runs.append_row(main, _row(bench, "01-airline", "interp", "abcd", "10.8"))
    bench.runs.append_row(other, _row(bench, "01-airline", "extrap", "abcd", "19.0"))
    bench.runs.append_row(other, _row(bench, "02-solar", "extrap", "abcd-int", "0.4"))

    assert bench.runs.merge_results(main, [other]) == 2

    assert _rmse_by_key(main) == {
        ("01-airline", "extrap", "abcd"): "19.0",
        ("01-airline", "interp", "abcd"): "10.8",
        ("02-solar", "extrap", "abcd-int"): "0.4",
    }
    assert bench.runs.read_results(main).keys() == _rmse_by_key(main).keys()  # still its layout
    assert sorted(p.name for p in main.parent.iterdir()) == ["results.csv"]  # no temporary left


def test_merge_refuses_a_missing_file_and_leaves_the_results_alone(bench, tmp_path):
    main = tmp_path / "results.csv"
    bench.runs.append_row(main, _row(bench, "01-airline", "extrap", "abcd", "21.5"))
    before = main.read_bytes()
    with pytest.raises(SystemExit, match="does not exist"):
        bench.runs.merge_results(main, [tmp_path / "nowhere" / "results.csv"])
    assert main.read_bytes() == before


def test_the_recorded_command_leaves_out_what_runs_nothing(bench):
    args = ["--jobs", "0", "--merge", "a/results.csv", "b/results.csv", "--quiet"]
    command = bench.cli.this_command([*args, "--report-only"])
    assert command.endswith(" -m benchmarks.accuracy.bench_accuracy --jobs 0 --quiet")


def test_patience_and_prior_mean_are_options_and_each_group_of_settings_is_stated(bench):
    base = SearchSettings()
    rows = {}
    for patience, prior_mean, series in (
        ("3", "data", "a"),
        ("0", "zero", "b"),
        ("0", "zero", "c"),
    ):
        row = _row(bench, series, "extrap", "abcd", "1.0")
        row.update(depth="10", restarts="10", seed="0", beam="2", beam_levels="3")
        row.update(patience=patience, prior_mean=prior_mean)
        rows[(series, "extrap", "abcd")] = row
    text = "\n".join(bench.tables.settings_lines(rows, base))
    assert "beam 2 for the first 3 levels, every level run, prior mean zero (2 rows)" in text
    assert "beam 2 for the first 3 levels, patience 3, prior mean data (1 rows)" in text
    assert "rows were produced with different settings" in text
    args = bench.cli.parse_args(["--patience", "0", "--prior-mean", "zero"])
    assert (args.patience, args.prior_mean) == (0, "zero")
    assert bench.cli.parse_args([]).prior_mean == "data"
    with pytest.raises(SystemExit):
        bench.cli.parse_args(["--prior-mean", "median"])


def test_error_profile_groups_by_x_and_finds_where_the_error_is(bench):
    x = np.array([5.0, 1.0, 3.0, 2.0, 4.0, 6.0, 8.0, 7.0, 9.0, 10.0])
    err = np.where(x > 8, 3.0, 1.0)  # the last fifth in x (9 and 10) is three times off
    by_part, share = bench.figures.error_profile(x, err)
    assert by_part == pytest.approx([1.0, 1.0, 1.0, 1.0, 3.0])
    assert share == pytest.approx((9 + 9 + 1 + 1 + 1) / (8 * 1 + 2 * 9))
    even, even_share = bench.figures.error_profile(np.arange(100.0), np.full(100, 2.0))
    assert even == pytest.approx([2.0] * 5) and even_share == pytest.approx(0.05)


def test_the_depth_line_counts_searches_that_stopped_early(bench):
    rows = {}
    for series, method, levels in (("a", "abcd", "11"), ("b", "abcd", "7"), ("a", "se", "1")):
        row = _row(bench, series, "extrap", method, "1.0")
        row.update(depth="10", levels=levels)
        rows[(series, "extrap", method)] = row
    line = bench.tables.depth_line(rows)
    assert "1 of 2 searches ran every level" in line
    assert "1 rows are fixed models" in line
    assert line.endswith("stopped early: b extrap abcd")


def test_other_seeds_are_kept_per_seed_and_compared_with_the_reference(bench, tmp_path):
    main = tmp_path / "results.csv"
    seeds = tmp_path / bench.runs.SEEDS_CSV
    run_dir = tmp_path / "seed1"
    run_dir.mkdir()
    # series a: seed 0 beats the reference (2.0 <= 3.0), seed 1 does not (4.0), and seed 1 has
    # the lower BIC; series b: seed 1 wins (1.0 <= 2.0) and has the lower BIC too.
    runs = {
        ("a", "0"): ("2.0", "10.0"),
        ("b", "0"): ("5.0", "20.0"),
        ("a", "1"): ("4.0", "9.0"),
        ("b", "1"): ("1.0", "19.0"),
    }
    rows = {}
    for (series, seed), (rmse, bic_) in runs.items():
        row = _row(bench, series, "extrap", "abcd", rmse)
        row.update(seed=seed, bic=bic_)
        if seed == "0":
            rows[(series, "extrap", "abcd")] = row
        else:
            bench.runs.append_row(run_dir / "results.csv", row)
    assert bench.runs.merge_results(seeds, [run_dir / "results.csv"], bench.runs.SEED_KEY) == 2
    assert bench.runs.merge_results(seeds, [run_dir / "results.csv"], bench.runs.SEED_KEY) == 2
    seed_rows = bench.runs.read_results(seeds, bench.runs.SEED_KEY)
    assert sorted(seed_rows) == [("a", "extrap", "abcd", "1"), ("b", "extrap", "abcd", "1")]
    assert not main.exists()  # the main table is not touched

    # the other columns: the reference, one more method of ours, best on neither series, and
    # one more published method, best on neither series but b's best without ABCD_acc
    grid = {
        "a": {"abcd": 2.0, "se": 8.0, "ABCD_acc": 3.0, "SP": 4.0},
        "b": {"abcd": 5.0, "se": 8.0, "ABCD_acc": 2.0, "SP": 2.5},
    }
    text = "\n".join(bench.seeds.seed_section(rows, seed_rows, "extrap", grid))
    # no averaged forecast: series a and b have no data files to rebuild the models on
    assert "| a | 3 | 10.00 | 2 ✓ | 9.00 | 4 | 1 | — | — | 1 of 2 |" in text
    assert "| b | 2 | 20.00 | 5 | 19.00 | 1 ✓ | 1 | — | — | 1 of 2 |" in text
    # one win per series among the two seeds: 2 of 4 runs, one series per seed on average
    assert "Of the 4 runs that ran (2 seeds × 2 series), 2 are no worse" in text
    assert "(50%): one search with any one of these seeds is no worse on 1.0 of 2" in text
    for name in ("weighted by evidence", "equally weighted"):
        assert f"| the seeds' models averaged, {name} | 0 | 0 of 0 | — | — |" in text
    # seed 0: wins on a; standardised 2/2 = 1 and 5/2 = 2.5, median 1.75; on the paper's basis
    # (SP only beside it) 2/2 and 5/2.5, median 1.5
    assert "| seed 0 | 2 | 1 of 2 | 1.75 | 1.50 |" in text
    # seed 1: wins on b; 4/3 and 1/1, median 1.17; paper's basis 4/4 and 1/1
    assert "| seed 1 | 2 | 1 of 2 | 1.17 | 1.00 |" in text
    # lower BIC picks seed 1 on both series: the same as seed 1
    assert "| lower training BIC of the seeds | 2 | 1 of 2 | 1.17 | 1.00 |" in text
    # a: lower BIC (seed 1) with the higher RMSE; b: lower BIC (seed 1) with the lower RMSE
    assert "On 1 of the 2 series where the seeds' models differ" in text
    assert bench.seeds.seed_section(rows, {}, "extrap", grid) == []  # one seed: no section


def test_merging_other_seeds_is_left_out_of_the_recorded_command(bench):
    args = ["--merge-seeds", "a/results.csv", "--quiet", "--report-only"]
    assert bench.cli.this_command(args).endswith(" -m benchmarks.accuracy.bench_accuracy --quiet")


def test_in_published_place_standardises_over_the_nine_published_methods(bench):
    others = dict.fromkeys(bench.tables.REFERENCE_METHODS, 100.0)
    grid = {
        # ours best: 1; ABCD_acc (5) is left out, so 5 does not count as best
        "a": {**others, "ABCD_acc": 5.0, "abcd": 50.0, "se": 1.0},
        # SP best of the eight others at 40: 60 / 40 = 1.5 (our other methods do not count)
        "b": {**others, "SP": 40.0, "abcd": 60.0, "linear": 10.0},
        # TCI at 20: 30 / 20 = 1.5; then median of (1, 1.5, 1.5) = 1.5
        "c": {**others, "TCI": 20.0, "abcd": 30.0},
        "not run": {**others, "abcd": None},
    }
    assert bench.tables.in_published_place(grid) == pytest.approx(1.5)


@pytest.mark.parametrize("path", [OUTPUTS / "results.csv", STUDIES / "prior_zero" / "results.csv"])
def test_a_stored_model_is_rebuilt_with_its_prior_mean(bench, path):
    """The forecast figure's models: rebuilt from a committed row, they score the row's RMSE."""
    with path.open(newline="") as f:
        row = next(r for r in csv.DictReader(f) if r["method"] == "se" and r["task"] == "extrap")
    model, _ = bench.figures.stored_model(row)
    test = load_series(bench.runs.split_files(row["series"], "extrap")[1])
    rmse, _ = bench.runs.test_scores(test.y, *model.predict(test.x))
    assert rmse == pytest.approx(float(row["rmse"]), rel=1e-6)


def test_the_rmse_table_is_written_whole_with_every_cell(bench, tmp_path):
    path = tmp_path / "rmse_extrap.csv"
    path.write_text("an older table\n")
    bench.cli.write_rmse_csv({"a": {"abcd": 2.5, "SE": None}, "b": {"abcd": 0.1, "SE": 3.0}}, path)
    assert path.read_text() == "series,abcd,SE\na,2.5,\nb,0.1,3.0\n"
    assert [p.name for p in tmp_path.iterdir()] == ["rmse_extrap.csv"]  # no temporary left


def test_averaged_rmse_scores_the_mean_of_the_seeds_forecasts(bench):
    kernels = (
        "SE(lengthscale=5.0, sd=100.0) + WN(sd=30.0)",
        "Lin(sd=20.0, location=1945.0) + WN(sd=30.0)",
    )
    runs = []
    for seed, kernel in enumerate(kernels):
        row = _row(bench, "01-airline", "extrap", "abcd", "1.0")
        row.update(seed=str(seed), kernel=kernel, prior_mean="data")
        runs.append(row)
    test_file = bench.runs.split_files("01-airline", "extrap")[1]
    with test_file.open(newline="") as f:
        rows = list(csv.DictReader(f))
    y = np.array([float(r["y"]) for r in rows])
    x = np.array([float(r["x"]) for r in rows])
    means = [bench.figures.stored_model(r)[0].predict(x)[0] for r in runs]
    singles = [float(np.sqrt(np.mean((m - y) ** 2))) for m in means]
    equal = float(np.sqrt(np.mean(((means[0] + means[1]) / 2 - y) ** 2)))
    got = bench.seeds.SeedRuns.load(runs, "extrap").rmse("equal")
    assert got == pytest.approx(equal, rel=1e-12)
    assert got <= sum(singles) / 2 and abs(singles[0] - singles[1]) > 10.0
    # evidence weights: seed 1's BIC two units higher gives weights 1/(1 + 1/e), (1/e)/(1 + 1/e)
    runs[0]["bic"], runs[1]["bic"] = "100.0", "102.0"
    w = 1 / (1 + np.exp(-1))
    by_evidence = float(np.sqrt(np.mean((w * means[0] + (1 - w) * means[1] - y) ** 2)))
    got = bench.seeds.SeedRuns.load(runs, "extrap").rmse("evidence")
    assert got == pytest.approx(by_evidence, rel=1e-12) and abs(got - equal) > 1.0
    assert bench.seeds.SeedRuns.load([], "extrap").rmse("evidence") is None


def test_subsets_of_the_seeds_count_how_often_each_choice_meets_the_targets(bench):
    """Nine series alike; the forecast of every test point is 0.5, 2 or 4 for seeds 0-2 (y = 0,
    so these are the RMSEs), with BICs 10, 5 and 100; published ABCD_acc and one other method 1.
    Pairs: the lower BIC picks seed 1 (RMSE 2), seed 0 (0.5: all nine no worse, median 1) and
    seed 1; evidence weights give (0, 1) 92% to seed 1, (0, 2) all to seed 0, (1, 2) all to
    seed 1; equal weights average to 1.25, 2.25 and 3, each worse than the published 1."""
    forecasts, bics = (0.5, 2.0, 4.0), ("10", "5", "100")
    runs = []
    for seed, (level, bic_) in enumerate(zip(forecasts, bics, strict=True)):
        row = _row(bench, "s", "extrap", "abcd", str(level))
        row.update(seed=str(seed), bic=bic_)
        runs.append(row)
    y = np.zeros(2)
    means = np.array([np.full(2, level) for level in forecasts])
    complete = {f"s{i}": bench.seeds.SeedRuns(runs, y, means, np.ones((3, 2))) for i in range(9)}
    grid = {s: {"abcd": None, "ABCD_acc": 1.0, "se": 1.0} for s in complete}
    text = "\n".join(bench.seeds.subset_section(complete, grid, "extrap", "abcd"))
    assert "of every set of k of the 3 seeds" in text
    assert "| 2 | 3 | lower training BIC of the seeds | 1 | 1 | 1 |" in text
    assert "| 2 | 3 | the seeds' models averaged, weighted by evidence | 1 | 1 | 1 |" in text
    assert "| 2 | 3 | the seeds' models averaged, equally weighted | 0 | 0 | 0 |" in text
    assert "\n| 3 |" not in text  # the set of all seeds is the table above it
    # fewer than three seeds, or a series without every seed: no section
    two = {s: bench.seeds.SeedRuns(runs[:2], y, means[:2], np.ones((2, 2))) for s in complete}
    assert bench.seeds.subset_section(two, grid, "extrap", "abcd") == []
    short = {**complete, "s0": bench.seeds.SeedRuns([], None, np.empty((0, 0)), np.empty((0, 0)))}
    assert bench.seeds.subset_section(short, grid, "extrap", "abcd") == []
