"""abcd predict: the predictive table through the command line."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest
from click.testing import CliRunner
from scipy.stats import norm

from abcd_cli.cli import main
from tests.test_report import _search_doc, fixed_model


@pytest.fixture(scope="module")
def model_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("m") / "model.json"
    path.write_text(json.dumps(_search_doc(fixed_model())))
    return path


def test_predict_writes_quantiles_in_user_units(model_file, tmp_path):
    model = fixed_model()
    new = tmp_path / "x.csv"
    new.write_text("date\n2008.1\n2008.5\n2009.0\n")
    out = tmp_path / "out.csv"
    result = CliRunner().invoke(main, ["predict", str(model_file), str(new), "-o", str(out)])
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(out.open()))
    assert [r["date"] for r in rows] == ["2008.1", "2008.5", "2009.0"]
    mean, sd = model.predict(np.array([2008.1, 2008.5, 2009.0]))
    for row, m, s in zip(rows, mean, sd, strict=True):
        assert float(row["mean"]) == pytest.approx(m, rel=1e-9)
        assert float(row["sd"]) == pytest.approx(s, rel=1e-9)
        assert float(row["q50"]) == pytest.approx(m, rel=1e-9)
        assert float(row["q97.5"]) == pytest.approx(m + norm.ppf(0.975) * s, rel=1e-9)
        assert float(row["q2.5"]) < float(row["q10"]) < float(row["q90"]) < float(row["q97.5"])
    assert 90.0 < float(rows[0]["mean"]) < 115.0  # the data's level is about 100


def test_predict_reads_dates(model_file, tmp_path):
    new = tmp_path / "x.csv"
    new.write_text("when\n2008-02-15\n2008-07-01\n")
    out = tmp_path / "out.csv"
    result = CliRunner().invoke(main, ["predict", str(model_file), str(new), "-o", str(out)])
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(out.open()))
    assert rows[0]["when"] == "2008-02-15"


@pytest.mark.parametrize(
    "text, message",
    [
        ("date\n", "header"),
        ("date\n2008.1\nabc\n", "number"),
        ("date\n2008.1\nNA\n", "no value"),
    ],
)
def test_predict_bad_inputs(model_file, tmp_path, text, message):
    new = tmp_path / "x.csv"
    new.write_text(text)
    out = tmp_path / "out.csv"
    result = CliRunner().invoke(main, ["predict", str(model_file), str(new), "-o", str(out)])
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output
    assert not out.exists()


def test_predict_refuses_a_non_model(tmp_path):
    bad = tmp_path / "m.json"
    bad.write_text('{"kernel": "SE"}')
    new = tmp_path / "x.csv"
    new.write_text("x\n1\n2\n")
    result = CliRunner().invoke(
        main, ["predict", str(bad), str(new), "-o", str(tmp_path / "o.csv")]
    )
    assert result.exit_code == 2 and "model" in result.output
