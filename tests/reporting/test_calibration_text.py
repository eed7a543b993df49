"""The report's words on the band's calibration (``reporting/calibration_text.py``): wider,
narrower, unchanged, absent, and a table of several inputs saying why it has none."""

from __future__ import annotations

import numpy as np
import pandas as pd

import abcd_cli
from abcd_cli.calibration import Calibration
from abcd_cli.decompose.facts import Axis
from abcd_cli.reporting.calibration_text import calibration_sentence, horizon_label

YEARS = Axis("year", "date", "sales")


def test_a_wider_band_is_said_band_by_band_in_the_datas_time_units() -> None:
    c = Calibration((0.5, 1.0, 2.0), (1.6, 1.62, 2.0), 5, 90)
    text = calibration_sentence(c, YEARS)
    assert text.startswith(
        "Forecasts made from this series' own past (5 forecast origins in its last half, 90"
        " errors) missed by more than their bands said, so the band past the data is 1.6 times"
        " as wide up to a horizon of 6.0 months, 1.6 times as wide up to 1.0 year and 2.0 times"
        " as wide up to 2.0 years."
    )


def test_a_narrower_or_unchanged_band_is_said_so() -> None:
    narrower = calibration_sentence(Calibration((1.0, 2.0), (0.8, 0.7), 4, 40), YEARS)
    assert "missed by less than their bands said" in narrower and "0.8 times as wide" in narrower
    same = calibration_sentence(Calibration((1.0, 2.0), (1.0, 1.0), 4, 40), YEARS)
    assert same.endswith(
        "missed by no more than their bands said, so the band is as the mixture gives it."
    )
    mixed = calibration_sentence(Calibration((1.0, 2.0), (0.8, 1.3), 4, 40), YEARS)
    assert "missed by more than their bands said at some horizons and by less at others, so" in (
        mixed
    )


def test_a_band_kept_at_its_floor_is_said_as_given_not_as_one_times_as_wide() -> None:
    c = Calibration((1.0, 2.0, 3.0), (1.48, 1.0, 1.02), 8, 300)
    text = calibration_sentence(c, YEARS)
    assert (
        "missed by more than their bands said at some horizons, so the band past the data is"
        " 1.5 times as wide up to a horizon of 1.0 year, as the mixture gives it up to 2.0 years"
        " and 1.02 times as wide up to 3.0 years." in text
    )
    assert "1.0 times" not in text and "less" not in text


def test_an_absent_calibration_gives_its_reason() -> None:
    text = calibration_sentence(Calibration(reason="the series has 20 points"), YEARS)
    assert text == "The band is not calibrated on the series' own past: the series has 20 points."


def test_the_figures_horizon_is_labelled_in_the_datas_units() -> None:
    assert horizon_label(YEARS) == "horizon (years)"
    assert horizon_label(Axis("number", "weight", "y")) == "horizon (units of weight)"


def test_a_table_of_several_inputs_says_why_its_band_is_not_calibrated() -> None:
    rng = np.random.default_rng(0)
    X = rng.uniform(0.0, 5.0, size=(40, 2))
    y = np.sin(2.0 * X[:, 0]) + 0.1 * rng.standard_normal(40)
    frame = pd.DataFrame({"a": X[:, 0], "b": X[:, 1], "y": y})
    found = abcd_cli.search(
        frame, x="a,b", y="y", method="posterior", depth=1, restarts=1, pool=2, draws=4, jobs=1
    )
    assert found.calibration is not None and not found.calibration.present
    view = abcd_cli.report(found)
    assert isinstance(view, dict)
    assert view["posterior"]["calibration"] == (
        "The band is not calibrated on the series' own past: the data have several inputs and"
        " no forecast origin along time; a calibration by folds of the rows is not made."
    )
