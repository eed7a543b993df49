"""The prior-mean comparison script: its exact sign-flip test and which seeds it compares."""

from __future__ import annotations

import pytest

from benchmarks.accuracy import runs as accuracy_runs
from benchmarks.studies import compare_prior_means


@pytest.fixture(scope="module")
def scripts():
    """``compare_prior_means`` and the ``accuracy_runs`` module whose CSV files it reads."""
    return compare_prior_means, accuracy_runs


def test_sign_flip_p_by_hand(scripts):
    compare, _ = scripts
    # every series better: only the observed signs give a sum this low
    assert compare.sign_flip_p([-0.1, -0.2, -0.3]) == pytest.approx(1 / 8)
    # sums of ±1 ± 1: 2, 0, 0, -2; at most the observed 0: three of four
    assert compare.sign_flip_p([-1.0, 1.0]) == pytest.approx(3 / 4)
    # the worst case is certain
    assert compare.sign_flip_p([0.5, 0.5]) == pytest.approx(1.0)


def test_only_seeds_with_every_series_are_compared(scripts, tmp_path):
    compare, runs = scripts

    def row(series: str, seed: int, rmse: str) -> dict[str, object]:
        cells = dict.fromkeys(runs.FIELDS, "")
        cells.update(series=series, task="extrap", method="abcd", status="ok", seed=seed)
        return {**cells, "rmse": rmse, "bic": "1.0"}

    for s in ("a", "b"):
        runs.append_row(tmp_path / "results.csv", row(s, 0, "2.0"))
    runs.append_row(tmp_path / runs.SEEDS_CSV, row("a", 1, "1.0"))  # seed 1 lacks b
    runs.append_row(tmp_path / runs.SEEDS_CSV, row("a", 2, "1.0"))
    runs.append_row(tmp_path / runs.SEEDS_CSV, row("b", 2, "nan"))  # seed 2 failed on b
    seeds = compare.full_seeds(tmp_path, "extrap")
    assert sorted(seeds) == [0] and sorted(seeds[0]) == ["a", "b"]
