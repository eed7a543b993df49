"""abcd predict: the predictive table through the command line."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest
from click.testing import CliRunner
from scipy.stats import norm

from abcd_cli.cli.main import main
from abcd_cli.data.dates import calendar_year, decimal_year
from abcd_cli.fitted import FittedSearch
from abcd_cli.prediction import QUANTILES, evidence_weights, mixture_quantile, predictive_table
from tests.reporting.test_report import _search_doc, fixed_model, other_model


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
    # the model was fitted to numbers written as years: dates are read as those numbers are
    mean, _ = fixed_model().predict(
        np.array([calendar_year(2008, 2, 15), calendar_year(2008, 7, 1)])
    )
    assert [float(r["mean"]) for r in rows] == pytest.approx(mean, rel=1e-12)


def test_predict_reads_dates_on_the_axis_of_a_model_fitted_to_dates(tmp_path):
    doc = _search_doc(fixed_model())
    doc["data"]["x_kind"] = "date"
    model_file = tmp_path / "model.json"
    model_file.write_text(json.dumps(doc))
    new = tmp_path / "x.csv"
    new.write_text("when\n2008-02-15\n2008-07-01 12:00\n")
    out = tmp_path / "out.csv"
    result = CliRunner().invoke(main, ["predict", str(model_file), str(new), "-o", str(out)])
    assert result.exit_code == 0, result.output
    at = [decimal_year(2008, 2, 15), decimal_year(2008, 7, 1, 12 * 3600.0)]
    mean, _ = fixed_model().predict(np.array(at))
    assert [float(r["mean"]) for r in csv.DictReader(out.open())] == pytest.approx(mean, rel=1e-12)


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


def test_plain_numbers_for_a_model_of_years_say_what_to_rename(model_file, tmp_path):
    new = tmp_path / "x.csv"
    new.write_text("step\n2008.1\n2008.5\n")
    out = tmp_path / "out.csv"
    result = CliRunner().invoke(main, ["predict", str(model_file), str(new), "-o", str(out)])
    assert result.exit_code == 2 and len(result.output.splitlines()) == 1
    assert (
        "column 'step' holds plain numbers but the model was fitted to dates or years: give"
        " dates, or years in a column named 'date' as the model's (numbers are read as years in"
        " a column named like a year ('year', 'yr', 'decimal_year', ...), or named x, t, time,"
        " date or period with every value from 1000 to 3000" in result.output
    )
    new.write_text("date\n2008.1\n2008.5\n")  # as the message says
    result = CliRunner().invoke(main, ["predict", str(model_file), str(new), "-o", str(out)])
    assert result.exit_code == 0, result.output


def test_predict_refuses_a_non_model(tmp_path):
    bad = tmp_path / "m.json"
    bad.write_text('{"kernel": "SE"}')
    new = tmp_path / "x.csv"
    new.write_text("x\n1\n2\n")
    result = CliRunner().invoke(
        main, ["predict", str(bad), str(new), "-o", str(tmp_path / "o.csv")]
    )
    assert result.exit_code == 2 and "model" in result.output


class _Fixed:
    """A stand-in model whose forecast is N(mean, sd²) at every x."""

    def __init__(self, mean: float, sd: float) -> None:
        self.mean, self.sd = mean, sd

    def predict(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return np.full(x.shape, self.mean), np.full(x.shape, self.sd)


def _mixture_cdf(
    value: np.ndarray, means: np.ndarray, sds: np.ndarray, weights: np.ndarray | None = None
) -> np.ndarray:
    w = np.full(means.shape[0], 1 / means.shape[0]) if weights is None else weights
    return w @ norm.cdf((value - means) / sds)


def test_mixture_quantile_solves_the_mixture_cdf():
    means = np.array([[0.0, 10.0, -3.0], [1.0, -10.0, -3.0], [0.5, 0.0, 40.0]])
    sds = np.array([[1.0, 2.0, 0.1], [0.5, 2.0, 0.1], [3.0, 1.0, 5.0]])
    for q in QUANTILES:
        got = mixture_quantile(means, sds, q)
        np.testing.assert_allclose(_mixture_cdf(got, means, sds), q, atol=1e-12)
    # a component without spread is a step in the mixture's CDF: for N(0, 1) and a point at 5,
    # the CDF is about 1/2 just below 5 and about 1 at 5, so the 0.6-quantile is 5
    step = mixture_quantile(np.array([[0.0], [5.0]]), np.array([[1.0], [0.0]]), 0.6)
    assert step[0] == pytest.approx(5.0, abs=1e-9)
    # one component, or several equal ones: the Gaussian quantile
    for k in (1, 3):
        got = mixture_quantile(np.repeat(means[:1], k, 0), np.repeat(sds[:1], k, 0), 0.9)
        np.testing.assert_allclose(got, means[0] + norm.ppf(0.9) * sds[0], rtol=1e-12, atol=1e-12)


def test_mixture_table_has_the_mixture_mean_and_variance():
    models = [fixed_model(), other_model()]
    x = np.array([2001.0, 2008.5, 2012.0])
    table = predictive_table(models, x)
    (m1, s1), (m2, s2) = (m.predict(x) for m in models)
    assert np.abs(m1 - m2).max() > 1.0  # the two models forecast differently
    np.testing.assert_allclose(table["mean"], (m1 + m2) / 2, rtol=1e-12)
    variance = (s1**2 + m1**2 + s2**2 + m2**2) / 2 - table["mean"] ** 2
    np.testing.assert_allclose(table["sd"] ** 2, variance, rtol=1e-9)
    means, sds = np.array([m1, m2]), np.array([s1, s2])
    for q in QUANTILES:
        np.testing.assert_allclose(_mixture_cdf(table[f"q{100 * q:g}"], means, sds), q, atol=1e-9)
    # the spread is exact at a level far above it (no cancellation of large squares)
    far = predictive_table([_Fixed(1e8, 0.01), _Fixed(1e8 + 0.02, 0.01)], x)
    np.testing.assert_allclose(far["sd"], np.sqrt(2.0) * 0.01, rtol=1e-6)
    # a mixture of one model twice is that model
    alone, twice = predictive_table(models[:1], x), predictive_table(models[:1] * 2, x)
    for key, column in alone.items():
        np.testing.assert_allclose(twice[key], column, rtol=1e-9)


def test_weighted_mixture_table():
    models = [fixed_model(), other_model()]
    x = np.array([2001.0, 2008.5, 2012.0])
    w = np.array([0.8, 0.2])
    table = predictive_table(models, x, w)
    (m1, s1), (m2, s2) = (m.predict(x) for m in models)
    np.testing.assert_allclose(table["mean"], 0.8 * m1 + 0.2 * m2, rtol=1e-12)
    second_moment = 0.8 * (s1**2 + m1**2) + 0.2 * (s2**2 + m2**2)
    np.testing.assert_allclose(table["sd"] ** 2, second_moment - table["mean"] ** 2, rtol=1e-9)
    means, sds = np.array([m1, m2]), np.array([s1, s2])
    for q in QUANTILES:
        got = table[f"q{100 * q:g}"]
        np.testing.assert_allclose(_mixture_cdf(got, means, sds, w), q, atol=1e-9)
    # equal weights given explicitly are the default; all the weight on one model is that model
    for key, column in predictive_table(models, x).items():
        np.testing.assert_allclose(predictive_table(models, x, [0.5, 0.5])[key], column)
    alone = predictive_table(models[:1], x)
    for key, column in predictive_table(models, x, [1.0, 0.0]).items():
        np.testing.assert_allclose(column, alone[key], rtol=1e-12)
    # a component without weight does not widen the bisection bracket, however far it lies
    far = mixture_quantile(np.array([[0.0], [1e300]]), np.array([[1.0], [1.0]]), 0.9, [1.0, 0.0])
    assert far[0] == pytest.approx(norm.ppf(0.9), rel=1e-12)
    for bad in ([0.5], [0.7, 0.7], [1.5, -0.5], [np.nan, 1.0]):
        with pytest.raises(ValueError, match="weights"):
            predictive_table(models, x, bad)


def test_evidence_weights_are_shares_of_exp_minus_half_bic():
    np.testing.assert_allclose(
        evidence_weights([10.0, 12.0, 10.0]), np.array([1, np.exp(-1), 1]) / (2 + np.exp(-1))
    )
    # only differences matter, so BICs in the millions neither underflow nor overflow
    np.testing.assert_allclose(evidence_weights([1e6, 1e6 + 2]), [1, np.exp(-1)] / (1 + np.exp(-1)))
    assert evidence_weights([5.0, 2000.0])[1] == 0.0
    for bad in ([], [1.0, np.nan], [np.inf]):
        with pytest.raises(ValueError, match="finite BIC"):
            evidence_weights(bad)


def test_predict_averages_the_seeds_models_when_asked(tmp_path):
    chosen = fixed_model()
    # a BIC one unit above the chosen model's: evidence weights 1/(1 + e^-½) and e^-½/(1 + e^-½)
    other = other_model(bic_above=1.0)
    doc = _search_doc(chosen)
    doc["seed_models"] = [
        {"seed": 4, **chosen.to_dict(with_data=False)},
        {"seed": 5, **other.to_dict(with_data=False)},
    ]
    path = tmp_path / "model.json"
    path.write_text(json.dumps(doc))
    new = tmp_path / "x.csv"
    new.write_text("date\n2008.1\n2009.0\n")
    x = np.array([2008.1, 2009.0])

    def run(*extra: str) -> tuple[int, str, list[dict[str, str]]]:
        out = tmp_path / "out.csv"
        result = CliRunner().invoke(main, ["predict", str(path), str(new), "-o", str(out), *extra])
        rows = list(csv.DictReader(out.open())) if out.exists() else []
        out.unlink(missing_ok=True)
        return result.exit_code, result.output, rows

    code, output, rows = run()
    assert code == 0 and "mixture" not in output
    np.testing.assert_allclose([float(r["mean"]) for r in rows], chosen.predict(x)[0], rtol=1e-9)
    share = 1 / (1 + np.exp(-0.5))
    for extra, weights, said in (
        ((), [share, 1 - share], "weighted by evidence: seed 4 0.62, seed 5 0.38"),
        (("--seed-weights", "evidence"), [share, 1 - share], "seed 4 0.62, seed 5 0.38"),
        (("--seed-weights", "equal"), None, "the mixture of 2 seeds' models, equally weighted"),
    ):
        code, output, rows = run("--average-seeds", *extra)
        assert code == 0 and said in output, output
        expected = predictive_table([chosen, other], x, weights)
        for key in ("mean", "sd", "q2.5", "q97.5"):
            np.testing.assert_allclose([float(r[key]) for r in rows], expected[key], rtol=1e-9)
    # the two weightings forecast differently here, so the loop above tells them apart
    by_evidence = predictive_table([chosen, other], x, [share, 1 - share])["mean"]
    assert np.abs(by_evidence - predictive_table([chosen, other], x)["mean"]).max() > 1e-3

    # weights without averaging are refused rather than ignored
    code, output, rows = run("--seed-weights", "equal")
    assert code == 2 and "only applies with --average-seeds" in output and not rows

    # a file of one search cannot be averaged; a damaged list is named
    damaged = {"seed": 1, **chosen.to_dict(with_data=False), "internal": {"scaling": [1, 2]}}
    for seed_models, message in (
        ([], "needs a file from"),
        ([1, 2], "seed_models must be a list of models"),
        ([{"seed": 0, **chosen.to_dict(with_data=False)}, damaged], "seed_models[1]: not a model"),
        ([chosen.to_dict(with_data=False)] * 2, "seed_models[0]: seed must be"),
        ([{"seed": 3, **chosen.to_dict(with_data=False)}] * 2, "seed_models[1]: seed must be"),
    ):
        doc["seed_models"] = seed_models
        path.write_text(json.dumps(doc))
        code, output, rows = run("--average-seeds")
        assert code == 2 and message in output and "Traceback" not in output and not rows


def test_search_with_the_posterior_then_predict_and_report_with_its_mixture(tmp_path):
    t = np.arange(60) / 12.0 + 2000.0
    y = 10.0 + np.sin(2 * np.pi * t) + 0.2 * np.random.default_rng(3).standard_normal(t.size)
    data = tmp_path / "data.csv"
    data.write_text("t,y\n" + "".join(f"{a:.6f},{b:.6f}\n" for a, b in zip(t, y, strict=True)))
    model = tmp_path / "model.json"
    small = ["--depth", "1", "--restarts", "2", "--quiet"]
    args = ["search", str(data), *small, "--method", "posterior", "--pool", "3"]
    result = CliRunner().invoke(main, [*args, "--json", str(model)])
    assert result.exit_code == 0, result.output
    doc = json.loads(model.read_text())
    assert doc["settings"]["method"] == "posterior" and len(doc["posterior"]["structures"]) == 3
    assert doc["posterior"]["features"][0]["probability"] > 0

    new = tmp_path / "x.csv"
    new.write_text("t\n2005.0\n2005.5\n")
    out = tmp_path / "out.csv"
    result = CliRunner().invoke(main, ["predict", str(model), str(new), "-o", str(out)])
    assert result.exit_code == 0 and "the posterior's mixture of 3 structures" in result.output
    found = FittedSearch.from_document(doc)
    models, weights = found.posterior_mixture()
    at = np.array([2005.0, 2005.5])
    # the mixture, widened past the data by the band's calibration on the series' own past
    expected = found.calibrated(predictive_table(models, at, weights), at[:, None])
    rows = list(csv.DictReader(out.open()))
    for key in ("mean", "sd", "q2.5", "q97.5"):
        np.testing.assert_allclose([float(r[key]) for r in rows], expected[key], rtol=1e-9)

    report = tmp_path / "report.json"
    result = CliRunner().invoke(
        main, ["report", "--from-model", str(model), "-o", str(report), "--quiet"]
    )
    assert result.exit_code == 0, result.output
    forecast = json.loads(report.read_text())["forecast"]
    assert "mixes the forecasts of the 3 best-scoring structures" in forecast["text"]
    grid = np.array(forecast["x"])
    mixed = found.calibrated(predictive_table(models, grid, weights), grid[:, None])
    np.testing.assert_allclose(forecast["q97.5"], mixed["q97.5"], rtol=1e-9)
    np.testing.assert_allclose(forecast["most_probable"]["mean"], found.model.predict(grid)[0])

    result = CliRunner().invoke(main, [*args, "--method", "greedy", "--json", str(tmp_path / "b")])
    assert result.exit_code == 2 and "--pool only applies with --method posterior" in result.output
    assert len(result.output.strip().splitlines()) == 1


@pytest.mark.parametrize("name", ["forecast.xlsx", "forecast.parquet", "FORECAST.JSON"])
def test_predict_refuses_an_output_named_as_another_format(model_file, tmp_path, name):
    new = tmp_path / "x.csv"
    new.write_text("date\n2008.1\n")
    out = tmp_path / name
    result = CliRunner().invoke(main, ["predict", str(model_file), str(new), "-o", str(out)])
    assert result.exit_code == 2 and "writes a CSV table; name the output .csv" in result.output
    assert len(result.output.strip().splitlines()) == 1 and not out.exists()
