"""The split of a search's wall time into work, barriers and scheduling
(``benchmarks/dask/breakdown.py``), read back from the files ``bench_dask`` writes."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.dask.bench_dask import Run, comparison_table, load_runs, save_runs, write_fit_times
from benchmarks.dask.breakdown import read_fits, read_walls, split, table


def test_a_run_written_by_bench_dask_is_split_into_parts_that_add_up(tmp_path: Path) -> None:
    # two levels; stage fit times chosen so that two workers idle at the end of a stage
    pool_levels = [[[3.0, 1.0, 1.0]], [[2.0, 2.0], [4.0]]]
    dask_levels = [[[3.0, 1.0, 1.1]], [[2.0, 2.0], [4.2]]]
    runs = {
        "01-toy": {
            "pool": Run(10.0, "SE", 1.0, pool_levels),
            "dask": Run(11.5, "SE", 1.0, dask_levels),
        }
    }
    fits_path, table_path = tmp_path / "fits.csv", tmp_path / "dask.md"
    write_fit_times(fits_path, runs)
    scaling_row = "| 01-toy | 6 | 13.0 | 9.0 |"  # the paper tables after it look alike
    table_path.write_text("\n".join([*comparison_table(runs), "", scaling_row]) + "\n")

    fits, walls = read_fits(fits_path), read_walls(table_path)
    assert fits["01-toy"]["pool"] == pool_levels
    assert walls == {"01-toy": {"pool": 10.0, "dask": 11.5}}

    work, barriers, scheduling = split(pool_levels, 10.0, workers=2)
    # work: 13 s of fits on two workers; modelled: stage makespans 3 + 2 + 4 = 9 s
    assert work == pytest.approx(6.5)
    assert barriers == pytest.approx(9.0 - 6.5)
    assert scheduling == pytest.approx(10.0 - 9.0)

    lines = table(fits, walls, workers=2)
    assert lines[2].startswith("| 01-toy | 10.0 | 6.5 | 2.5 | 1.0 | 11.5 |")
    assert lines[-1].startswith("| **all** | **10.0** |")


def test_finished_series_are_kept_for_the_same_settings_only(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    runs = {
        "01-toy": {"pool": Run(1.5, "SE", -3.25, [[[0.5, 0.25]]]), "dask": Run(2.0, "SE", -3.25)}
    }
    save_runs(state, "depth 2", runs)
    assert load_runs(state, "depth 2") == runs
    assert load_runs(state, "depth 3") == {}
    assert load_runs(tmp_path / "none.json", "depth 2") == {}
