"""The band's calibration by horizon (``abcd_cli.calibration``): its factors against a hand
computation, how it widens a predictive table, and its JSON form and check."""

from __future__ import annotations

import math

import numpy as np
import pytest

from abcd_cli.calibration import (
    Z95,
    Calibration,
    band_factor,
    calibrate,
    calibration_problem,
)


def test_the_width_factor_is_the_root_mean_square_of_the_errors() -> None:
    z = np.array([1.0, -2.0, 3.0, -1.0])
    assert band_factor(z, "scale", floor=0.0) == pytest.approx(math.sqrt((1 + 4 + 9 + 1) / 4))


def test_the_conformal_factor_is_the_order_statistic_over_z95() -> None:
    z = np.arange(1.0, 20.0) * np.where(np.arange(19) % 2, -1.0, 1.0)  # |z| = 1 ... 19
    # k = ceil((19 + 1) * 0.95) = 19: the largest |z|
    assert band_factor(z, "conformal", floor=0.0) == pytest.approx(19.0 / Z95)
    z39 = np.arange(1.0, 40.0)  # k = ceil(40 * 0.95) = 38
    assert band_factor(z39, "conformal", floor=0.0) == pytest.approx(38.0 / Z95)


def test_the_floor_keeps_a_band_from_narrowing() -> None:
    z = np.full(10, 0.5)
    assert band_factor(z, "scale", floor=0.0) == pytest.approx(0.5)
    assert band_factor(z, "scale", floor=1.0) == 1.0


def test_errors_are_binned_into_equal_bands_of_the_horizon() -> None:
    h = np.array([0.5, 1.0, 1.5, 2.0, 2.5, 3.0])  # horizon 3: bands (0,1], (1,2], (2,3]
    z = np.array([1.0, 1.0, 2.0, 2.0, 3.0, 3.0])
    c = calibrate(h, z, 3.0, origins=4, method="scale", floor=0.0)
    assert c.edges == pytest.approx((1.0, 2.0, 3.0))
    assert c.factors == pytest.approx((1.0, 2.0, 3.0))
    assert (c.origins, c.errors) == (4, 6)
    np.testing.assert_allclose(
        c.factor_at(np.array([-1.0, 0.0, 0.2, 1.5, 2.5, 9.0])), [1.0, 1.0, 1.0, 2.0, 3.0, 3.0]
    )


def test_a_band_without_errors_takes_its_neighbours_factor() -> None:
    c = calibrate(np.array([0.5, 2.5]), np.array([2.0, 3.0]), 3.0, 4, "scale", 0.0)
    assert c.factors == pytest.approx((2.0, 2.0, 3.0))


def test_a_table_is_widened_about_its_mean_past_the_data_only() -> None:
    c = Calibration((1.0, 2.0), (1.5, 2.0), 4, 20, "scale")
    table = {
        "mean": np.array([10.0, 10.0, 10.0]),
        "sd": np.array([1.0, 1.0, 1.0]),
        "q2.5": np.array([8.0, 8.0, 8.0]),
        "q97.5": np.array([12.0, 12.0, 12.0]),
    }
    out = c.widen(table, np.array([4.0, 5.5, 7.0]), data_end=5.0)  # h = -1, 0.5, 2
    np.testing.assert_allclose(out["sd"], [1.0, 1.5, 2.0])
    np.testing.assert_allclose(out["q2.5"], [8.0, 7.0, 6.0])
    np.testing.assert_allclose(out["q97.5"], [12.0, 13.0, 14.0])
    np.testing.assert_allclose(out["mean"], table["mean"])


def test_an_absent_calibration_changes_nothing() -> None:
    c = Calibration(reason="too short")
    assert not c.present
    np.testing.assert_allclose(c.factor_at(np.array([1.0, 5.0])), [1.0, 1.0])


def test_the_json_form_round_trips() -> None:
    c = calibrate(np.array([0.5, 1.5, 2.5]), np.array([1.0, 2.0, 3.0]), 3.0, 5, "conformal", 1.0)
    back = Calibration.from_dict(c.to_dict())
    assert back == c
    np.testing.assert_allclose(back.z, c.z)
    assert Calibration.from_dict({"reason": "too short"}).reason == "too short"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"method": "median"}, "method must be one of"),
        ({"origins": 0}, "origins must be a whole number"),
        ({"bands": []}, "bands must be a non-empty list"),
        ({"bands": [{"to": 1.0, "factor": -2.0}]}, "factor must be positive"),
        ({"bands": [{"to": 2.0, "factor": 1.0}, {"to": 1.0, "factor": 1.0}]}, "increasing"),
        ({"bands": [{"to": 1.0, "factor": "wide"}]}, "finite numbers"),
        ({"backtest": {"horizon": [1.0], "standardised_error": []}}, "lists of one length"),
        ({"extra": 1}, "unknown keys"),
    ],
)
def test_a_malformed_calibration_is_named(change: dict, message: str) -> None:
    good = calibrate(np.array([0.5, 1.5, 2.5]), np.array([1.0, 2.0, 3.0]), 3.0, 5).to_dict()
    assert calibration_problem(good) == ""
    assert message in calibration_problem({**good, **change})
    with pytest.raises(ValueError, match=message):
        Calibration.from_dict({**good, **change})


def test_an_absent_calibration_holds_its_reason_only() -> None:
    assert calibration_problem({"reason": ""}) != ""
    assert calibration_problem({"reason": "short", "origins": 3}) != ""
    assert calibration_problem([1, 2]) == "must be an object"
