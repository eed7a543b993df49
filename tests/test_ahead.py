"""The next N steps after a model's data (``abcd predict --ahead N``, ``predict(ahead=N)``):
at the data's spacing, dates kept as dates on their calendar frequency."""

from __future__ import annotations

import csv
import dataclasses
import json
from datetime import datetime

import numpy as np
import pytest
from click.testing import CliRunner

import abcd_cli
from abcd_cli.ahead import future_inputs
from abcd_cli.cli.main import main
from abcd_cli.data.dates import decimal_year
from abcd_cli.errors import InputError
from tests.reporting.test_report import _search_doc, fixed_model
from tests.reporting.test_several_inputs import CAR_INPUTS, CARS
from tests.reporting.test_several_inputs import fixed_model as inputs_model

MONTHS = [(2000 + k // 12, k % 12 + 1) for k in range(96)]


def _monthly_dates_doc() -> dict:
    """The fixed model on the first of each month, 2000-01 to 2007-12, read as dates."""
    model = fixed_model()
    x = np.array([decimal_year(year, month, 1) for year, month in MONTHS])
    doc = _search_doc(dataclasses.replace(model, x=x))
    doc["data"]["x_kind"] = "date"
    return doc


def test_years_step_by_the_datas_spacing() -> None:
    found = abcd_cli.FoundModel.from_document(_search_doc(fixed_model()))
    last = float(np.max(found.model.x))
    future = future_inputs(found, 3)
    assert future.values == pytest.approx(last + np.arange(1, 4) / 12.0, abs=1e-9)
    assert future.given == pytest.approx(list(future.values))


def test_monthly_dates_give_the_next_months_first_days() -> None:
    found = abcd_cli.FoundModel.from_document(_monthly_dates_doc())
    future = future_inputs(found, 14)
    assert future.given[0] == datetime(2008, 1, 1)
    assert future.given[-1] == datetime(2009, 2, 1)
    assert all(stamp.day == 1 for stamp in future.given)
    assert future.values[1] == pytest.approx(decimal_year(2008, 2, 1), abs=1e-12)


def test_several_inputs_and_a_bad_count_are_refused() -> None:
    doc = inputs_model(CARS, CAR_INPUTS).to_dict()
    found = abcd_cli.FoundModel.from_document(doc)
    with pytest.raises(InputError, match="this model has 3 inputs: give their values"):
        future_inputs(found, 2)
    series = abcd_cli.FoundModel.from_document(_search_doc(fixed_model()))
    with pytest.raises(InputError, match="at least 1"):
        future_inputs(series, 0)


def test_the_api_predicts_ahead_as_at_those_inputs() -> None:
    found = abcd_cli.FoundModel.from_document(_monthly_dates_doc())
    ahead = abcd_cli.predict(found, ahead=2)
    given = abcd_cli.predict(found, [datetime(2008, 1, 1), datetime(2008, 2, 1)])
    assert list(ahead["date"]) == [datetime(2008, 1, 1), datetime(2008, 2, 1)]
    assert ahead["mean"].to_numpy() == pytest.approx(given["mean"].to_numpy(), rel=1e-12)
    with pytest.raises(TypeError, match="or ahead=N"):
        abcd_cli.predict(found, [2008.0], ahead=2)


def test_the_command_writes_the_next_dates(tmp_path) -> None:
    model_file = tmp_path / "model.json"
    model_file.write_text(json.dumps(_monthly_dates_doc()))
    out = tmp_path / "out.csv"
    args = ["predict", str(model_file), "--ahead", "3", "-o", str(out)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(out.open()))
    assert [row["date"] for row in rows] == ["2008-01-01", "2008-02-01", "2008-03-01"]
    found = abcd_cli.FoundModel.from_document(_monthly_dates_doc())
    mean, _ = found.model.predict(future_inputs(found, 3).values)
    assert [float(row["mean"]) for row in rows] == pytest.approx(mean, rel=1e-12)


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--ahead", "3", "X.csv"], "not both"),
        ([], "or --ahead N"),
        (["--ahead", "3", "--x", "t"], "--ahead reads no X.csv"),
    ],
)
def test_the_command_refuses_ahead_with_inputs_or_neither(tmp_path, extra, message) -> None:
    model_file = tmp_path / "model.json"
    model_file.write_text(json.dumps(_search_doc(fixed_model())))
    (tmp_path / "X.csv").write_text("date\n2008.5\n")
    extra = [str(tmp_path / a) if a == "X.csv" else a for a in extra]
    out = tmp_path / "out.csv"
    result = CliRunner().invoke(main, ["predict", str(model_file), *extra, "-o", str(out)])
    assert result.exit_code == 2 and message in result.output, result.output
    assert "Traceback" not in result.output and not out.exists()
