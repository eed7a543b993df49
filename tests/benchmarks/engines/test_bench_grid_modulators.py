"""The benchmark of FFT products merged by modulator: on a small grid both routes run, the merged
one has one term for Seattle's 16 gated products and the same K·v and bound, and the table and
its command are written."""

from __future__ import annotations

import pytest

from benchmarks.engines import bench_grid_modulators as bench


def test_both_routes_agree_and_the_merged_one_has_one_term():
    before, after = bench.measure(1500, m=50, repeats=1, score_repeats=1)
    assert (before["terms"], after["terms"]) == (16, 1)
    assert after["diff"] < 1e-12 and before["matvec"] > 0 and after["score"] > 0
    assert after["value"] == pytest.approx(before["value"], abs=1e-3)


def test_a_small_run_writes_its_table(tmp_path):
    out = tmp_path / "modulators.md"
    bench.main(
        ["--n", "1200", "--m", "40", "--repeats", "1", "--score-repeats", "1", "--out", str(out)]
    )
    text = out.read_text()
    assert "| by product (before) | 16 |" in text and "| by modulator (after) | 1 |" in text
    assert "--n 1200" in text and "load average" in text
