"""The calibration study's coverage of a widened band, on a split made by hand."""

from __future__ import annotations

from benchmarks.studies.calibration import about_right, coverage, variant_calibration

#: Four test points 0.5 and 1.5 past the data, each band ±1 about the mean; the backtest's
#: errors are twice the band's sd in the first band (horizon 0-1), as large in the second.
RAW = {
    "backtest": {"horizon": 2.0, "origins": 4, "h": [0.5, 0.5, 1.5, 1.5], "z": [2, -2, 1, -1]},
    "test": {
        "h": [0.5, 0.5, 1.5, 1.5],
        "y": [1.5, -1.5, 1.5, 0.5],
        "mean": [0.0, 0.0, 0.0, 0.0],
        "low": [-1.0, -1.0, -1.0, -1.0],
        "high": [1.0, 1.0, 1.0, 1.0],
    },
}


def test_the_widened_band_covers_what_the_factor_reaches() -> None:
    assert coverage(RAW, variant_calibration(RAW, None, 0.0)) == (1, 4)
    # scale: the first band's factor is 2 (the band ±2 holds ±1.5), the others' 1
    assert coverage(RAW, variant_calibration(RAW, "scale", 1.0)) == (3, 4)


def test_about_right_is_85_percent_or_80_with_under_20_points() -> None:
    assert about_right(17, 20) and not about_right(16, 20)
    assert about_right(8, 10) and not about_right(7, 10)
