"""The pipeline after the search on a sparse (SKC) model: its model file (engine, inducing
inputs, BIC interval) and round trip, prediction, the report in every format, and what keeps a
long series light (no N×N matrix, thinned figures)."""

from __future__ import annotations

import csv
import dataclasses
import json
import tracemalloc

import numpy as np
import pytest
from click.testing import CliRunner

from abcd_cli.api import predict
from abcd_cli.cli.main import main
from abcd_cli.data.scaling import Scaling
from abcd_cli.decompose.checks import CHECK_POSITIONS, model_checks
from abcd_cli.decompose.components import GRID_SIZE, MAX_GRID, decompose, input_terms
from abcd_cli.decompose.facts import Axis
from abcd_cli.engines.base import NLLBounds
from abcd_cli.engines.exact import negative_log_likelihood
from abcd_cli.engines.sparse import SparseEngine
from abcd_cli.engines.sparse_posterior import SparsePosterior
from abcd_cli.errors import InputError
from abcd_cli.found import FoundModel, read_model
from abcd_cli.kernels import total
from abcd_cli.kernels.text import parse_kernel
from abcd_cli.model import Model
from abcd_cli.reporting import figures as plots
from abcd_cli.reporting.thinning import THIN_ABOVE, thin
from abcd_cli.reports import write_reports
from tests.reporting.test_report import fixed_model

KERNEL = "SE(lengthscale=3.0, sd=1.0) + Per(lengthscale=1.0, period=2.5, sd=1.0) + WN(sd=0.3)"
N, M = 2000, 60


def sparse_model(n: int = N, m: int = M, constant_mean: bool = False) -> Model:
    """A sparse model with fixed parameters on n synthetic points (trend, cycle, noise)."""
    x = np.linspace(0.0, 10.0, n)
    y = 0.2 * x + np.sin(2 * np.pi * x / 2.5) + 0.3 * np.random.default_rng(0).standard_normal(n)
    sc = Scaling.from_data(x, y)
    kernel = sc.kernel_in(parse_kernel(KERNEL))
    engine = SparseEngine(m=m)
    lower = engine.lower_bound(kernel, sc.x_in(x), sc.y_in(y), constant_mean)
    return Model(kernel, sc, x, y, sc.nll_out(-lower, n - constant_mean), constant_mean, engine)


def document(model: Model) -> dict:
    """The model as a search's document, the way ``FoundModel.from_search`` writes one."""
    doc = model.to_dict()
    doc.update(
        {
            "trace": [{"level": 1, "structure": "SE + Per + WN", "bic": model.bic}],
            "settings": {"seed": 0},
            "notes": [],
            "stopped_early": "",
            "elapsed_seconds": 1.0,
        }
    )
    doc["data"].update({"x_name": "t", "y_name": "level", "x_kind": "number", "source": "s.csv"})
    return doc


@pytest.fixture(scope="module")
def model() -> Model:
    return sparse_model()


@pytest.fixture(scope="module")
def model_file(model, tmp_path_factory):
    path = tmp_path_factory.mktemp("skc") / "model.json"
    FoundModel(model, document(model)).save(path)
    return path


# -- the model file ---------------------------------------------------------------------------


def test_the_model_file_records_the_engine_its_inducing_inputs_and_the_bic_interval(model):
    d = json.loads(json.dumps(model.to_dict()))
    engine = d["engine"]
    assert {k: engine[k] for k in ("name", "m", "seed", "jitter")} == {
        "name": "skc",
        "m": M,
        "seed": 0,
        "jitter": model.engine.jitter,
    }
    z = np.asarray(engine["inducing_x"])
    assert z.shape == (M,) and np.isin(z, model.x).all()  # the data's own x values
    low, high = d["bic_interval"]
    assert low <= high and high == pytest.approx(d["bic"], rel=1e-12)  # high: from the LB
    sc = model.scaling
    exact = sc.nll_out(negative_log_likelihood(model.kernel, sc.x_in(model.x), sc.y_in(model.y)), N)
    assert low <= model.bic_interval[0] + 1e-9
    assert low - 1e-6 <= 2 * exact + model.n_params * np.log(N) <= high + 1e-6
    assert d["log_likelihood_interval"][1] == pytest.approx(-model.bounds.low)


def test_an_exact_models_file_is_unchanged_and_old_files_load_as_exact():
    exact = fixed_model()
    d = exact.to_dict()
    assert not {"engine", "bic_interval", "log_likelihood_interval"} & set(d)
    back = Model.from_dict(d)
    assert back.engine.name == "exact" and back.engine_state is None
    assert back.bic_interval == (back.bic, back.bic)


def test_a_saved_sparse_model_predicts_the_same_numbers(model, model_file):
    found = read_model(model_file)
    assert found.model.engine == model.engine
    state = found.model.engine_state
    np.testing.assert_array_equal(state.inducing_x, model.x[model.engine.inducing(model.x)])
    x_new = np.linspace(-1.0, 12.0, 41)
    before = predict(FoundModel(model, document(model)), x_new)
    after = predict(model_file, x_new)
    assert before.equals(after)
    assert found.model.bic_interval == model.bic_interval
    # saved again, the file is the same
    assert found.model.to_dict() == json.loads(json.dumps(model.to_dict()))


def test_abcd_predict_on_a_sparse_model_file(model, model_file, tmp_path):
    new = tmp_path / "x.csv"
    new.write_text("t\n-0.5\n3.25\n11.0\n")
    out = tmp_path / "out.csv"
    result = CliRunner().invoke(main, ["predict", str(model_file), str(new), "-o", str(out)])
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(out.open()))
    mean, sd = model.predict(np.array([-0.5, 3.25, 11.0]))
    assert [float(r["mean"]) for r in rows] == mean.tolist()
    assert [float(r["sd"]) for r in rows] == sd.tolist()


def test_recorded_inducing_inputs_are_used_whatever_the_engine_would_draw(model):
    d = model.to_dict()
    d["engine"]["seed"] = 7  # the engine would now draw other points
    moved = Model.from_dict(d)
    xs = np.linspace(0.0, 10.0, 9)
    np.testing.assert_array_equal(moved.predict(xs)[0], model.predict(xs)[0])
    del d["engine"]["inducing_x"]
    redrawn = Model.from_dict(d)
    assert not np.array_equal(redrawn.predict(xs)[0], model.predict(xs)[0])


def test_an_engine_with_fixed_inducing_inputs_records_them_in_the_users_units(model):
    z = model.x[::100]
    engine = SparseEngine(m=z.size).with_inducing_inputs(model.scaling.x_in(z))
    fixed = dataclasses.replace(model, engine=engine, nll_bounds=model.bounds)
    np.testing.assert_allclose(fixed.to_dict()["engine"]["inducing_x"], z, rtol=1e-12)
    np.testing.assert_array_equal(fixed.posterior.Z[:, 0], model.scaling.x_in(z))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"name": "nope"}, "unknown engine"),
        ({"m": 0}, "positive integer"),
        ({"colour": 1}, "engine"),
        ({"inducing_x": [[1.0, 2.0]]}, "inducing_x"),
        ({"inducing_x": ["a"]}, "inducing_x"),
    ],
)
def test_a_bad_engine_record_is_a_one_line_error(model, change, message):
    d = model.to_dict()
    d["engine"].update(change)
    with pytest.raises(InputError, match=message):
        Model.from_dict(d)


# -- the report -------------------------------------------------------------------------------


def test_a_report_of_a_sparse_model_in_every_format(model_file, tmp_path):
    found = read_model(model_file)
    paths = {fmt: tmp_path / f"report.{fmt}" for fmt in ("pdf", "html", "json")}
    write_reports(found, paths)
    assert paths["pdf"].read_bytes().startswith(b"%PDF")
    assert "Component 1" in paths["html"].read_text()
    doc = json.loads(paths["json"].read_text())
    assert doc["model"]["engine"]["name"] == "skc" and doc["model"]["engine"]["m"] == M
    assert len(doc["model"]["engine"]["inducing_x"]) == M
    assert doc["model"]["bic_interval"] == found.model.to_dict()["bic_interval"]
    assert doc["components"] and len(doc["checks"]["rows"]) == 3
    assert len(doc["forecast"]["x"]) == GRID_SIZE  # a series this short keeps the usual grid


def test_the_sparse_components_at_the_data_match_their_moments():
    model = sparse_model(constant_mean=True)
    post = model.posterior
    for term in input_terms(model.kernel):
        np.testing.assert_allclose(post.mean(term), post._moments(term, None)[0], atol=1e-12)


@pytest.mark.parametrize("constant_mean", [False, True])
def test_a_fold_downdated_from_the_whole_data_is_the_fold_conditioned_anew(constant_mean):
    model = sparse_model(constant_mean=constant_mean)
    post = model.posterior
    whole = total(input_terms(model.kernel))
    test = np.arange(600, 800)
    train = np.setdiff1d(np.arange(model.n), test)
    fold = post.given(train, whole)
    anew = SparsePosterior(whole, post.X[train], post.residual[train], post.Z, False, post.jitter)
    for part in input_terms(model.kernel):
        np.testing.assert_allclose(
            fold.mean(part, post.X[test]), anew.mean(part, post.X[test]), rtol=1e-9, atol=1e-12
        )
    np.testing.assert_allclose(fold.predict(post.X[test]), anew.predict(post.X[test]), rtol=1e-9)


def test_decomposing_a_long_series_stays_far_from_an_n_by_n_matrix():
    """20,000 points: an N×N matrix would be 3.2 GB; the decomposition and its checks stay
    under 200 MB, and the grid follows the data."""
    model = sparse_model(n=20_000, m=20)
    tracemalloc.start()
    try:
        dec = decompose(model, (Axis("number", "t", "level"),))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 200 * 2**20
    assert dec.series.x_grid.size == round(min(20_000, MAX_GRID) * 1.2)
    assert all(ch.observed.size <= CHECK_POSITIONS for ch in dec.checks)


# -- the checks of a long series --------------------------------------------------------------


class _Errors:
    def __init__(self, e: np.ndarray) -> None:
        self.e = e

    def standardised_errors(self) -> np.ndarray:
        return self.e


def test_binned_checks_keep_every_p_value(monkeypatch):
    e = np.random.default_rng(1).standard_normal(2600) + 0.2 * np.sin(np.arange(2600) / 5)
    binned = model_checks(_Errors(e), np.random.default_rng(0))
    monkeypatch.setattr("abcd_cli.decompose.checks.CHECK_POSITIONS", 10**6)
    full = model_checks(_Errors(e), np.random.default_rng(0))
    assert [c.p_value for c in binned] == [c.p_value for c in full]
    for b, f in zip(binned, full, strict=True):
        assert b.observed.size == min(f.observed.size, CHECK_POSITIONS)
        assert np.max(np.abs(b.observed)) == np.max(np.abs(f.observed))
        assert b.lag_or_freq[0] >= f.lag_or_freq[0] and b.lag_or_freq[-1] <= f.lag_or_freq[-1]


# -- figures of a long series -----------------------------------------------------------------


def test_thinning_keeps_each_columns_ends_and_extremes():
    rng = np.random.default_rng(2)
    x = rng.permutation(np.linspace(0.0, 1.0, 50_000))
    y = rng.standard_normal(x.size)
    columns = 100
    keep = thin(x, columns, y)
    assert np.all(np.diff(x[keep]) >= 0) and keep.size <= 4 * columns
    column = np.minimum((x * columns).astype(int), columns - 1)
    for c in (0, 37, columns - 1):
        inside = np.flatnonzero(column == c)
        kept = set(keep[column[keep] == c])
        assert {inside[np.argmin(y[inside])], inside[np.argmax(y[inside])]} <= kept
        assert {inside[np.argmin(x[inside])], inside[np.argmax(x[inside])]} <= kept
    small = rng.standard_normal(300)
    np.testing.assert_array_equal(thin(small, columns, small), np.argsort(small, kind="stable"))


def test_a_long_series_figure_draws_a_few_thousand_points():
    n = 100_000
    x = np.linspace(0.0, 100.0, n)
    y = np.sin(x) + np.random.default_rng(3).standard_normal(n)
    grid = np.linspace(0.0, 120.0, 12_000)
    fig = plots.forecast_figure(x, y, grid, np.sin(grid), np.ones_like(grid), "t", "y")
    drawn = [np.size(line.get_xdata()) for line in fig.axes[0].get_lines()]
    columns = int(plots.FULL_WIDTH * 150)
    assert max(drawn) <= 4 * columns + 2 and sum(drawn) < 3 * 4 * columns
    short = plots.forecast_figure(
        x[:THIN_ABOVE], y[:THIN_ABOVE], grid[:400], grid[:400], grid[:400], "t", "y"
    )
    assert THIN_ABOVE in [np.size(line.get_xdata()) for line in short.axes[0].get_lines()]


def test_a_seeds_document_rebuilds_each_sparse_model(model):
    other = dataclasses.replace(model, nll_bounds=NLLBounds(model.nll - 1.0, model.nll))
    doc = document(model)
    doc["seed_models"] = [
        {"seed": 0, **model.to_dict(with_data=False)},
        {"seed": 1, **other.to_dict(with_data=False)},
    ]
    models = FoundModel.from_document(doc).seed_models
    assert [m.engine.name for m in models.values()] == ["skc", "skc"]
    assert models[1].bic_interval == pytest.approx(other.bic_interval, rel=1e-12)
