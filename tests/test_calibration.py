"""The band's calibration by horizon (``abcd_cli.calibration``): its factors against a hand
computation, how it widens a predictive table, its JSON form and check, and its use by
``abcd_cli.predict`` and ``abcd predict`` from a model file."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import abcd_cli
from abcd_cli.calibration import (
    Z95,
    Calibration,
    band_factor,
    calibrate,
    calibration_problem,
)
from abcd_cli.cli.main import main
from abcd_cli.errors import InputError
from abcd_cli.found import read_model


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


# -- held in the model file and used by predictions ---------------------------------------------

ROOT = Path(__file__).resolve().parent.parent
#: A posterior (20 structures, 32 draws each) of the airline series, 129 points, written before
#: calibrations (the tests keep two structures and four draws of it).
POSTERIOR_MODEL = ROOT / "benchmarks/accuracy/outputs/peers/models/01-airline-extrap.json"
#: A calibration of it by hand: the band 1.5, 2 and 3 times as wide up to 0.5, 1 and 2 years.
HAND = Calibration((0.5, 1.0, 2.0), (1.5, 2.0, 3.0), 6, 120, "scale", z=np.ones(3), h=np.ones(3))


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The posterior's model file as written, and with ``HAND`` added."""
    folder = tmp_path_factory.mktemp("calibrated")
    doc = json.loads(POSTERIOR_MODEL.read_text())
    posterior = doc["posterior"]  # its two most probable structures and 4 draws: fast
    kept = posterior["structures"][:2]
    total = sum(s["weight"] for s in kept)
    for s in kept:
        s["weight"] /= total
        s["theta"] = s["theta"][:4]
    posterior.update(structures=kept, draws=4)
    doc["settings"]["draws"] = 4
    plain, calibrated = folder / "plain.json", folder / "calibrated.json"
    plain.write_text(json.dumps(doc))
    calibrated.write_text(json.dumps({**doc, "calibration": HAND.to_dict()}))
    return plain, calibrated


def test_the_model_file_round_trips_its_calibration(files: tuple[Path, Path]) -> None:
    found = read_model(files[1])
    assert found.calibration == HAND
    assert read_model(files[0]).calibration is None


def test_predict_widens_the_posteriors_band_past_the_data_by_horizon(
    files: tuple[Path, Path],
) -> None:
    plain, calibrated = (read_model(p) for p in files)
    end = float(plain.model.X[:, 0].max())
    at = np.array([end - 1.0, end + 0.25, end + 0.75, end + 1.5, end + 4.0])
    before, after = abcd_cli.predict(plain, at), abcd_cli.predict(calibrated, at)
    np.testing.assert_allclose(after["mean"], before["mean"])
    np.testing.assert_allclose(after["sd"], before["sd"] * [1.0, 1.5, 2.0, 3.0, 3.0])
    for q in ("q2.5", "q97.5"):
        np.testing.assert_allclose(
            after[q] - after["mean"], (before[q] - before["mean"]) * [1.0, 1.5, 2.0, 3.0, 3.0]
        )
    assert "widened 1.50/2.00/3.00 times by horizon, from 6 forecasts" in after.attrs["mixture"]


def test_abcd_predict_writes_the_calibrated_table(files: tuple[Path, Path], tmp_path: Path) -> None:
    plain, calibrated = files
    x = tmp_path / "x.csv"
    x.write_text("x\n1961.5\n")
    tables = []
    for path in files:
        out = tmp_path / f"{path.stem}.csv"
        result = CliRunner().invoke(main, ["predict", str(path), str(x), "-o", str(out)])
        assert result.exit_code == 0, result.output
        tables.append(pd.read_csv(out))
    end = float(read_model(plain).model.X[:, 0].max())
    factor = HAND.factor_at(np.array([1961.5 - end]))[0]
    assert tables[1]["sd"][0] == pytest.approx(tables[0]["sd"][0] * factor)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["calibration"]["bands"][0].update(factor=0.0), "factor must be positive"),
        (lambda d: d["calibration"].update(method="mean"), "method must be one of"),
        (lambda d: d.update(calibration=[1]), "calibration must be a calibration"),
        (lambda d: d.pop("posterior"), "calibration belongs to a posterior"),
    ],
)
def test_a_malformed_calibration_is_refused_by_the_model_file_check(
    files: tuple[Path, Path], tmp_path: Path, change: Any, message: str
) -> None:
    doc = json.loads(files[1].read_text())
    change(doc)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(InputError, match=f"model file {re.escape(str(path))}: .*{message}"):
        read_model(path)
    result = CliRunner().invoke(main, ["predict", str(path), "--ahead", "2", "-o", "-"])
    assert result.exit_code == 2 and result.output.startswith("Error: ")
    assert len(result.output.splitlines()) == 1 and message in result.output


def test_the_shrink_takes_an_honest_bands_chance_excess_off_the_mean_square() -> None:
    """f = √(m − c·√(2/n)): with n = 8 origins an honest band's mean square has sd 0.5."""
    z = np.full(16, 2.0)  # m = 4
    assert band_factor(z, "scale", 0.0, origins=8, shrink=1.5) == pytest.approx(math.sqrt(3.25))
    assert band_factor(z, "scale", 0.0, origins=8, shrink=0.0) == pytest.approx(2.0)
    small = np.full(16, 1.2)  # m = 1.44, less than 1 + 1.5 sds
    assert band_factor(small, "scale", 1.0, origins=8, shrink=1.5) == 1.0
    assert band_factor(small, "scale", 0.0, origins=8, shrink=1.5) == pytest.approx(math.sqrt(0.69))
    c = calibrate(np.array([0.5, 1.5, 2.5]), np.full(3, 2.0), 3.0, 8, "scale", 0.0, shrink=1.5)
    assert c.factors == pytest.approx((math.sqrt(3.25),) * 3)
