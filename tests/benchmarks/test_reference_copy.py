"""The published reference numbers kept in ``benchmarks/reference/``: the same as the source
folder's, complete, and consistent with the medians the papers print."""

from __future__ import annotations

import statistics
from pathlib import Path

import pytest

from benchmarks.common import DATASETS
from benchmarks.reference import (
    BIC_FILE,
    PUBLISHED_MEDIANS,
    REFERENCE_DIR,
    REFERENCE_METHODS,
    RMSE_FILES,
    reference_bics,
    reference_rmse,
)

SOURCE = Path(__file__).resolve().parents[3] / "shared" / "reference"
SERIES = sorted(p.stem for p in DATASETS.glob("*.csv"))


@pytest.mark.parametrize("path", [BIC_FILE, *RMSE_FILES.values()], ids=lambda p: p.name)
def test_the_copy_matches_the_source_folder(path):
    source = SOURCE / path.name
    if not source.exists():
        pytest.skip(f"{SOURCE} is not beside the repository")
    assert path.parent == REFERENCE_DIR
    assert path.read_bytes() == source.read_bytes()


def test_every_series_has_a_reference_bic_and_every_rmse():
    assert sorted(reference_bics()) == SERIES
    for task in RMSE_FILES:
        table = reference_rmse(task)
        assert sorted(table) == SERIES
        assert all(sorted(cells) == sorted(REFERENCE_METHODS) for cells in table.values())


@pytest.mark.parametrize("task", sorted(RMSE_FILES))
def test_the_raw_rmses_give_the_published_medians(task):
    """Standardised by the best of the nine on each series, the raw RMSEs give the medians of
    the papers' tables of standardised RMSE (printed to two decimals)."""
    table = reference_rmse(task)
    for method, published in zip(REFERENCE_METHODS, PUBLISHED_MEDIANS[task], strict=True):
        ratios = [cells[method] / min(cells.values()) for cells in table.values()]
        assert statistics.median(ratios) == pytest.approx(published, abs=0.005), method
