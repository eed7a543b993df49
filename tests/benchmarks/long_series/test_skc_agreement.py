"""The skc-against-exact benchmark: its exact refit reproduces an exact search's BIC, and a
run on a small series both ways writes a row that resumes and a table that counts it."""

from __future__ import annotations

import numpy as np
import pytest

from abcd_cli.kernel_search.infer import run_search
from abcd_cli.kernel_search.settings import SearchSettings
from benchmarks.long_series import bench_skc_agreement as bench
from tests.cli.test_failures_and_interrupts import series, write_csv

SETTINGS = SearchSettings(depth=1, restarts=2, seed=1)


def test_the_exact_refit_of_an_exact_model_gives_its_bic() -> None:
    x, y = series(80, seed=2)
    model = run_search(x, y, SETTINGS).model
    at_fit, refit = bench.exact_refit(model, max_iter=50)
    assert at_fit == pytest.approx(model.bic, abs=1e-6)
    assert refit <= at_fit + 1e-9


def test_a_series_both_ways_is_one_row_that_resumes(tmp_path, monkeypatch) -> None:
    x, y = series(120, seed=5)
    monkeypatch.setattr(bench, "DATASETS", tmp_path)
    write_csv(tmp_path / "01-small.csv", x, y)
    row = bench.compare("01-small", 40, jobs=1, settings=SETTINGS)
    low, high = row["skc_bic_low"], row["skc_bic_high"]
    assert row["m"] == 40 and low <= high
    assert row["bracketed"] == (
        low - 1e-6 * abs(low) <= row["exact_bic_at_skc_fit"] <= high + 1e-6 * abs(high)
    )
    assert row["refit_bic"] <= row["exact_bic_at_skc_fit"] + 1e-9
    assert row["agrees"] == (row["same_structure"] or row["refit_bic"] <= row["exact_bic"] + 10)

    table = tmp_path / "agreement.csv"
    bench.append_row(table, row)
    (read,) = bench.read_rows(table)
    assert read["series"] == "01-small" and float(read["refit_bic"]) == row["refit_bic"]
    text = bench.markdown([read], "cmd")
    assert f"m = 40: {int(row['agrees'])} of 1 agree" in text
    assert np.isfinite(float(read["exact_seconds"]))


def test_a_series_already_in_the_csv_is_not_searched_again(tmp_path, monkeypatch) -> None:
    out = tmp_path / "agreement.md"
    row = {field: "1" for field in bench.FIELDS}
    row.update(series="01-small", m="default", agrees="True", same_structure="False")
    bench.append_row(out.with_suffix(".csv"), row)

    def searched(*args, **kwargs):
        raise AssertionError("searched a finished series again")

    monkeypatch.setattr(bench, "compare", searched)
    bench.main(["--series", "01-small", "--out", str(out)])
    assert "m = default: 1 of 1 agree (0 with the same structure)" in out.read_text()
