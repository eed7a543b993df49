"""The long-series benchmark's driver: the period and changepoint checker on hand-made kernels,
the trace reader on the JSON of a real depth-1 search (and on the fields the SKC search is
expected to add), the measured run of a command, and one resumable end-to-end run on a short
head of a synthetic series."""

from __future__ import annotations

import json
import sys
import time

import numpy as np
import pytest

import abcd_cli
from abcd_cli.data.dates import DAYS_PER_YEAR
from abcd_cli.kernel_search.infer import run_search
from abcd_cli.kernel_search.settings import SearchSettings
from abcd_cli.reports import write_reports
from benchmarks.long_series import bench_long, data, measure, runs, tables, trace
from benchmarks.long_series.truth import Change, Period, Truth, check

TRUTH_DAYS = Truth(
    unit="day",
    first=0.0,
    last=400.0,
    periods=(Period("1 day", 1.0), Period("7 days", 7.0)),
    changes=(Change("change", 240.0, 4.0),),
)
SE = "SE(lengthscale=30.0, sd=1.0)"


def test_checker_in_the_truths_unit():
    kernel = (
        f"{SE} * Per(lengthscale=1.0, period=1.015, sd=1.0) + Per(lengthscale=1.0, period=6.9,"
        f" sd=0.5) + CP({SE}, {SE}, location=242.0, steepness=0.5) + WN(sd=0.3)"
    )
    found = check(kernel, TRUTH_DAYS, None, None)
    assert found.all_periods and found.n_changes == 1
    assert [near for _, near, _ in found.periods] == pytest.approx([1.015, 6.9])


def test_checker_tolerance_and_missing_parts():
    kernel = f"{SE} * Per(lengthscale=1.0, period=1.03, sd=1.0) + Lin(sd=1.0, location=240.0)"
    found = check(kernel, TRUTH_DAYS, None, None)
    (daily, near_daily, ok_daily), (weekly, near_weekly, ok_weekly) = found.periods
    assert not ok_daily and near_daily == pytest.approx(1.03)  # 3% off: outside 2%
    assert near_weekly == pytest.approx(1.03) and not ok_weekly  # the nearest is the daily one
    ((_, near_change, ok_change),) = found.changes
    assert near_change is None and not ok_change  # Lin's location is no change
    assert "no (none)" in found.summary()


def test_checker_converts_decimal_years_through_the_data():
    year = 1.0 / DAYS_PER_YEAR
    x_first, x_last = 2015.0, 2015.0 + 400.0 * year
    kernel = (
        f"Per(lengthscale=1.0, period={0.99 * year}, sd=1.0) + Cos(period={7.1 * year}, sd=1.0)"
        f" + CW({SE}, {SE}, location={2015.0 + 250.0 * year}, width={20.0 * year},"
        " steepness=0.001)"
    )
    found = check(kernel, TRUTH_DAYS, x_first, x_last)
    assert found.all_periods  # Cos counts as periodic
    ((_, near, ok),) = found.changes
    assert ok and near == pytest.approx(240.0)  # the window's left edge, 250 - 20/2


def test_checker_finds_changes_in_gates():
    kernel = "SE(lengthscale=3.0, sd=1.0) * After(location=237.0, steepness=0.1)"
    assert check(kernel, TRUTH_DAYS, None, None).n_changes == 1
    far = "SE(lengthscale=3.0, sd=1.0) * Before(location=230.0, steepness=0.1)"
    assert check(far, TRUTH_DAYS, None, None).n_changes == 0


@pytest.fixture(scope="module")
def depth_one(tmp_path_factory):
    """A real depth-1 search on 150 synthetic hours: its model file and its JSON report."""
    folder = tmp_path_factory.mktemp("search")
    p = data.prepare("hourly-10k", folder, head=150)
    found = abcd_cli.search(str(p.csv), depth=1, restarts=2, jobs=1)
    model = found.save(folder / "model.json")
    report = folder / "report.json"
    write_reports(found, {"json": report})
    return json.loads(model.read_text()), json.loads(report.read_text()), found


def test_trace_reader_on_a_real_search(depth_one):
    document, report, found = depth_one
    levels = trace.levels(document)
    assert [lv.level for lv in levels] == [0, 1]
    assert [lv.structure for lv in levels] == [row["structure"] for row in document["trace"]]
    assert all(lv.seconds is not None and lv.seconds >= 0 for lv in levels)
    assert sum(lv.seconds for lv in levels) == pytest.approx(
        document["trace"][-1]["elapsed_seconds"]
    )
    assert levels[1].candidates == document["trace"][1]["candidates"] > 1
    assert levels[1].bic == pytest.approx(found.bic)
    chosen = trace.chosen(document)
    assert chosen.kernel == document["kernel"] and chosen.structure == found.structure
    assert chosen.x_first == document["data"]["x"][0] and chosen.x_last == document["data"]["x"][-1]
    assert chosen.search_seconds == pytest.approx(document["elapsed_seconds"])
    assert trace.levels(report) == levels  # the JSON report holds the same trace
    from_report = trace.chosen(report)
    assert from_report.kernel == chosen.kernel and from_report.x_first is None


def test_trace_reader_takes_the_fields_the_skc_search_adds():
    document = {
        "kernel": "SE(lengthscale=1.0, sd=1.0) + WN(sd=0.1)",
        "engine": {"name": "skc", "m": 320, "seed": 0, "inducing_x": [0.5, 1.5]},
        "bic_interval": [100.0, 104.0],
        "trace": [
            {"level": 0, "wall_seconds": 2.5, "evaluations": 40, "bic_interval": [9.0, 12.0]},
            {
                "level": 1,
                "wall_seconds": 30.0,
                "elapsed_seconds": 32.5,
                "evaluations": 900,
                "pcg_iterations": 14,
                "best_interval": {"low": 5.0, "high": 5.5},
                "candidates_pruned": 7,
            },
            {  # as the SKC search's branch writes a level
                "level": 2,
                "bic": 105.0,
                "bic_low": 101.0,
                "bic_width": 4.0,
                "kept": 3,
                "pruned": 5,
                "evaluations": 800,
                "full_data_evaluations": 120,
                "elapsed_seconds": 40.0,
            },
        ],
    }
    first, second, third = trace.levels(document)
    assert first.seconds == 2.5 and first.width == 3.0 and first.pcg is None
    assert second.seconds == 30.0 and second.evaluations == 900 and second.pcg == 14
    assert second.interval == (5.0, 5.5) and second.width == 0.5 and second.pruned == 7
    assert third.seconds == 7.5 and third.interval == (101.0, 105.0) and third.width == 4.0
    assert (third.kept, third.pruned, third.evaluations, third.full_evaluations) == (3, 5, 800, 120)
    chosen = trace.chosen(document)
    assert (chosen.engine, chosen.inducing, chosen.interval) == ("skc", 320, (100.0, 104.0))
    no_m = trace.chosen({"kernel": "WN(sd=1.0)", "engine": {"name": "skc", "inducing_x": [1, 2]}})
    assert no_m.inducing == 2
    flat = trace.chosen(
        {"kernel": "WN(sd=1.0)", "settings": {"engine": "skc", "inducing": [0.1, 0.2, 0.3]}}
    )
    assert (flat.engine, flat.inducing) == ("skc", 3)


def test_measured_run_sees_a_grandchilds_memory_and_the_output(tmp_path):
    grandchild = "import numpy as np, time; a = np.ones(200 * 2**17); time.sleep(0.5)"
    code = (
        "import subprocess, sys\nprint('started', flush=True)\n"
        f"subprocess.run([sys.executable, '-c', {grandchild!r}])\nprint('finished', flush=True)"
    )
    m = measure.run([sys.executable, "-c", code], tmp_path / "log.txt")
    assert m.returncode == 0 and not m.timed_out
    assert m.largest_mib > 200  # 200 MiB of ones, in the grandchild
    assert [line for _, line in m.lines] == ["started", "finished"]
    assert m.first_line_with("finish") >= m.first_line_with("start")
    assert "finished" in (tmp_path / "log.txt").read_text()


def test_measured_run_stops_at_the_time_limit(tmp_path):
    m = measure.run(
        [sys.executable, "-c", "import time; time.sleep(60)"], tmp_path / "log.txt", time_limit=1
    )
    assert m.timed_out and m.returncode != 0


def test_targets_labels_and_tables(tmp_path):
    assert runs.time_target(10_000, even=True) == runs.TIME_10K
    assert runs.time_target(9_000, even=False) == runs.TIME_10K
    assert runs.time_target(100_000, even=True) == runs.TIME_100K
    assert runs.time_target(90_000, even=False) is None
    assert runs.time_target(30_000, even=True) is None
    assert runs.label([]) == "default"
    assert runs.label(["--engine", "skc", "--inducing", "320"]) == "engine-skc-inducing-320"
    even = tmp_path / "even.csv"
    even.write_text("time,value\n2020-01-01 00:00,1\n2020-01-01 01:00,2\n2020-01-01 02:00,3\n")
    gaps = tmp_path / "gaps.csv"
    gaps.write_text("x,value\n0,1\n1,2\n3,3\n")
    assert runs.evenly_spaced(even) and not runs.evenly_spaced(gaps)
    lines = tables.table([{"a": "1", "b": ""}, {"a": "2", "b": ""}], [("A", "a"), ("B", "b")])
    assert lines[0] == "| A |"  # the empty column is left out


def test_driver_runs_resumes_and_writes(tmp_path, capsys):
    out = tmp_path / "out" / "long.md"
    argv = ["--series", "hourly-10k", "--head", "120", "--work", str(tmp_path / "work")]
    argv += ["--out", str(out), "--args", "--depth", "0", "--jobs", "1"]
    bench_long.main(argv)
    results, levels = bench_long.csv_paths(out)
    (row,) = runs.read_rows(results).values()
    assert row["status"] == "ok", row["note"]
    assert row["series"] == "hourly-10k-head120" and row["args"] == "--depth 0 --jobs 1"
    assert row["structure"] == "WN" and row["periods_found"] == "0/2"
    assert row["periods_ok"] == "no" and row["time_target"] == "900"
    assert float(row["largest_mib"]) > 0 and float(row["pdf_mb"]) > 0
    assert float(row["search_seconds"]) + float(row["report_seconds"]) == pytest.approx(
        float(row["seconds"]), abs=0.2
    )
    assert [r["level"] for r in runs.read_levels(levels)] == ["0"]
    text = out.read_text()
    assert "`abcd report DATA.csv -o OUT.pdf --json OUT.json --depth 0 --jobs 1`" in text
    assert "hourly-10k-head120" in text and "FAIL" in text
    bench_long.main(argv)  # again: the finished run is skipped, not repeated
    assert "already in" in capsys.readouterr().out
    assert len(runs.read_rows(results)) == 1
    assert np.isfinite(float(row["bic"]))


def test_driver_records_a_failed_run_and_tries_it_again(tmp_path, capsys):
    out = tmp_path / "long.md"
    argv = ["--series", "hourly-10k", "--head", "60", "--work", str(tmp_path / "work")]
    argv += ["--out", str(out), "--args", "--no-such-option"]
    bench_long.main(argv)
    results, _ = bench_long.csv_paths(out)
    (row,) = runs.read_rows(results).values()
    assert row["status"] == "failed" and "exit code 2" in row["note"]
    assert row["time_ok"] == "no" and row["periods_ok"] == "no"  # no model: targets missed
    assert "failed, no model" in out.read_text()
    bench_long.main(argv)  # a failed run is not kept as finished: it runs again
    assert "already in" not in capsys.readouterr().out
    assert len(runs.read_rows(results)) == 1  # the new row replaces the old one


def test_a_stopped_run_keeps_the_levels_of_its_checkpoint(tmp_path):
    pdf = tmp_path / "s.pdf"
    x = np.linspace(0.0, 10.0, 60)
    y = np.sin(2 * np.pi * x / 1.3) + np.random.default_rng(0).normal(0.0, 0.2, 60)
    started = time.time() - 1.0
    run_search(x, y, SearchSettings(depth=1, restarts=2), checkpoint=tmp_path / "s.pdf.ckpt.json")
    rows = runs._checkpoint_levels("s", "--depth 1", pdf, started)
    assert [r["level"] for r in rows] == [0, 1]
    assert all(r["structure"] and r["bic"] and r["candidates"] for r in rows)
    # a checkpoint older than the run is an earlier run's: not this one's levels
    assert runs._checkpoint_levels("s", "--depth 1", pdf, time.time() + 60.0) == []
