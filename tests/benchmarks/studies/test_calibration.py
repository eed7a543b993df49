"""The calibration study's coverage of a widened band, on a split made by hand."""

from __future__ import annotations

from benchmarks.studies.calibration import (
    about_right,
    band_changes,
    coverage,
    split_coverage,
    variant_calibration,
)

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


def test_a_variant_with_a_shrink_widens_less() -> None:
    """The first band's mean square is 4 from 4 origins: c = 2 takes 2·√(2/4) off, leaving a
    factor of √2.59 (±1.61 still holds ±1.5); c = 4.3 takes 3.04 off, the floor then holds."""
    assert split_coverage([RAW], "scale", 1.0, 2.0) == (["75"], 75.0, 0)
    assert split_coverage([RAW], "scale", 1.0, 4.3) == (["25"], 25.0, 0)
    assert band_changes([RAW["backtest"]], "scale", 1.0) == [1.0]
    assert band_changes([RAW["backtest"]], "scale", 1.0, 4.3) == [0.0]
